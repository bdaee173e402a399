/**
 * Statement templates (src/queries/db.ts, template): a fragment's SQL text
 * is rendered once per isolate for each shape, and each request's values
 * are bound into it. So a statement built from the cache must be exactly
 * the one a fresh isolate renders for the same request: text and values.
 * If a shape left out something that changes the text (a filter present or
 * not, a middle-name rule, a count of values), a request would reuse
 * another's text, and these tests fail.
 */
import { sql } from "drizzle-orm";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { facetCounts, filings } from "../../src/db/schema.ts";
import { INDUSTRIES } from "../../src/domain/industries.ts";
import type { Holes } from "../../src/queries/db.ts";

const dialect = new SQLiteAsyncDialect({ casing: "snake_case" });

/** The queries and their templates as a new isolate has them: nothing rendered yet. */
async function freshIsolate() {
  vi.resetModules();
  return {
    db: await import("../../src/queries/db.ts"),
    filings: await import("../../src/queries/filings.ts"),
    debtors: await import("../../src/queries/debtors.ts"),
    similar: await import("../../src/queries/similar.ts"),
  };
}

type Filters = Awaited<ReturnType<typeof freshIsolate>>["filings"];
/** A filter's statements as sent: each index range and the count. */
type Build = (f: Filters) => { arms: unknown[]; count?: unknown };

const rendered = (filter: ReturnType<Build>) =>
  [...filter.arms, ...(typeof filter.count === "object" ? [filter.count] : [])].map((s) =>
    dialect.sqlToQuery(s as ReturnType<typeof sql>),
  );

/** `second` built right after `first` (so from its shape's cache when they share one) and in a fresh isolate. */
async function cachedAndFresh(first: Build, second: Build) {
  const warm = await freshIsolate();
  first(warm.filings);
  const cached = rendered(second(warm.filings));
  const fresh = rendered(second((await freshIsolate()).filings));
  return { cached, fresh };
}

const WORD = fc.constantFrom("j", "a", "smith", "jones", "mary", "allen", "de", "la", "jr", "inc", "&", "acme");
const NAME = fc
  .tuple(fc.array(WORD, { minLength: 1, maxLength: 5 }), fc.nat({ max: 5 }))
  .map(([words, comma]) => [...words.slice(0, comma), comma > 0 ? "," : "", ...words.slice(comma)].join(" "));
const AFTER = fc.option(
  fc.record({ at: fc.nat(), num: fc.string({ maxLength: 8 }), fid: fc.option(fc.nat(), { nil: undefined }) }),
  { nil: undefined },
);
const INDUSTRY_LIST = fc.subarray([...INDUSTRIES]);
const SINCE = fc.constantFrom("2026-08-27T00:00:00Z", "2026-01-02T03:04:05Z");

describe("statement templates", () => {
  it("render a shape once and bind each request's values in order", async () => {
    const { db } = await freshIsolate();
    let builds = 0;
    const byState = db.template("test:byState", (f: { since: boolean }, v: Holes<{ state: string; since: number }>) => {
      builds += 1;
      return sql`select 1 from ${filings} where ${filings.state} = ${v.state}${f.since ? sql` and ${filings.filedAt} >= ${v.since}` : sql``}`;
    });
    const ca = dialect.sqlToQuery(byState({ since: true }, { state: "CA", since: 10 }));
    const tx = dialect.sqlToQuery(byState({ since: true }, { state: "TX", since: 20 }));
    expect(builds).toBe(1);
    expect(tx).toEqual({ ...ca, params: ["TX", 20], typings: ["none", "none"] });
    expect(tx.sql).toBe('select 1 from "filings" where "filings"."state" = ? and "filings"."filed_at" >= ?');
    byState({ since: false }, { state: "CA", since: 0 });
    expect(builds).toBe(2);
  });

  it("render a list of each length once, its values bound in order", async () => {
    const { db } = await freshIsolate();
    const inSet = db.template(
      "test:inSet",
      (_: Record<string, never>, v: Holes<{ facets: string[] }>) =>
        sql`select 1 from ${facetCounts} where ${facetCounts.facet} in (${sql.join([...v.facets], sql`, `)})`,
    );
    expect(dialect.sqlToQuery(inSet({}, { facets: ["a", "b"] })).params).toEqual(["a", "b"]);
    const three = dialect.sqlToQuery(inSet({}, { facets: ["c", "d", "e"] }));
    expect(three.sql).toBe('select 1 from "facet_counts" where "facet_counts"."facet" in (?, ?, ?)');
    expect(three.params).toEqual(["c", "d", "e"]);
  });

  it("refuse a ? written into the text, which would bind nothing", async () => {
    const { db } = await freshIsolate();
    const literal = db.template("test:literal", () => sql`select '?'`);
    expect(() => literal({}, {})).toThrow(/binds nothing/);
  });

  it("give a debtor search from the cache what a fresh isolate renders, for any two names", async () => {
    await fc.assert(
      fc.asyncProperty(NAME, NAME, AFTER, async (a, b, after) => {
        const { cached, fresh } = await cachedAndFresh(
          (f) => f.byDebtorName({ name: a, state: "CA" }),
          (f) => f.byDebtorName({ name: b, state: "TX", after }),
        );
        expect(cached).toEqual(fresh);
      }),
      { numRuns: 150 },
    );
  });

  it("give known-address statements from the cache what a fresh isolate renders, for any two names", async () => {
    const position = fc.option(fc.record({ at: fc.nat(), address: fc.nat() }), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(NAME, NAME, position, position, async (a, b, first, second) => {
        const statementsOf = (
          isolate: Awaited<ReturnType<typeof freshIsolate>>,
          name: string,
          after?: typeof first,
        ) => {
          const { sets, rows } = isolate.debtors.addressStatements(name, 15, after);
          return [sets, rows].map((s) => dialect.sqlToQuery(s));
        };
        const warm = await freshIsolate();
        statementsOf(warm, a, first);
        expect(statementsOf(warm, b, second)).toEqual(statementsOf(await freshIsolate(), b, second));
      }),
      { numRuns: 100 },
    );
  });

  it("give similar names' probes from the cache what a fresh isolate renders, for any two names and states", async () => {
    const STATE = fc.option(fc.constantFrom("CA", "TX", "NY"), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(NAME, NAME, STATE, STATE, async (a, b, first, second) => {
        const statementOf = (isolate: Awaited<ReturnType<typeof freshIsolate>>, name: string, state?: string) =>
          dialect.sqlToQuery(isolate.similar.probeStatement(isolate.similar.similarQuery({ name, state })));
        const warm = await freshIsolate();
        statementOf(warm, a, first);
        expect(statementOf(warm, b, second)).toEqual(statementOf(await freshIsolate(), b, second));
      }),
      { numRuns: 100 },
    );
  });

  it("give recent-by-state, postal code and recently-terminated lists from the cache what a fresh isolate renders", async () => {
    await fc.assert(
      fc.asyncProperty(INDUSTRY_LIST, INDUSTRY_LIST, AFTER, SINCE, async (first, second, after, since) => {
        const lists: [Build, Build][] = [
          [
            (f) => f.recentByState({ state: "CA", since, industries: first }),
            (f) => f.recentByState({ state: "NY", since, industries: second, after }),
          ],
          [
            (f) => f.recentByPostalCode({ zip5: "94107", since, industries: first }),
            (f) => f.recentByPostalCode({ zip5: "10001", since, industries: second, after }),
          ],
          [
            (f) => f.recentlyTerminated({ state: "CA", since }),
            (f) => f.recentlyTerminated({ state: "OH", since, after }),
          ],
          [(f) => f.byNumber({ number: "A1", state: "CA" }), (f) => f.byNumber({ number: "B2", after })],
        ];
        for (const [one, two] of lists) {
          const { cached, fresh } = await cachedAndFresh(one, two);
          expect(cached).toEqual(fresh);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("give a lender count from the cache what a fresh isolate renders", async () => {
    const borrower = fc.option(fc.constantFrom("Individual" as const, "Organization" as const), { nil: undefined });
    await fc.assert(
      fc.asyncProperty(borrower, borrower, async (x, y) => {
        const lender = (borrowerType: typeof x, name: string) => (f: Filters) => ({
          arms: [],
          count: f.lenderCount({ name, state: "CA", since: "2026-08-27T00:00:00Z", borrowerType }),
        });
        const { cached, fresh } = await cachedAndFresh(lender(x, "wells fargo"), lender(y, "first test bank"));
        expect(cached).toEqual(fresh);
      }),
      { numRuns: 20 },
    );
  });

  it("send a page of rendered parts as the text and values Drizzle renders for it, at any depth", async () => {
    const window = fc
      .record({ page: fc.integer({ min: 1, max: 2000 }), size: fc.constantFrom(1, 25, 50) })
      .map(({ page, size }) => ({ page, size, offset: (page - 1) * size }));
    await fc.assert(
      fc.asyncProperty(NAME, INDUSTRY_LIST, AFTER, SINCE, window, async (name, industries, after, since, at) => {
        const { db, filings: f } = await freshIsolate();
        const counted = [
          f.recentByState({ state: "CA", since, industries, after }),
          f.recentByPostalCode({ zip5: "94107", since, industries, after }),
          f.recentlyTerminated({ state: "OH", since, after }),
          f.byDebtorName({ name, state: "TX", after }),
        ];
        const open = [...counted, f.byNumber({ number: "B2", after })];
        const statements = [
          ...counted.map((filter) => f.countedStatements(filter, at)),
          ...open.map((filter) => f.openStatements(filter, at, true)),
        ];
        for (const { rows, count } of statements) {
          for (const statement of [rows, ...(typeof count === "object" ? [count] : [])]) {
            const walks = vi.spyOn(SQLiteAsyncDialect.prototype, "sqlToQuery");
            const direct = db.textOf(statement);
            // Joined directly: Drizzle did not walk it.
            expect(walks).not.toHaveBeenCalled();
            walks.mockRestore();
            const drizzle = dialect.sqlToQuery(statement);
            expect({ text: direct.text, values: [...direct.values] }).toEqual({
              text: drizzle.sql,
              values: drizzle.params,
            });
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("leave to Drizzle a fragment with a column, a placeholder or inlined values, rendered parts in it or not", async () => {
    const { db } = await freshIsolate();
    const part = db.rendered(sql`select ${5} as five`);
    // Sending reads its text and values: its chunks are made only for a walk, below.
    expect(part.chunks).toBeUndefined();
    for (const fragment of [
      sql`select ${filings.state} from ${filings} where ${filings.id} = ${7}`,
      sql`select 1 where 2 = ${sql.placeholder("two")}`,
      sql`select ${3}`.inlineParams(),
      sql`select * from (${sql`${part}`}) where ${sql`b = ${4}`}`.inlineParams(),
      sql`select * from (${part}) limit ${sql`${2}`}`,
    ]) {
      const drizzle = dialect.sqlToQuery(fragment);
      expect(db.textOf(fragment)).toEqual({ text: drizzle.sql, values: drizzle.params });
    }
  });

  it("refuse to write a rendered statement's values into its text, which it sends as rendered", async () => {
    const { db } = await freshIsolate();
    expect(() => db.rendered(sql`select ${5}`).inlineParams()).toThrow(/binds its values/);
  });
});
