import { DatabaseSync } from "node:sqlite";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { localD1Database, StatementCache } from "../../scripts/localD1.ts";
import { generateFilings } from "../../seed/generate.ts";
import { upsertFilings } from "../../src/db/load.ts";
import { migratedDatabase } from "./migrated.ts";

describe("the local D1 handle's prepared statements", () => {
  it("keeps a statement used again rather than preparing it twice", () => {
    const cache = new StatementCache(new DatabaseSync(":memory:"), 2);
    const first = cache.get("select 1");
    expect(cache.get("select 1")).toBe(first);
    expect(cache.kept).toBe(1);
  });

  it("keeps only the ones used most recently, however many texts a load runs", () => {
    const cache = new StatementCache(new DatabaseSync(":memory:"), 2);
    const one = cache.get("select 1");
    const two = cache.get("select 2");
    // Used again: the most recent now, so the next new text lets `select 2` go.
    expect(cache.get("select 1")).toBe(one);
    cache.get("select 3");
    expect(cache.kept).toBe(2);
    expect(cache.get("select 1")).toBe(one);
    expect(cache.get("select 2")).not.toBe(two);
    for (let i = 0; i < 1000; i++) cache.get(`select ${i} + 1`);
    expect(cache.kept).toBe(2);
  });

  it("runs a statement prepared again after it was let go", () => {
    const cache = new StatementCache(new DatabaseSync(":memory:"), 1);
    expect(cache.get("select 40 + 2 as n").get()).toEqual([42]);
    cache.get("select 0");
    expect(cache.get("select 40 + 2 as n").get()).toEqual([42]);
  });

  it("is what the loader's handle prepares through, so a load of new texts keeps no more than its size", async () => {
    const db = new DatabaseSync(":memory:");
    db.exec("create table t (n integer)");
    const cache = new StatementCache(db, 8);
    const local = localD1Database(db, cache);
    // Multi-row inserts of every length from 1 to 40 rows: 40 texts, as a load's groups make.
    for (let rows = 1; rows <= 40; rows++) {
      await local.run(
        sql.raw(`insert into t (n) values ${Array.from({ length: rows }, (_, i) => `(${i})`).join(", ")}`),
      );
    }
    expect(cache.kept).toBe(8);
    expect(db.prepare("select count(*) as n from t").get()).toEqual({ n: (40 * 41) / 2 });
  });

  it("sends a load's inserts of new filings as texts that repeat from group to group, their ids bound", async () => {
    const db = migratedDatabase();
    const texts: string[] = [];
    class Recording extends StatementCache {
      override get(text: string) {
        texts.push(text);
        return super.get(text);
      }
    }
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 3, now })];
    const summary = await upsertFilings(localD1Database(db, new Recording(db, 256)), records, { now: new Date(now) });
    expect(summary.inserted).toBeGreaterThan(1900);
    // A new filing's parties name it by an offset from the largest id: bound, not written into the text.
    const inserts = texts.filter((t) => t.startsWith('insert into "debtor_parties"'));
    expect(inserts.length).toBeGreaterThan(100);
    expect(new Set(inserts).size).toBeLessThan(inserts.length / 10);
  });
});
