/**
 * The SQL of a lien report, one batch per shard (one round trip): the
 * debtors a name finds in the shard's states with their digests
 * (src/db/reports.ts), a fresh count of the found debtors whose digests
 * cannot serve (stale, missing, or sharing a filing with another found
 * debtor), the oldest live filing of the fresh digests, the states'
 * currency, the shard's newest change, and the page of filings, oldest
 * first.
 *
 * Rows read follow the debtors found and the page, not their filings
 * (but for those counted afresh): a digest is one row however many filings
 * it counts, and the page reads one debtor's index range straight through,
 * or several debtors' ranges by whichever of two ways reads fewer rows
 * (page).
 */
import { and, type SQL, sql } from "drizzle-orm";
import { digestSelect, KEY_TIME_OFFSET, reportOrderKey } from "../db/reports.ts";
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
  partiesObject,
  walkedDebtor,
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

/**
 * The co-debtor links of the found debtor in hand (`found`, a CTE of the
 * statement) to keys the name's spans take: a found co-debtor's key is one,
 * so a row for each link to a found debtor and none for the others.
 */
const linksToFound = (f: Shape, v: Holes<Values>) =>
  spansMatch(
    debtorLinks.otherKey,
    spansIn(f.spans, v.spans),
    sql`${debtorLinks.nameKey} = found.k and ${debtorLinks.filingState} = found.s`,
  );

/**
 * Whether two of the found debtors (`found`: k, s) share a state, an
 * aggregate over them: only then can two share a filing (a filing has one
 * state), and only then are their co-debtor links sought.
 */
const SHARE_A_STATE = sql.raw("count(*) > count(distinct s)");

/** A digest (aliased `r`) whose live counts are today's: built on or before today, and no live filing's lapse date ended since. */
const fresh = (v: Holes<Values>) =>
  sql`(r.name_key is not null and r.as_of <= ${v.today} and (r.lapses_next is null or r.lapses_next >= ${v.today}))`;

const DIGEST = sql.raw(
  "r.as_of, r.filings, r.terminated, r.active, r.kinds, r.categories, r.lenders, r.recent, r.first_active, r.lapses_next, r.first_active_at",
);

/**
 * A fresh digest's oldest live filing as one integer that sorts in report
 * order among found debtors of different states: its filing time (seconds,
 * stored on the digest), then its state's two letters (a code point each,
 * as text compares them). Null for a stale digest, or one without a time.
 */
const firstKey = (x: string) =>
  sql.raw(
    `case when ${x}.fresh then ${x}.first_active_at * 65536 + unicode(${x}.s) * 256 + unicode(substr(${x}.s, 2)) end`,
  );

/**
 * The found debtors with their digests (part 'found'), then the fresh count
 * of those whose digests cannot simply be added (part 'recount', one row
 * per state): a debtor whose digest is not fresh, or one named on a filing
 * with another found debtor (a co-debtor link between them), whose digests
 * would count that filing twice. Links are kept both ways, so both debtors
 * of a shared filing are counted afresh together, each filing once; the
 * other found debtors' digests add (`adds`). One statement, so the found
 * debtors and their digests are read once.
 *
 * A co-debtor who is found has a key the name's spans take, so a found
 * debtor's links are sought within those spans only (its link keys are
 * ordered by co-debtor): a row for each link to a found debtor, none for
 * the others (a seek that finds none costs a row, hence none unless two
 * found debtors share a state: a filing has one state, so debtors of
 * different states, one name filed in many, never share one; telling costs
 * a row a found debtor, once). A name that finds 162 debtors (J Smith) read
 * 53,631 rows here when every found debtor scanned the found list for each
 * of its links; it reads 1,305 in all.
 *
 * Each pass over the materialized found debtors is a row read for each of
 * them. Whether any digest is stale and whether two found debtors share a
 * state are read in one pass (`flags`). Unless two share a state, a found
 * row tells whether its digest adds from its own freshness, where seeking
 * it in the list of those counted afresh cost three rows a debtor; and the
 * recount, with the pass that lists them, is read only when one of the two
 * holds.
 */
const digests = template("reportDigests", (f: Shape, v: Holes<Values>) => {
  const linked = linksToFound(f, v);
  // Materialized: the found debtors are read once, and each later step starts from them.
  const ctes = sql`found as materialized (
      select ${debtorNames.nameKey} as k, ${debtorNames.state} as s, ${DIGEST}, ${fresh(v)} as fresh
      from ${debtorNames} left join ${debtorReports} r on r.name_key = ${debtorNames.nameKey} and r.state = ${debtorNames.state}
      where ${foundWhere(f, v)}
    ),
    flags as materialized (select sum(not fresh) > 0 as stale, ${SHARE_A_STATE} as shares,
      sum(fresh and first_active is not null and first_active_at is null) > 0 as untimed,
      min(${firstKey("found")}) as first_key, first_active as first_id from found),
    counted as materialized (
      select k, s from found where not fresh
        or ((select shares from flags) and exists (select 1 from ${debtorLinks} where ${linked}))
    )`;
  // The oldest live filing (report order) among the fresh digests' oldest,
  // with its parties, as one JSON object (partiesObject): one filing read
  // whole however many debtors are found. Its id is taken in `flags`' pass
  // (SQLite reads a bare column from min()'s row) when no two found debtors
  // share a state and every fresh digest has its time. Else the found
  // debtors are passed over again and the oldest read of those that may be
  // first (the least key, or no time): a row each, for its number.
  const first = sql`select 'first' as part, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
      (select ${partiesObject()} from ${filings} where ${filings.id} = case when (select shares or untimed from flags) then (
        select o.id from found x cross join ${filings} o on o.id = x.first_active
        where x.fresh and (x.first_active_at is null or ${firstKey("x")} = (select first_key from flags))
        order by o.filed_at, o.state, o.number limit 1) else (select case when first_key is not null then first_id end from flags) end) as filing`;
  return digestSelect(sql`(dp.name_key, dp.filing_state) in (select k, s from counted)`, v.today, "state", {
    ctes,
    before: sql`select 'found' as part, k, s, as_of, filings, terminated, active, kinds, categories, lenders, recent, first_active, lapses_next, first_active_at,
      (fresh and not ((select shares from flags) and (k, s) in (select k, s from counted))) as adds, null as filing
      from found union all ${first}`,
    recountIf: sql`(select stale or shares from flags)`,
  });
});

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

/** A debtor's index entries (d) after the position, if any: report order is filing time, state, number. */
const after = (f: Shape, v: Holes<Values>) =>
  f.after
    ? sql`d.filed_at >= ${v.at} and (d.filed_at > ${v.at} or d.filing_state > ${v.st} or (d.filing_state = ${v.st} and d.filing_number > ${v.num}))`
    : sql`1`;

/**
 * Which way a page of several found debtors reads fewer rows (page, `form`),
 * as fitted to 116 shard pages of names that find two debtors or more, at
 * one and five million filings (docs/api/lien-report.md): taking each
 * debtor's first filings reads about 4 rows a filing taken plus 3 a debtor
 * and 60; merging their ranges about 6 a debtor and 150, however many
 * filings. The lists when 3 × filings taken ≤ 4 × debtors + 2 × page: the
 * cheaper form on 112 of the 116, the others within 15 rows.
 */
const LISTS_WHEN = { taken: 3, debtors: 4, page: 2 } as const;

/**
 * An index entry of debtor_parties (`d`) as one text that sorts as the
 * report orders filings (reportOrderKey, with its state). keyAt, keyNumber
 * and keyId read its parts back. A merged
 * entry carries its debtor's party row after its key (keyWalked), which the
 * seek has in hand: a filing on which that debtor comes first does not look
 * it up again (the "walked" reading, as for one debtor's page).
 */
const MERGE_KEY = sql.raw(reportOrderKey("d.filed_at", "d.filing_number", "d.filing_id", "d.filing_state"));
const keyAt = (key: string) => sql.raw(`(cast(substr(${key}, 1, 11) as integer) - ${KEY_TIME_OFFSET})`);
const keyNumber = (key: string) => sql.raw(`substr(${key}, 14, instr(${key}, char(1)) - 14)`);
const keyId = (key: string) => sql.raw(`cast(substr(${key}, instr(${key}, char(1)) + 1, 10) as integer)`);
/** The debtor's party row an entry carries after its key (walkedDebtor): the page's "walked" reading. */
const keyWalked = (key: string) => sql.raw(`substr(${key}, instr(${key}, char(1)) + 11)`);

/**
 * The page: the first `size` filings after the position in report order
 * (filing time, state, number), with their parties and amendments, one
 * statement whatever the name finds. Its rows come in no particular order:
 * combine.ts sorts every shard's page into report order. The debtors the
 * name finds (`found`, with their filing counts) settle which of three
 * forms reads (`form`), the others reading nothing past their guard:
 * 1. One debtor (most: one name, filed in one state): its range straight
 *    through, already in report order, a filing that names the debtor twice
 *    once (grouped in the range's own order: no sort). The walk reads the
 *    debtor's own party row with its index entry, at no cost in rows read,
 *    so a filing with the debtor first does not look it up again (the
 *    "walked" reading). For the busiest debtor of five million filings the
 *    page reads 99 rows (126 when it looked the debtor up again).
 * 2. Several (`lists`): each one's first `size` filings after the position
 *    from its range (a correlated subquery with a LIMIT, once per debtor),
 *    then the first `size` of them all.
 * 3. Several with many filings between them (`merged`): their ranges merged
 *    by a recursive query whose queue, ordered, holds each found debtor's
 *    next index entry; each step takes the first of all and queues that
 *    debtor's next, however many filings each has. A filing that names two
 *    found debtors is taken from the range of the one with the lesser key:
 *    an entry reads its filing's other debtors for that only when its
 *    debtor has a co-debtor link to another found debtor (`flagged`). An
 *    entry is one seek, its filing time, state, number and id one text
 *    (MERGE_KEY), where it was sought and then read again (a row each):
 *    over 43 debtors found on one shard, 520 rows to 341. It carries its
 *    debtor's party row (keyWalked), read with the entry's seek.
 * Which reads fewer rows is settled from the found debtors' filing counts
 * (LISTS_WHEN): for the 162 debtors "J Smith" finds in five million filings
 * the page read 2,248 rows by the merge (its choice included), 1,897 since
 * only linked debtors' entries are checked, where the lists read 10,090;
 * for the 28 it finds in Texas at one million, 524 by the lists where the
 * merge read 670.
 */
const page = template("reportPage", (f: Shape, v: Holes<Values>) => {
  const form = (n: 1 | 2 | 3) => sql.raw(`(select form from shape) = ${n}`);
  // A filing once, with the debtor's party at its least position on it as
  // the walk read it (walkedDebtor; SQLite takes a bare column from min()'s row).
  // The one found debtor's key is `shape`'s own (its least of one): the row
  // the form is read from, not found's again.
  const ofOne = sql`select f.*, p.walked from (
      select d.filed_at, d.filing_number, d.filing_id, min(d.position), ${walkedDebtor("d")} as walked from debtor_parties d
      where (d.name_key, d.filing_state) = (select k, s from shape where form = 1) and ${after(f, v)}
      group by d.filed_at, d.filing_number, d.filing_id
      order by d.filed_at, d.filing_number, d.filing_id limit ${v.size}) as p
    join ${filings} f on f.id = p.filing_id`;
  const lists = sql`select distinct f.*, null as walked from (select 1 where ${form(2)}) as lists
    cross join found x cross join ${filings} f on f.id in (
      select d.filing_id from debtor_parties d
      where d.name_key = x.k and d.filing_state = x.s and ${after(f, v)}
      order by d.filed_at, d.filing_number, d.filing_id limit ${v.size})
    order by f.filed_at, f.state, f.number, f.id limit ${v.size}`;
  // Debtor k's first index entry in state s from `from` on whose filing names no found debtor of a lesser key
  // (sought only for a debtor `linked` to another found debtor: a co-debtor on some filing, which alone can
  // share one), as one text that sorts in report order (MERGE_KEY): one seek, its values read back from it.
  const entry = (k: string, s: string, linked: string, from: SQL) => sql`(
      select ${MERGE_KEY} || ${walkedDebtor("d")} from debtor_parties d
      where d.name_key = ${sql.raw(k)} and d.filing_state = ${sql.raw(s)} and ${from} and (not ${sql.raw(linked)} or not exists (
        select 1 from debtor_parties o where o.filing_id = d.filing_id and o.name_key < d.name_key
          and (o.name_key, o.filing_state) in (select k, s from found)))
      order by d.filed_at, d.filing_number, d.filing_id limit 1)`;
  // Whether each found debtor is linked to a found debtor (links are kept both ways, and a found
  // co-debtor's key is one the name's spans take: a row for each such link, as the digests seek them).
  // No link is sought when no two found debtors share a state (`shares`): a filing has one state, so
  // debtors of different states (one name filed in many) never share one. The LIMITs keep SQLite
  // from flattening the subqueries: flattened, each first entry was sought again where it is tested
  // (384 rows where 341 on the busiest shard of a name filed in every state).
  const linked = linksToFound(f, v);
  const flagged = sql`select found.k, found.s, (select shares from shape) and exists (select 1 from ${debtorLinks} where ${linked}) as l
      from (select 1 where ${form(3)}) as merge cross join found limit -1`;
  // A debtor whose range is spent queues a null entry, which sorts first and ends its walk. The walk
  // has no LIMIT of its own (nulls would count): SQLite runs it as the page takes its entries, and
  // stops at the page's `size` (ofMerged), as test/bounded-work.test.ts holds it.
  const merged = sql`merged(k, s, e, l) as (
      select k, s, e, l from (select x.k, x.s, ${entry("x.k", "x.s", "x.l", after(f, v))} as e, x.l from (${flagged}) as x limit -1)
        where e is not null
      union all
      select m.k, m.s, ${entry("m.k", "m.s", "m.l", sql`(d.filed_at, d.filing_number, d.filing_id) > (${keyAt("m.e")}, ${keyNumber("m.e")}, ${keyId("m.e")})`)}, m.l
      from merged m where m.e is not null
      order by 3)`;
  // CROSS JOIN keeps the merged entries outside, in queue order: the planner may otherwise scan
  // filings for them. The walk runs only as far as the page takes.
  const ofMerged = sql`select f.*, ${keyWalked("merged.e")} as walked from merged cross join ${filings} f on f.id = ${keyId("merged.e")}
      where merged.e is not null limit ${v.size}`;
  // The page's filings whole, under the name "filings", so the party
  // lookups (withParties) read the page's rows rather than each filing again.
  // A DISTINCT term keeps SQLite from copying withParties into each term
  // (each copy cost 0.12 ms a statement, read or not).
  // Over every state the found debtors are read from the name index each time (a row each, as a
  // pass over a materialized list also costs): the list's making, a row each more, is spared (555
  // to 515 rows on the busiest shard of a name filed in every state at 1M). Over listed states the
  // index holds the names' other states too, and the list is made once.
  return sql`with recursive found as ${f.national ? sql`not materialized` : sql`materialized`} (
      select ${debtorNames.nameKey} as k, ${debtorNames.state} as s, ${debtorNames.filingCount} as c
      from ${debtorNames} where ${foundWhere(f, v)}),
    shape as materialized (select case when count(*) = 0 then 0 when count(*) = 1 then 1
      when ${sql.raw(String(LISTS_WHEN.taken))} * total(min(c, ${v.size})) <= ${sql.raw(String(LISTS_WHEN.debtors))} * count(*) + ${sql.raw(String(LISTS_WHEN.page))} * ${v.size} then 2
      else 3 end as form, ${SHARE_A_STATE} as shares, min(k) as k, min(s) as s from found),
    ${merged}
    select ${withParties(true, undefined, "walked")} from (
      select * from (${ofOne}) union all select * from (${lists}) union all select distinct * from (${ofMerged})) as ${filings}`;
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
  /** The filing time of first_active (seconds; null on a digest built before migration 0036). */
  first_active_at: number | null;
  /** Whether its digest adds to its state's count (else the state's fresh count holds its filings). */
  adds: number;
}

/** One shard's part of a report. */
export interface ShardReport {
  /** The debtors found, with their digests. */
  digests: DigestRow[];
  /** States counted afresh: one digest-like row each, key ''. */
  recounted: DigestRow[];
  /** The oldest live filing of the fresh digests (none or one). */
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
    states: currency({ ...shape, listed: q.states?.length ?? 0 }, { ...bound, list: q.states ?? [] }),
    seq: newestChange(),
    page: page(shape, bound),
  };
}

export type ReportStatements = ReturnType<typeof reportStatements>;

/** A report's part of one shard, in one batch. */
export async function readShardReport(db: Db, s: ReportStatements): Promise<ShardReport> {
  const [parts, states, [newest], rows] = await db.batch([
    db.all<DigestRow & { part: "found" | "recount" | "first"; filing: string | null }>(s.digests),
    db.all<{ state: string; office: number | null; newest: number | null }>(s.states),
    db.all<{ seq: number }>(s.seq),
    db.all<PageRow>(s.page),
  ]);
  return {
    digests: parts.filter((r) => r.part === "found"),
    recounted: parts.filter((r) => r.part === "recount"),
    firsts: assemble(parts.flatMap((r) => (r.part === "first" && r.filing ? [JSON.parse(r.filing) as PageRow] : []))),
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
