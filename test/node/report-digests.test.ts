/**
 * The lien report's digests (src/db/reports.ts) keep their counts by
 * filing kind and collateral category without trailing zeros, and
 * migration 0026 trims the digests the code before wrote to the same.
 */
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { generateFilings } from "../../seed/generate.ts";
import { COLLATERAL_CATEGORIES } from "../../src/domain/collateral.ts";
import { FILING_KINDS } from "../../src/domain/kinds.ts";
import { loadedBefore, runMigration } from "./migrated.ts";

const TRIM = "0026_trim_report_counts.sql";

type Digest = { name_key: string; state: string; active: number; kinds: string | null; categories: string | null };

const digests = (db: DatabaseSync) =>
  db
    .prepare("select name_key, state, active, kinds, categories from debtor_reports order by name_key, state")
    .all() as Digest[];

/** An array of counts read as the report reads it (src/report/combine.ts): a missing count is 0. */
const padded = (json: string | null, length: number) =>
  json === null ? null : Array.from({ length }, (_, i) => (JSON.parse(json) as number[])[i] ?? 0);

describe("the report's digests", () => {
  const now = Date.now();
  const records = [...generateFilings({ filings: 1500, seed: 11, now })];

  it("keep their counts without trailing zeros, the counts themselves unchanged", () => {
    const db = loadedBefore(TRIM, records, now);
    const stored = digests(db);
    const live = stored.filter((d) => d.kinds !== null);
    expect(live.length).toBeGreaterThan(100);
    // No array ends in a zero, and most digests count one kind and no category.
    for (const d of live) {
      expect(d.kinds).not.toMatch(/(^\[0\]|,0\])$/);
      expect(d.categories).not.toMatch(/(^\[0\]|,0\])$/);
    }
    expect(live.filter((d) => d.categories === "[]").length).toBeGreaterThan(live.length / 2);
    expect(live.some((d) => JSON.parse(d.categories ?? "[]").length > 1)).toBe(true);
    // The counts themselves: each live digest's kinds add up to its active filings.
    for (const d of live) {
      expect((padded(d.kinds, FILING_KINDS.length) ?? []).reduce((a, b) => a + b, 0)).toBe(d.active);
    }
  });

  it("are trimmed by migration 0026 from the arrays the code before wrote, to what the loaders write", () => {
    const db = loadedBefore(TRIM, records, now);
    const written = digests(db);
    // What the code before wrote: every count, zeros and all.
    const update = db.prepare("update debtor_reports set kinds = ?, categories = ? where name_key = ? and state = ?");
    for (const d of written) {
      const kinds = padded(d.kinds, FILING_KINDS.length);
      const categories = padded(d.categories, COLLATERAL_CATEGORIES.length);
      update.run(kinds && JSON.stringify(kinds), categories && JSON.stringify(categories), d.name_key, d.state);
    }
    expect(digests(db).some((d) => d.categories?.endsWith(",0]"))).toBe(true);
    runMigration(db, TRIM);
    expect(digests(db)).toEqual(written);
  });
});
