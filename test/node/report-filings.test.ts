/**
 * A report whose digests cannot serve a state counts it afresh and then
 * reads that state's oldest live filing by id (src/report/query.ts,
 * readFilings): from a list of bound values, one a state, so it stays
 * within D1's 100 bound parameters, keeps one statement text whatever it
 * seeks, and D1 counts no row for the list itself (a JSON list counted a
 * row an id). What it finds is pinned in the Workers runtime
 * (test/report.test.ts, "counts afresh where a digest is stale").
 */
import { describe, expect, it } from "vitest";
import { STATE_CODES } from "../../src/domain/states.ts";
import { textOf } from "../../src/queries/db.ts";
import { readFilings, reportStatements } from "../../src/report/query.ts";
import { countingDb } from "./migrated.ts";

describe("a report's filings sought by id", () => {
  it("are one statement of one text, for one id or one a state, within D1's bound parameters", async () => {
    const { db, counts, texts } = countingDb();
    await readFilings(db, [7]);
    await readFilings(
      db,
      STATE_CODES.map((_, i) => 1_000 + i),
    );
    expect(texts).toHaveLength(2);
    expect(texts[0]).toBe(texts[1]);
    // The ids are a VALUES list of one bound value a state, not a JSON list.
    expect(texts[0]?.match(/\(\?\)/g)).toHaveLength(STATE_CODES.length);
    expect(counts).toEqual([STATE_CODES.length, STATE_CODES.length]);
    expect(Math.max(...counts)).toBeLessThanOrEqual(100);
  });

  it("refuses more ids than there are states, rather than leave some out", async () => {
    const { db } = countingDb();
    await expect(
      readFilings(
        db,
        Array.from({ length: STATE_CODES.length + 1 }, (_, i) => i + 1),
      ),
    ).rejects.toThrow(/filings sought/);
  });
});

describe("a report's statements", () => {
  it("bind at most D1's 100 values, whatever the name, the states and the cursor", () => {
    // The digests bind the name's spans twice (the found debtors, and their links within the spans).
    const names = [
      "J Smith",
      "José Álvarez Muñoz",
      "Mary Ann Smith-Jones Williams",
      "De La Cruz Garcia Lopez, Juan Carlos Alberto",
      "o'neil mc donald, j r",
      Array.from({ length: 60 }, (_, i) => `w${i}`).join(" "),
    ];
    for (const name of names) {
      for (const states of [undefined, [...STATE_CODES]]) {
        const statements = reportStatements({
          name,
          states,
          today: "2026-11-30",
          size: 26,
          after: { at: 1_700_000_000, st: "CA", num: "U1" },
        });
        for (const statement of Object.values(statements))
          expect(textOf(statement).values.length, name).toBeLessThanOrEqual(100);
      }
    }
  });
});
