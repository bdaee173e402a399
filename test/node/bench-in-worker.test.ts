/**
 * The rows `npm run bench -- --in-worker` answers the app from
 * (scripts/benchInWorker.ts) reach it as D1 would send them: a blob as its
 * byte values, which the column reads back, not as JSON's object of
 * numbered keys, which reads as no bytes.
 */
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { asSent } from "../../scripts/benchInWorker.ts";
import { debtorAddressSets } from "../../src/db/schema.ts";

describe("the in-Worker benchmark's rows", () => {
  it("carry a blob as its byte values, so a key set decodes as stored", () => {
    const db = new DatabaseSync(":memory:");
    const keys = [1, 2 ** 40 + 7, 123_456_789];
    const blob = debtorAddressSets.addressKeys.mapToDriverValue(keys) as Uint8Array;
    const [row] = db.prepare("select ? as keys, 'x' as name").all(blob);
    const sent = JSON.parse(JSON.stringify(asSent(row ?? {}))) as { keys: number[]; name: string };
    expect(sent.name).toBe("x");
    expect(debtorAddressSets.addressKeys.mapFromDriverValue(sent.keys)).toEqual(keys);
    // Without it: the object JSON makes of a Uint8Array decodes as no keys.
    expect(debtorAddressSets.addressKeys.mapFromDriverValue(JSON.parse(JSON.stringify(row)).keys)).toEqual([]);
  });
});
