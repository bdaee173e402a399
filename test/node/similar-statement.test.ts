/**
 * The one statement similar-name search sends to a database
 * (src/queries/similar.ts) keeps within D1's limits for any query: at most
 * 100 bound parameters, at most five terms per compound SELECT, and
 * candidates within MAX_CANDIDATES (so rows read within MAX_ROWS_READ).
 */
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { candidateLimit, MAX_CANDIDATES, probeStatement, similarQuery } from "../../src/queries/similar.ts";
import { migratedDatabase } from "./migrated.ts";

const dialect = new SQLiteAsyncDialect({ casing: "snake_case" });
const statementOf = (q: { name: string; state?: string }) => dialect.sqlToQuery(probeStatement(similarQuery(q)));

/** Most `union all` at one depth of parentheses: a compound SELECT's terms, less one. */
function widestCompound(sql: string): number {
  const counts: number[] = [0];
  let widest = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === "(") counts.push(0);
    else if (ch === ")") counts.pop();
    else if (sql.startsWith(" union all ", i)) {
      const depth = counts.length - 1;
      counts[depth] = (counts[depth] ?? 0) + 1;
      widest = Math.max(widest, counts[depth] ?? 0);
    }
  }
  return widest + 1;
}

const WORD = "Bartholomewvanderwoodsenworthingtonshire";
/** A long word, and the longest query (five key words, 26 sound keys). */
const QUERIES = [
  WORD,
  "Bettywalker",
  "Golden Gate Machine Works Tool Supply",
  Array.from({ length: 66 }, (_, i) => `Word${String.fromCharCode(97 + (i % 26))}x${i}`).join(" "),
];

describe("the similar-name statement", () => {
  it.each(QUERIES.flatMap((name) => [{ name, state: "CA" }, { name }]))(
    "keeps within D1's limits and runs: $name in $state",
    (q) => {
      const { sql, params } = statementOf(q);
      expect(params.length).toBeLessThanOrEqual(100);
      expect(widestCompound(sql)).toBeLessThanOrEqual(5);
      expect(sql).not.toMatch(/\blike\b|\bglob\b/i);
      const db = migratedDatabase();
      expect(db.prepare(sql).all(...(params as (string | number)[]))).toEqual([]);
    },
  );

  it("reads more candidates for a one-word query with its joined-name readings, within MAX_CANDIDATES", () => {
    expect(candidateLimit({ name: "Bettywalker" })).toBeGreaterThan(candidateLimit({ name: "Betty Walker" }) / 2);
    expect(candidateLimit({ name: WORD })).toBeLessThanOrEqual(MAX_CANDIDATES);
  });

  it("never probes for more than MAX_CANDIDATES candidates", () => {
    const word = fc
      .array(fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz"), { minLength: 1, maxLength: 40 })
      .map((w) => w.join(""));
    const name = fc.array(word, { minLength: 1, maxLength: 8 }).map((ws) => ws.join(" "));
    fc.assert(
      fc.property(name, fc.boolean(), (n, withState) => {
        const q = withState ? { name: n, state: "CA" } : { name: n };
        expect(candidateLimit(q)).toBeLessThanOrEqual(MAX_CANDIDATES);
        expect(statementOf(q).params.length).toBeLessThanOrEqual(100);
      }),
      { numRuns: 500 },
    );
  });
});
