/**
 * Fragments that are the same on every request (a page's select list and
 * party lookups) are rendered to SQL text once per isolate
 * (src/queries/db.ts, frozen); only fragments without bound values can be.
 */
import { sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { filings } from "../../src/db/schema.ts";
import { frozen } from "../../src/queries/db.ts";

describe("frozen SQL fragments", () => {
  it("are built once and then reused as the same text", () => {
    let builds = 0;
    const build = () => {
      builds += 1;
      return sql`${filings.filedAt} as at`;
    };
    const first = frozen("test:reused", build);
    const again = frozen("test:reused", build);
    expect(builds).toBe(1);
    expect(again).toBe(first);
    expect(first.queryChunks).toHaveLength(1);
  });

  it("render columns by their database names, as a query in place would", () => {
    const columns = frozen("test:columns", () => sql`${filings.filedAt}, ${filings.terminatedAt}`);
    const dialect = new SQLiteAsyncDialect({ casing: "snake_case" });
    const inPlace = dialect.sqlToQuery(sql`select ${filings.filedAt}, ${filings.terminatedAt} from ${filings}`);
    expect(dialect.sqlToQuery(sql`select ${columns} from ${filings}`)).toEqual(inPlace);
    expect(inPlace.sql).toBe('select "filings"."filed_at", "filings"."terminated_at" from "filings"');
  });

  it("refuse a fragment that would bind a value, which text shared by every request cannot hold", () => {
    expect(() => frozen("test:bound", () => sql`${filings.state} = ${"CA"}`)).toThrow(/binds values/);
  });
});
