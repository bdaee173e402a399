/**
 * The SQL of a lien report, one batch per shard (one round trip): the
 * debtors a name finds in the shard's states with their digests
 * (src/db/reports.ts), a fresh count of the states whose digests cannot
 * serve (stale, missing, or two found debtors on one filing), the oldest
 * live filing of each fresh digest, the states' currency, the shard's
 * newest change, and the page of filings, oldest first.
 *
 * Rows read follow the debtors found and the page, never their filings:
 * a digest is one row however many filings it counts, and the page takes
 * each found debtor's first `size` filings after the position from its
 * index range (a correlated subquery with a LIMIT, which SQLite runs once
 * per found debtor), then the first `size` of those in report order; a
 * name that finds one debtor reads its range alone (page).
 */
import { and, type SQL, sql } from "drizzle-orm";
import { digestSelect } from "../db/reports.ts";
import { debtorLinks, debtorNames, debtorReports, filings, stateSummaries } from "../db/schema.ts";
import { debtorQuery } from "../domain/names.ts";
import { STATE_CODES } from "../domain/states.ts";
import { type Db, frozen, type Holes, template } from "../queries/db.ts";
import {
  assemble,
  type FilingWithParties,
  filingsInList,
  idSlots,
  type PageRow,
  withParties,
} from "../queries/filings.ts";
import { type SpanForm, spanForms, spansIn, spansMatch } from "../queries/nameMatch.ts";

/** Where a report's page resumes: after the filing at this time (seconds), state and number. */
export interface ReportPosition {
  at: number;
  st: string;
  num: string;
}

/** What decides a statement's form. */
type Shape = {
  spans: SpanForm[];
  /** Every state the shard holds, rather than the listed ones. */
  national: boolean;
  after: boolean;
};

/** What a request binds. */
type Values = {
  spans: (string | number)[];
  /** The listed states, as ",CA,TX," (one bound value however many). */
  states: string;
  /** Today as days since 1970-01-01. */
  today: number;
  size: number;
  at: number;
  st: string;
  num: string;
};

/** The found debtors: debtor_names rows the name's spans find, in the listed states. */
function foundWhere(f: Shape, v: Holes<Values>): SQL {
  const spans = spansMatch(debtorNames.nameKey, spansIn(f.spans, v.spans));
  if (f.national) return spans;
  return and(sql`(${spans})`, sql`instr(${v.states}, ',' || ${debtorNames.state} || ',') > 0`) as SQL;
}

/** A digest (aliased `r`) whose live counts are today's: built on or before today, and no live filing lapsed since. */
const fresh = (v: Holes<Values>) =>
  sql`(r.name_key is not null and r.as_of <= ${v.today} and (r.lapses_next is null or r.lapses_next > ${v.today}))`;

const DIGEST = sql.raw(
  "r.as_of, r.filings, r.terminated, r.active, r.kinds, r.categories, r.lenders, r.recent, r.first_active, r.lapses_next",
);

/**
 * The found debtors with their digests (part 'found', and whether each is
 * fresh), then the states to count afresh, counted (part 'recount'): those
 * with a found debtor whose digest is not fresh, or with two found debtors
 * named on one filing (a co-debtor link between them), whose digests would
 * count it twice. Each filing once, as of today, one row per state;
 * nothing read for it otherwise. One statement, so the found debtors and
 * their digests are read once.
 */
const digests = template("reportDigests", (f: Shape, v: Holes<Values>) => {
  // Materialized: the found debtors are read once, and each later step
  // starts from them (a link is sought by its key, never scanned for).
  const ctes = sql`found as materialized (
      select ${debtorNames.nameKey} as k, ${debtorNames.state} as s, ${DIGEST}, ${fresh(v)} as fresh
      from ${debtorNames} left join ${debtorReports} r on r.name_key = ${debtorNames.nameKey} and r.state = ${debtorNames.state}
      where ${foundWhere(f, v)}
    ),
    recount as materialized (
      select s from found where not fresh
      union
      select found.s from found where exists (
        select 1 from ${debtorLinks} l where l.name_key = found.k and l.filing_state = found.s
          and l.other_key in (select o.k from found o where o.s = found.s))
    ),
    counted as materialized (select k, s from found where s in (select s from recount))`;
  return digestSelect(sql`(dp.name_key, dp.filing_state) in (select k, s from counted)`, v.today, "state", {
    ctes,
    before: sql`select 'found' as part, k, s, as_of, filings, terminated, active, kinds, categories, lenders, recent, first_active, lapses_next, fresh from found`,
  });
});

/** The oldest live filing of each fresh digest found, with its parties. */
const firsts = template(
  "reportFirsts",
  (f: Shape, v: Holes<Values>) => sql`select ${withParties(false)} from ${filings} where ${filings.id} in (
      select r.first_active from ${debtorNames} join ${debtorReports} r on r.name_key = ${debtorNames.nameKey} and r.state = ${debtorNames.state}
      where (${foundWhere(f, v)}) and ${fresh(v)} and r.first_active is not null)`,
);

/** The listed states' (or every held state's) summaries: how current each is. */
const currency = template("reportStates", (f: Shape & { listed: number }, v: Holes<Values & { list: string[] }>) => {
  const s = stateSummaries;
  // The listed states by key (each one row); every state's row for all of them.
  const listed = f.national ? sql`` : sql` and ${s.state} in (${sql.join([...v.list], sql`, `)})`;
  return sql`select ${s.state} as state, ${s.officeThrough} as office, ${s.newestFiledAt} as newest
    from ${s} where ${s.filings} > 0${listed}`;
});

/** The shard's newest change: where a changes cursor made now starts. */
const newestChange = () => frozen("reportNewestChange", () => sql`select coalesce(max(seq), 0) as seq from changes`);

/**
 * The page: the first `size` filings after the position in report order
 * (filing time, state, number), with their parties and amendments, one
 * statement whatever the name finds. Its rows come in no particular order:
 * combine.ts sorts every shard's page into report order.
 * - A name that finds one debtor (most: one name, filed in one state) reads
 *   that debtor's range straight through, already in report order: its
 *   first `size` filings after the position, a filing that names the debtor
 *   twice once (DISTINCT in the range's own order: no sort).
 * - A name that finds several takes each one's first `size` filings after
 *   the position from its range (a correlated subquery with a LIMIT, which
 *   SQLite runs once per found debtor), then the first `size` of them all.
 * Which one reads is settled by `one` (the found debtors, two at most),
 * the other reading nothing past it: the second starts from a row that is
 * there only when `one` holds two, so a name found once (or not at all)
 * reads no debtor name for it (124 rows where 128, for a name found once in
 * five million filings). For the busiest debtor of five
 * million filings the page reads 128 rows, where the second form alone
 * read 170.
 */
const page = template("reportPage", (f: Shape, v: Holes<Values>) => {
  // A debtor's index entries (d) after the position.
  const after = f.after
    ? sql` and d.filed_at >= ${v.at} and (d.filed_at > ${v.at} or d.filing_state > ${v.st} or (d.filing_state = ${v.st} and d.filing_number > ${v.num}))`
    : sql``;
  const one = sql`select ${debtorNames.nameKey} as k, ${debtorNames.state} as s from ${debtorNames} where ${foundWhere(f, v)} limit 2`;
  const ofOne = sql`select f.* from (
      select distinct d.filed_at, d.filing_number, d.filing_id from debtor_parties d
      where d.name_key = (select k from one where (select count(*) from one) = 1) and d.filing_state = (select s from one)${after}
      order by d.filed_at, d.filing_number, d.filing_id limit ${v.size}) as p
    join ${filings} f on f.id = p.filing_id`;
  const ofSeveral = sql`select distinct f.* from (select 1 where (select count(*) from one) > 1) as several
    cross join ${debtorNames} join ${filings} f on f.id in (
      select d.filing_id from debtor_parties d
      where d.name_key = ${debtorNames.nameKey} and d.filing_state = ${debtorNames.state}${after}
      order by d.filed_at, d.filing_number, d.filing_id limit ${v.size})
    where ${foundWhere(f, v)}
    order by f.filed_at, f.state, f.number, f.id limit ${v.size}`;
  // The page's filings whole, under the name "filings", so the party
  // lookups (withParties) read the page's rows rather than each filing again.
  return sql`with one as (${one})
    select ${withParties(true)} from (select * from (${ofOne}) union all select * from (${ofSeveral})) as ${filings}`;
});

/** A found debtor's digest as stored (null columns when it has none). */
export interface DigestRow {
  k: string;
  s: string;
  as_of: number | null;
  filings: number | null;
  terminated: number | null;
  active: number | null;
  kinds: string | null;
  categories: string | null;
  lenders: string | null;
  recent: string | null;
  first_active: number | null;
  lapses_next: number | null;
  fresh: number;
}

/** One shard's part of a report. */
export interface ShardReport {
  /** The debtors found, with their digests. */
  digests: DigestRow[];
  /** States counted afresh: one digest-like row each, key ''. */
  recounted: DigestRow[];
  /** The oldest live filing of each fresh digest. */
  firsts: FilingWithParties[];
  states: { state: string; office: number | null; newest: number | null }[];
  /** The shard's newest change. */
  seq: number;
  /** The shard's first `size` filings of the report's order after the position, in no order (combine.ts sorts). */
  page: FilingWithParties[];
}

/** What a report asks of each shard: the name, the states (none: every state held), the day, the page. */
export interface ReportRequest {
  name: string;
  states: string[] | undefined;
  today: string;
  size: number;
  after: ReportPosition | undefined;
}

/** The statements of a report for one shard (the same for every shard). */
export function reportStatements(q: ReportRequest) {
  const { forms, values } = spanForms(debtorQuery(q.name));
  const shape: Shape = { spans: forms, national: q.states === undefined, after: q.after !== undefined };
  const bound: Values = {
    spans: values,
    states: `,${(q.states ?? []).join(",")},`,
    today: Date.parse(`${q.today}T00:00:00Z`) / 86_400_000,
    size: q.size,
    at: q.after?.at ?? 0,
    st: q.after?.st ?? "",
    num: q.after?.num ?? "",
  };
  return {
    digests: digests(shape, bound),
    firsts: firsts(shape, bound),
    states: currency({ ...shape, listed: q.states?.length ?? 0 }, { ...bound, list: q.states ?? [] }),
    seq: newestChange(),
    page: page(shape, bound),
  };
}

export type ReportStatements = ReturnType<typeof reportStatements>;

/** A report's part of one shard, in one batch. */
export async function readShardReport(db: Db, s: ReportStatements): Promise<ShardReport> {
  const [parts, first, states, [newest], rows] = await db.batch([
    db.all<DigestRow & { part: "found" | "recount" }>(s.digests),
    db.all<PageRow>(s.firsts),
    db.all<{ state: string; office: number | null; newest: number | null }>(s.states),
    db.all<{ seq: number }>(s.seq),
    db.all<PageRow>(s.page),
  ]);
  return {
    digests: parts.filter((r) => r.part === "found"),
    recounted: parts.filter((r) => r.part === "recount"),
    firsts: assemble(first),
    states,
    seq: Number(newest?.seq ?? 0),
    page: assemble(rows),
  };
}

/** The shard's newest change alone: a shard that holds none of a report's states. */
export async function readNewestChange(db: Db): Promise<number> {
  const [[newest]] = await db.batch([db.all<{ seq: number }>(newestChange())]);
  return Number(newest?.seq ?? 0);
}

/**
 * The oldest live filings of states counted afresh (at most one a state
 * the shard holds), with their parties, in one statement of one text: from
 * a list of one bound id a state (filingsInList).
 */
const filingsById = template(
  "reportFilings",
  (_: Record<string, never>, v: Holes<{ ids: (number | null)[] }>) =>
    sql`select ${withParties(false)} from ${filingsInList(v.ids)}`,
);

/** The oldest live filings of states counted afresh (one a state), with their parties. */
export async function readFilings(db: Db, ids: number[]): Promise<FilingWithParties[]> {
  if (ids.length > STATE_CODES.length) throw new Error(`report: ${ids.length} filings sought in one shard`);
  const [rows] = await db.batch([db.all<PageRow>(filingsById({}, { ids: idSlots(ids, STATE_CODES.length) }))]);
  return assemble(rows);
}
