/**
 * The seed records its form (seed/generate.ts, SEED_FORM) in the source of
 * the loads it writes, which `npm run bench` checks before it measures a
 * database seeded earlier: one of an older form is seeded again.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it } from "vitest";
import { SEED_FORM } from "../../seed/generate.ts";
import { seededState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "seed-form-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the seed's form", () => {
  it("is in the source of every load the seed records, on every shard", () => {
    const state = seededState(join(work, "state"));
    const dir = join(state, "v3/d1/miniflare-D1DatabaseObject");
    const files = readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
    expect(files.length).toBeGreaterThan(1);
    for (const file of files) {
      const db = new DatabaseSync(join(dir, file), { readOnly: true });
      const sources = (db.prepare("select distinct source from data_loads").all() as { source: string }[]).map(
        (r) => r.source,
      );
      db.close();
      expect(sources.length, file).toBeGreaterThan(0);
      for (const source of sources)
        expect(source).toMatch(new RegExp(`^seed v${SEED_FORM} --filings \\d+ --seed \\d+`));
    }
  });
});
