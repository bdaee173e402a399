/**
 * The key script's output contract (scripts/keys.ts): a new key is the last
 * line of create and rotate, so `| tail -1` captures it, and list has a header.
 * Runs against local KV state of its own (--persist-to).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { listKeys, putKey } from "../../scripts/apiKeyStore.ts";
import { hashKey } from "../../src/domain/apiKeys.ts";

const state = mkdtempSync(join(tmpdir(), "keys-cli-"));
afterAll(() => rmSync(state, { recursive: true, force: true }));

function keys(...args: string[]) {
  const result = spawnSync(process.execPath, ["scripts/keys.ts", ...args, "--persist-to", state], {
    encoding: "utf8",
    env: { ...process.env, PATH: `${join(process.cwd(), "node_modules/.bin")}:${process.env.PATH ?? ""}` },
  });
  return { status: result.status, lines: result.stdout.trim().split("\n") };
}

const KEY = /^lfk_[A-Za-z0-9_-]{43}$/;

describe("npm run keys", () => {
  it("prints the new key as the last line of create and rotate, and a header row in list", () => {
    const created = keys("create", "--name", "CLI test");
    expect(created.status).toBe(0);
    const first = created.lines.at(-1) ?? "";
    expect(first).toMatch(KEY);

    const rotated = keys("rotate", first);
    expect(rotated.status).toBe(0);
    const second = rotated.lines.at(-1) ?? "";
    expect(second).toMatch(KEY);
    expect(second).not.toBe(first);

    const listed = keys("list");
    expect(listed.status).toBe(0);
    expect(listed.lines[0]?.split(/\s+/)).toEqual(["DIGEST", "STATUS", "RATE", "CREATED", "EXPIRES", "LABEL"]);
    expect(
      listed.lines
        .slice(1)
        .map((l) => l.split(/\s+/)[1])
        .sort(),
    ).toEqual(["active", "revoked"]);
  }, 120_000);

  it("lists local keys as wrangler lists them (read from the local file, not through wrangler), by prefix too", async () => {
    const created = keys("create", "--name", "Listed", "--rate-limit", "bulk");
    expect(created.status).toBe(0);
    const env = { ...process.env, PATH: `${join(process.cwd(), "node_modules/.bin")}:${process.env.PATH ?? ""}` };
    const out = execFileSync(
      "wrangler",
      ["kv", "key", "list", "--binding", "API_KEYS", "--local", "--persist-to", state],
      {
        encoding: "utf8",
        env,
      },
    );
    const byWrangler = (JSON.parse(out.slice(out.indexOf("["))) as { name: string; metadata: unknown }[]).map((e) => ({
      digest: e.name,
      metadata: e.metadata,
    }));
    const target = { remote: false, persistTo: state };
    expect(byWrangler).toHaveLength(3);
    expect(await listKeys(target)).toEqual(byWrangler);
    const digest = await hashKey(created.lines.at(-1) ?? "");
    expect(await listKeys(target, digest)).toEqual(byWrangler.filter((k) => k.digest === digest));
    expect(await listKeys({ remote: false, persistTo: join(state, "nothing-here") })).toEqual([]);
  }, 120_000);

  it("refuses an expiry day that is not on the calendar, and to rotate a key that has expired", async () => {
    const refused = keys("create", "--name", "Typo", "--expires", "2099-02-30");
    expect(refused.status).toBe(2);
    const target = { remote: false, persistTo: state };
    const expired = "lfk_expired-for-the-rotation-test";
    putKey(target, await hashKey(expired), {
      label: "Expired",
      created: "2025-01-01T00:00:00Z",
      status: "active",
      expires: "2026-01-01T00:00:00.000Z",
    });
    const before = await listKeys(target);
    expect(keys("rotate", expired).status).toBe(2);
    expect(await listKeys(target)).toEqual(before);
  }, 120_000);
});
