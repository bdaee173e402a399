/**
 * `npm run db:migrate` (scripts/migrate.ts) started outside npm, where
 * wrangler is not on the PATH: it says so and how to run it, rather than
 * failing with an empty message. And migrating from nothing, it says which
 * shard wrangler is migrating before the wait, not only after it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runScript } from "./localState.ts";
import { migrateOutput } from "./templates.ts";

const dir = mkdtempSync(join(tmpdir(), "lien-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("migrations started without wrangler on the PATH", () => {
  it("fail naming wrangler and saying to run them through npm", () => {
    const ran = runScript("scripts/migrate", ["--persist-to", dir], { env: { PATH: dirname(process.execPath) } });
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toContain("wrangler not found: run this through npm");
  });
});

describe("migrations applied to a new local state", () => {
  it("say which shard wrangler is migrating before it runs, then that it is done", () => {
    const lines = migrateOutput().split("\n");
    const applying = lines.indexOf("  DB (liens): applying migrations...");
    expect(applying).toBeGreaterThan(0);
    expect(lines.indexOf("  DB (liens): migrations applied")).toBe(applying + 1);
  });
});
