/**
 * `npm run db:migrate` (scripts/migrate.ts) started outside npm, where
 * wrangler is not on the PATH: it says so and how to run it, rather than
 * failing with an empty message.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runScript } from "./localState.ts";

const dir = mkdtempSync(join(tmpdir(), "lien-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("migrations started without wrangler on the PATH", () => {
  it("fail naming wrangler and saying to run them through npm", () => {
    const ran = runScript("scripts/migrate", ["--persist-to", dir], { env: { PATH: dirname(process.execPath) } });
    expect(ran.status).not.toBe(0);
    expect(ran.stderr).toContain("wrangler not found: run this through npm");
  });
});
