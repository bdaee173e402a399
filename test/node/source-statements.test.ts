/**
 * The statements that stage an office's rows and assemble its filings
 * (src/feed/sources/) run within D1's limits and through indexes: each binds
 * at most 100 parameters (by default: D1's), and none that reads or writes
 * source_rows scans the table, however many rows it holds, since staging and
 * assembling are each one range of an index per group.
 */
import { readFileSync } from "node:fs";
import type { SQLInputValue } from "node:sqlite";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/database.ts";
import * as schema from "../../src/db/schema.ts";
import { layoutOf } from "../../src/db/shards.ts";
import { assembleStep } from "../../src/feed/sources/assemble.ts";
import { SOURCES } from "../../src/feed/sources/registry.ts";
import { stageFile } from "../../src/feed/sources/stage.ts";
import { root } from "./localState.ts";
import { migratedDatabase } from "./migrated.ts";

/** One migrated database that runs each statement, recording its text, parameter count and query plan. */
function recordingDb() {
  const sqlite = migratedDatabase();
  const statements: { sql: string; params: number; plan: string[] }[] = [];
  const run = (sql: string, params: unknown[], method: string) => {
    const values = params as SQLInputValue[];
    const plan = (sqlite.prepare(`explain query plan ${sql}`).all(...values) as { detail: string }[]).map(
      (r) => r.detail,
    );
    statements.push({ sql, params: params.length, plan });
    const stmt = sqlite.prepare(sql);
    stmt.setReturnArrays(true);
    if (method === "run") {
      stmt.run(...values);
      return { rows: [] };
    }
    return { rows: (method === "get" ? [stmt.get(...values)].filter(Boolean) : stmt.all(...values)) as unknown[] };
  };
  const db = drizzle(
    async (sql, params, method) => run(sql, params, method),
    async (batch) => batch.map((q) => run(q.sql, q.params, q.method)),
    { schema, casing: "snake_case" },
  ) as unknown as Db;
  return { db, statements };
}

const stream = (file: string) => new Response(readFileSync(`${root}/test/fixtures/sources/${file}`)).body!;

describe("staging and assembling a register", () => {
  it("bind at most 100 parameters and never scan source_rows", async () => {
    const { db, statements } = recordingDb();
    const shards = { layout: layoutOf({}), databases: new Map([["DB", db]]) };
    for (const [source, files] of [
      ["ct", ["ct.json"]],
      ["co", ["co-debtors.json", "co-transactions.json", "co-secured.json", "co-collateral.json"]],
      ["or", ["or-2026-01.json", "or-2026-02.json"]],
      // Parties and references before their documents: every link statement has rows to find.
      ["nyc-acris", ["nyc-parties.csv", "nyc-references.json", "nyc-master.json"]],
    ] as const) {
      for (const file of files) await stageFile(db, SOURCES[source], file, stream(file), {});
      for (let after = ""; ; ) {
        const step = await assembleStep(shards, SOURCES[source], after);
        if (step.last === null) break;
        after = step.last;
      }
    }
    const touching = statements.filter((s) => /"source_rows"/.test(s.sql));
    expect(touching.length).toBeGreaterThan(10);
    expect(Math.max(...statements.map((s) => s.params))).toBeLessThanOrEqual(100);
    for (const s of touching) {
      expect(
        // source_rows under its own name or an alias (t: Colorado's transactions; the others: New York City's links).
        // Nor every row of the source, of one table, or with a part: a search of an index by source
        // alone, of source_rows_row by source and tab alone, or of source_rows_part by a range of parts.
        s.plan.filter((p) =>
          /^SCAN (source_rows|t|m|r|r2|rn|f|a|s)\b|source_rows_\w+ \(source=\?\)|source_rows_row \(source=\? AND tab=\?\)|source_rows_part \(source=\? AND part>\?\)/.test(
            p,
          ),
        ),
        s.sql,
      ).toEqual([]);
    }
    // The filings to assemble are found in the pending rows' own index, not among every row of the source.
    const pending = touching.filter((s) => s.sql.includes('"pending" = 1'));
    expect(pending.length).toBeGreaterThan(3);
    for (const s of pending) expect(s.plan.join("\n"), s.sql).toMatch(/USING (COVERING )?INDEX source_rows_pending\b/);
  });
});
