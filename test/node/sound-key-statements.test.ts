/**
 * The loader writes a load's sound keys (src/db/soundKeys.ts) as a few
 * statements, each carrying its keys in one JSON parameter of bounded size,
 * whatever the length of the names.
 */
import { type AnyD1Database, drizzle } from "drizzle-orm/d1";
import { describe, expect, it } from "vitest";
import type { SoundKeyRow } from "../../src/db/records.ts";
import * as schema from "../../src/db/schema.ts";
import { soundKeyStatements } from "../../src/db/soundKeys.ts";

const builder = drizzle({} as AnyD1Database, { schema, casing: "snake_case" });

describe("sound key statements", () => {
  it("split the keys into JSON parameters of at most 50 KB, losing none", () => {
    const rows: SoundKeyRow[] = Array.from({ length: 3000 }, (_, i) => ({
      key: i,
      state: "CA",
      nameKey: `${"x".repeat(i % 7 === 0 ? 1000 : 20)}${i}`,
    }));
    const statements = soundKeyStatements(builder, rows);
    expect(statements.length).toBeGreaterThan(1);
    const entries = statements.flatMap((s) => {
      const { params } = s.toSQL();
      const json = params.find((p): p is string => typeof p === "string" && p.startsWith("["))!;
      expect(json.length).toBeLessThanOrEqual(50_000);
      expect(params.length).toBeLessThanOrEqual(100);
      return JSON.parse(json) as [number, number, string, string][];
    });
    expect(entries.map((e) => e[2])).toEqual(rows.map((r) => r.nameKey));
  });
});
