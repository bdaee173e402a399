/**
 * The second round trip of a change-feed page merged over several shards
 * (src/changes/read.ts, shardChangeFilings) reads a page's filings by key
 * from a list of bound values: it must stay within D1's 100 bound
 * parameters for the largest page, and keep one statement text whatever
 * the page holds (workerd and D1 keep prepared statements by their text).
 */
import { describe, expect, it } from "vitest";
import { type ChangeHead, shardChangeFilings } from "../../src/changes/read.ts";
import { countingDb } from "./migrated.ts";

const head = (seq: number, filingId: number): ChangeHead => ({
  seq,
  recordedAt: "2026-11-30T00:00:00Z",
  type: "filing.created",
  state: "CA",
  amendment: null,
  changedFields: null,
  occurredAt: "2026-11-30T00:00:00Z",
  filingId,
  removedParties: null,
});

describe("a merged page's filings by key", () => {
  it("binds at most 100 parameters for a page of 100 filings, in one statement of one text", async () => {
    const { db, counts, texts } = countingDb();
    await shardChangeFilings(
      db,
      Array.from({ length: 100 }, (_, i) => head(i + 1, 1_000 + i)),
    );
    await shardChangeFilings(db, [head(1, 7), head(2, 7), head(3, 9)]);
    expect(counts).toHaveLength(2);
    expect(Math.max(...counts)).toBeLessThanOrEqual(100);
    expect(texts[0]).toBe(texts[1]);
  });

  it("refuses a page of more filings than the list holds, rather than leave some out", async () => {
    const { db } = countingDb();
    await expect(
      shardChangeFilings(
        db,
        Array.from({ length: 101 }, (_, i) => head(i + 1, i + 1)),
      ),
    ).rejects.toThrow(/101 filings/);
  });
});
