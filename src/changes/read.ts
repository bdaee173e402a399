/**
 * Reading the change feed (GET /filings/changes) on one shard: the changes
 * after a position, oldest first, with each change's filing as it stands
 * now, in one D1 batch. src/changes/feed.ts merges the shards.
 *
 * A position is a seq: the last change a client has seen on that shard.
 * A page reads its changes, their filings and parties, whatever the size
 * of the log:
 * - no filter, or a state: changes (seq) or changes_state;
 * - types: one ordered range per type (changes_type, changes_state_type),
 *   merged (at most 5 terms per compound SELECT, nested beyond);
 * - debtor_name, secured_party: the name index (schema.ts, changeNames),
 *   one ordered range per key of the name (src/db/nameIndex.ts), merged. A
 *   key is coarser than the name rule (an individual's last name and first
 *   initial, a lender's first two words), so a page examines at most
 *   SCAN_PER_CHANGE index entries per change asked for (SCAN_WINDOW at
 *   most), in order, and keeps those whose change is of the state and types
 *   asked for and whose filing names a matching party (the filing's own
 *   rows, by primary key) or whose change took one off it (its row's
 *   removed_parties, src/db/changeRows.ts). The position then moves past every entry
 *   examined, so a walk always advances and never skips; a page may hold
 *   fewer changes than `limit` with `has_more` true. Work per page grows
 *   with the page, not with the log or with how busy the debtor or lender
 *   is.
 *
 * A page of several shards without a party filter is read in two parts
 * (src/changes/feed.ts): each shard's next changes without their filings,
 * then, from the shards whose changes the merged page holds, exactly those
 * changes' filings, one row each.
 */
import { and, eq, gt, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { MAX_COMPOUND } from "../db/database.ts";
import { debtorNameKeys, NAME_SLOTS_SQL, securedNameKey } from "../db/nameIndex.ts";
import {
  changeMarks,
  changeNames,
  changes,
  dataLoads,
  debtorParties,
  lenderNames,
  securedParties,
  stateLoads,
} from "../db/schema.ts";
import { CHANGE_TYPES, type ChangeType } from "../domain/kinds.ts";
import { MAX_CHANGES_LIMIT } from "../domain/limits.ts";
import { debtorQuery, securedNameRange } from "../domain/names.ts";
import { type Db, type Holes, template } from "../queries/db.ts";
import {
  assembleListed,
  filingsInList,
  idSlots,
  type ListedFilingWithParties,
  type PageRow,
  withParties,
} from "../queries/filings.ts";
import { type SpanForm, spanForms, spansIn, spansMatch } from "../queries/nameMatch.ts";

/** Name-index entries a page filtered by a party examines per change it may hold, and at most. */
const SCAN_PER_CHANGE = 2;
const SCAN_WINDOW = 1_000;

/**
 * Whole-word lender names under a lender filter below which a page lists
 * their ids once rather than reading each examined filing's lender names
 * (about two rows a change examined fewer, for a list of this many rows).
 */
const FEW_LENDER_NAMES = sql.raw("64");

export interface ChangeFilter {
  state?: string | undefined;
  types?: ChangeType[] | undefined;
  debtorName?: string | undefined;
  securedParty?: string | undefined;
}

/** Where a shard's part of the page starts. */
export type Start = { after: number } | { since: string } | "oldest";

/** Where a change stands in the merged feed: its shard's seq and when it was recorded. */
export interface ChangeKey {
  seq: number;
  recordedAt: string;
}

/** One change as read without its filing: the first part of a page merged over several shards. */
export interface ChangeHead extends ChangeKey {
  type: ChangeType;
  state: string;
  amendment: string | null;
  changedFields: string | null;
  occurredAt: string;
  filingId: number;
  /** The parties the change took off its filing, as stored (changes.removed_parties; src/db/changeRows.ts, readRemoved). */
  removedParties: string | null;
}

/** One change as read, with its filing as it stands now. */
export interface ChangeItem extends Omit<ChangeHead, "filingId"> {
  filing: ListedFilingWithParties;
  /** The part of a split state whose database recorded it (`CA/2`): see changeId. */
  part?: string;
}

/**
 * The part (`CA/2`) of the split state `state` that `shard` holds, or
 * undefined for a state held whole (`partsOf`: the layout's shards of a
 * state, in part order).
 */
export function partOf(
  state: string,
  shard: string,
  partsOf?: (state: string) => readonly string[],
): string | undefined {
  const parts = partsOf?.(state) ?? [];
  const at = parts.indexOf(shard);
  return parts.length > 1 && at >= 0 ? `${state}/${at + 1}` : undefined;
}

/**
 * A change's id (the feed's `id`, and a webhook's): its state and seq
 * (`CA-10423`), unique since one database numbers a state's changes. The
 * parts of a split state are numbered by their own databases, each from 1,
 * so a part's changes are named by the part (`CA/2-17`).
 */
export const changeId = (change: { state: string; seq: number; part?: string }) =>
  `${change.part ?? change.state}-${change.seq}`;

/** A shard's part of a page: its changes (or only their heads: shardChangeHeads), and where it stands. */
export interface ShardChanges<T extends ChangeKey = ChangeItem> {
  /**
   * The changes after the start, in seq order: up to `limit`, or `limit` +
   * 1 (the one past the page) as heads or with a party filter.
   */
  items: T[];
  /** Of a page whole without a party filter: whether changes follow its items. */
  more?: boolean;
  /** The position the page started from (the start resolved). */
  start: number;
  /** With a party filter: the last change examined, and whether the window was full. */
  examined?: { through: number | null; full: boolean };
  /** The newest change retention deleted on this shard: a position before it has lost changes. */
  purged: number;
  /** When the data read was last loaded (the state's, with a state). */
  dataLoadedAt: string | null;
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** A page's form (its template's shape) and values, from the filter, start and size of a request. */
type ChangeForm = {
  state: boolean;
  /** How many types the filter names (none: every type). */
  types: number;
  start: "oldest" | "after" | "since";
  /** The debtor name's spans (nameMatch.ts), or none. */
  debtor: SpanForm[] | null;
  secured: boolean;
  /** Whether a party is asked for: the window is then the name index's, and what it examined is read. */
  scanning: boolean;
  /**
   * What is read: the page (without a party, with the filter's newest
   * change) and its start, purge mark and data-load time (`whole`); or the
   * window's changes without their filings, with those marks (`heads`: the
   * first part of a page merged over several shards).
   */
  part: "whole" | "heads";
};

type ChangeValues = {
  state: string;
  types: number[];
  /** The position (after) or time (since, in seconds) the page starts from. */
  after: number;
  since: number;
  /** Changes the window reads, and changes the page keeps (`limit`, or `limit` + 1: shardChanges). */
  size: number;
  keep: number;
  spans: (string | number)[];
  from: string;
  to: string;
  /** The name index keys the window reads (a party filter's). */
  keys: number[];
};

/** The newest change retention deleted (0: none), as an SQL expression. */
const purgedMark = () =>
  sql`coalesce((select ${changeMarks.purgedThrough} from ${changeMarks} where ${changeMarks.id} = 1), 0)`;

/** The position a start names, as an SQL expression over the shard's log. */
function startOf(form: ChangeForm, v: Holes<ChangeValues>): SQL {
  const purged = purgedMark();
  // Every change kept is past the purge mark (retention deletes the oldest first, and seqs are never
  // reused): from the oldest, the page reads from the log's start, and the marks say where that is.
  if (form.start === "oldest") return sql`0`;
  if (form.start === "after") return sql`${v.after}`;
  // recorded_at rises with seq (src/db/changeRows.ts): the first change at or after `since` is one seek;
  // none yet: every change from now on.
  return sql`coalesce(
    (select ${changes.seq} - 1 from ${changes} where ${changes.recordedAt} >= ${v.since} order by ${changes.recordedAt}, ${changes.seq} limit 1),
    (select coalesce(max(${changes.seq}), ${purged}) from ${changes}))`;
}

const columns = sql`${changes.seq} as seq, ${changes.state} as change_state, ${changes.type} as type, ${changes.filingId} as filing_id, ${changes.amendment} as amendment, ${changes.changedFields} as changed_fields, ${changes.recordedAt} as recorded_at, ${changes.occurredAt} as occurred_at, ${changes.removedParties} as removed_parties`;

/**
 * The changes `w` selects (its `columns`), each with its filing as it stands
 * now as a list shows it (its listed form), and `extra` columns: a page's
 * rows and a single change's. CROSS JOIN keeps SQLite's join order: the
 * changes, then each one's filing by id.
 */
function withFilings(w: SQL, extra: SQL = sql``): SQL {
  return sql`select w.seq, w.change_state, w.type, w.amendment, w.changed_fields, w.recorded_at, w.occurred_at, w.removed_parties${extra}, ${withParties(true, undefined, "listed")}
      from (${w}) as w cross join filings on filings.id = w.filing_id`;
}

/**
 * `arms` (each in seq order) as one list in seq order, cut to `limit`: one
 * compound SELECT under one ORDER BY, which SQLite merges arm by arm as an
 * index gives each in order, so the arms together read about `limit` rows.
 * (An arm cut to `limit` by an ORDER BY and LIMIT of its own is read whole
 * before the merge: each arm a page.) Beyond MAX_COMPOUND arms the first
 * four stay terms and the rest are merged first, nested.
 */
function merged(arms: SQL[], limit: SQLWrapper): SQL {
  if (arms.length <= MAX_COMPOUND) return sql`${sql.join(arms, sql` union all `)} order by seq limit ${limit}`;
  const nested = merged(arms.slice(MAX_COMPOUND - 1), limit);
  return merged([...arms.slice(0, MAX_COMPOUND - 1), sql`select * from (${nested})`], limit);
}

/** The changes of the filter after the position `after` (an SQL expression), in seq order, at most the window's size. */
function window(form: ChangeForm, v: Holes<ChangeValues>, after: SQL): SQL {
  const onState = form.state ? eq(changes.state, v.state) : undefined;
  const base = (where: SQL | undefined) =>
    sql`select ${columns} from ${changes} where ${and(where, gt(changes.seq, after))}`;
  if (form.types === 0) return merged([base(onState)], v.size);
  return merged(
    v.types.map((t) => base(and(onState, eq(changes.type, t)))),
    v.size,
  );
}

/**
 * With a party filter: the name-index entries of its keys after the
 * position, in change order, at most the window's size (each as its row
 * id, seq × NAME_SLOTS + slot, named `seq` for merged()).
 */
function named(v: Holes<ChangeValues>, after: SQL): SQL {
  const from = sql`(${after} + 1) * ${NAME_SLOTS_SQL}`;
  if (v.keys.length === 0) return sql`select null as seq where 0`;
  return merged(
    v.keys.map(
      (key) =>
        sql`select ${changeNames.id} as seq from ${changeNames} where ${changeNames.key} = ${key} and ${changeNames.id} >= ${from}`,
    ),
    v.size,
  );
}

/**
 * The changes of the entries `named` holds that are of the state and types
 * asked for, in seq order (`entry`: the order to keep). One key's entries
 * are distinct changes in order: each is read by its seq as it comes. Under
 * several keys a change may have an entry under each: `in` reads each once,
 * at the cost of a list built and walked (about three rows read per entry
 * against one).
 */
function namedChanges(form: ChangeForm, v: Holes<ChangeValues>, entries: SQL): SQL {
  const onState = form.state ? eq(changes.state, v.state) : undefined;
  const onTypes = form.types === 0 ? undefined : sql`${changes.type} in (${sql.join([...v.types], sql`, `)})`;
  if (v.keys.length === 1) {
    const asked = and(onState, onTypes);
    return sql`select ${columns}, e.seq as entry from (${entries}) as e cross join ${changes} on ${changes.seq} = e.seq / ${NAME_SLOTS_SQL}${
      asked ? sql` where ${asked}` : sql``
    } order by e.seq`;
  }
  const seqs = sql`${changes.seq} in (select seq / ${NAME_SLOTS_SQL} from (${entries}))`;
  // Each change by its seq, its state checked on the row (unary +: not through changes_state, a second seek).
  const inState = form.state ? sql`+${changes.state} = ${v.state}` : undefined;
  return sql`select ${columns}, ${changes.seq} as entry from ${changes} where ${and(seqs, inState, onTypes)} order by ${changes.seq}`;
}

/**
 * A shard's page of changes, in one batch: the page (the window's changes
 * whose filing names a matching party, with the filing as it stands now,
 * and without a party the filter's newest change); one row of marks (the
 * start, the purge mark, the data-load time); and with a party filter what
 * the window examined. A template: rendered once per isolate and form.
 */
const pageStatements = template("changes", (form: ChangeForm, v: Holes<ChangeValues>): SQL[] => {
  const after = startOf(form, v);
  const entries = form.scanning ? named(v, after) : undefined;
  const w = entries ? namedChanges(form, v, entries) : window(form, v, after);
  const parties: SQL[] = [];
  // A filing's parties now, and those the change took off it (changes.removed_parties, null for almost every change).
  if (form.debtor) {
    const named = spansMatch(sql`k`, spansIn(form.debtor, v.spans));
    const keys = sql`select ${debtorParties.nameKey} as k from ${debtorParties} where ${debtorParties.filingId} = w.filing_id union all select value from json_each(w.removed_parties, '$.d')`;
    parties.push(sql`exists (select 1 from (${keys}) where ${named})`);
  }
  if (form.secured) {
    // Under FEW_LENDER_NAMES whole-word names (most lenders' queries), their ids are listed once
    // and each filing's parties compared with the list; else each party's name is read by its id.
    // (SQLite evaluates the count and builds the list once a statement, only as the CASE needs.)
    const inRange = sql`${lenderNames.words} >= ${v.from} and ${lenderNames.words} < ${v.to}`;
    const few = sql`(select count(*) from (select 1 from ${lenderNames} where ${inRange} limit ${FEW_LENDER_NAMES})) < ${FEW_LENDER_NAMES}`;
    const listed = sql`exists (select 1 from ${securedParties} where ${securedParties.filingId} = w.filing_id and ${securedParties.nameId} in (select ${lenderNames.id} from ${lenderNames} where ${inRange}))`;
    const byName = sql`exists (select 1 from ${securedParties} join ${lenderNames} on ${lenderNames.id} = ${securedParties.nameId} where ${securedParties.filingId} = w.filing_id and ${inRange})`;
    const removed = sql`exists (select 1 from json_each(w.removed_parties, '$.s') where value >= ${v.from} and value < ${v.to})`;
    parties.push(sql`(case when ${few} then ${listed} else ${byName} end or ${removed})`);
  }
  const matching = parties.length > 0 ? sql`where ${sql.join(parties, sql` and `)}` : sql``;
  // A page whole without a party is told whether more follow by the filter's newest change, read
  // with its first row (a subquery of the result, run once: a page with no row reads none of it).
  const newest = form.part === "whole" && !form.scanning ? sql`, ${newestOf(form, v)} as newest` : sql``;
  const page = sql`${withFilings(w, newest)} ${matching} order by ${entries ? sql`w.entry` : sql`w.seq`} limit ${v.keep}`;
  const loaded = form.state
    ? sql`(select ${stateLoads.lastLoadedAt} from ${stateLoads} where ${stateLoads.state} = ${v.state})`
    : sql`(select max(${dataLoads.loadedAt}) from ${dataLoads})`;
  // From the oldest, the start is the purge mark (null here: read once, as the mark).
  const start = form.start === "oldest" ? sql`null` : after;
  const marks = sql`select ${start} as start, ${purgedMark()} as purged, ${loaded} as at`;
  const examined = sql`select max(seq) / ${NAME_SLOTS_SQL} as through, count(*) as n from (${entries ?? w})`;
  if (form.part === "heads") return [sql`select * from (${w})`, marks];
  return form.scanning ? [page, marks, examined] : [page, marks];
});

/**
 * The newest change of a filter without a party, as an SQL expression: the
 * last entry of its index range, or of each type's (one row each). A page
 * of `limit` changes compares its last with it, where reading the change
 * past the page would read that change's filing too.
 */
function newestOf(form: ChangeForm, v: Holes<ChangeValues>): SQL {
  const onState = form.state ? eq(changes.state, v.state) : undefined;
  const newest = (where: SQL | undefined) =>
    sql`(select max(${changes.seq}) from ${changes}${where ? sql` where ${where}` : sql``})`;
  if (form.types === 0) return newest(onState);
  // max() of several values is null if any is: a type with no change counts as 0.
  const each = v.types.map((t) => sql`coalesce(${newest(and(onState, eq(changes.type, t)))}, 0)`);
  return each.length === 1 ? (each[0] as SQL) : sql`max(${sql.join(each, sql`, `)})`;
}

/** A change's row, as the window reads it. */
type ChangeRow = {
  seq: number;
  change_state: string;
  type: number;
  filing_id: number;
  amendment: string | null;
  changed_fields: number | null;
  recorded_at: number;
  occurred_at: number;
  removed_parties: string | null;
};

/** A row of the page statement: a change with its filing (and, without a party, the filter's newest change). */
type Row = PageRow & Omit<ChangeRow, "filing_id"> & { newest?: number | null };

/** A stored instant (seconds) as the API writes it: the column's own reading (src/db/encodings.ts, instant). */
const iso = (s: number) => changes.recordedAt.mapFromDriverValue(s) as string;

/** The changed fields of a stored mask, as setMask reads them (bit i: CHANGED_FIELDS[i]). */
function fieldsOf(mask: number | null): string | null {
  return mask === null ? null : (changes.changedFields.mapFromDriverValue(mask) as string);
}

/** The form and values of a page of `filter` from `start`, whose window reads `size` changes and keeps `keep`. */
function formOf(filter: ChangeFilter, start: Start, part: ChangeForm["part"], size: number, keep: number) {
  const debtor = filter.debtorName ? spanForms(debtorQuery(filter.debtorName)) : undefined;
  const secured = filter.securedParty ? securedNameRange(filter.securedParty) : undefined;
  // The index is read under the debtor's keys when both are asked for; the lender is then checked on the filing.
  const securedKey = filter.securedParty === undefined ? undefined : securedNameKey(filter.securedParty);
  const keys = filter.debtorName ? debtorNameKeys(filter.debtorName) : securedKey === undefined ? [] : [securedKey];
  const form: ChangeForm = {
    state: filter.state !== undefined,
    types: filter.types?.length ?? 0,
    start: start === "oldest" ? "oldest" : "after" in start ? "after" : "since",
    debtor: debtor?.forms ?? null,
    secured: secured !== undefined,
    scanning: scans(filter),
    part,
  };
  const values: ChangeValues = {
    state: filter.state ?? "",
    types: (filter.types ?? []).map((t) => Number(changes.type.mapToDriverValue(t))),
    after: typeof start === "object" && "after" in start ? start.after : 0,
    since: typeof start === "object" && "since" in start ? seconds(start.since) : 0,
    size,
    keep,
    spans: debtor?.values ?? [],
    from: secured?.from ?? "",
    to: secured?.to ?? "",
    keys,
  };
  return pageStatements(form, values);
}

/** Whether `filter` names a party: its page examines a window of changes (see above). */
export const scans = (filter: ChangeFilter) => filter.debtorName !== undefined || filter.securedParty !== undefined;

/** A shard's marks: where the page starts (null: at the purge mark), the purge mark, the data-load time. */
type Mark = { start: number | null; purged: number; at: number | string | null };

/** A state's load time is stored in seconds; the shard's newest load is text. */
function loadedAt(filter: ChangeFilter, mark: Mark | undefined): string | null {
  const at = mark?.at ?? null;
  if (at === null) return null;
  return filter.state ? (stateLoads.lastLoadedAt.mapFromDriverValue(Number(at)) as string) : String(at);
}

/**
 * One shard's next changes of `filter` (no party filter) from `start`, at
 * most `limit` + 1, without their filings, with where it starts and its
 * marks: the first part of a page merged over several shards
 * (src/changes/feed.ts). It reads the change rows alone.
 */
export async function shardChangeHeads(
  db: Db,
  filter: ChangeFilter,
  start: Start,
  limit: number,
): Promise<ShardChanges<ChangeHead>> {
  if (scans(filter)) throw new Error("changes: a party filter is read whole (shardChanges)");
  const [heads, marks] = formOf(filter, start, "heads", limit + 1, limit + 1);
  if (!heads || !marks) throw new Error("changes: two statements");
  const [rows, [mark]] = await db.batch([db.all<ChangeRow>(heads), db.all<Mark>(marks)]);
  return {
    items: rows.map((r) => ({ ...changeOf(r), filingId: Number(r.filing_id) })),
    start: startAt(mark),
    purged: Number(mark?.purged ?? 0),
    dataLoadedAt: loadedAt(filter, mark),
  };
}

/**
 * The filings `ids` of one shard as a list shows them (their listed forms),
 * in one statement of one text whatever the page, from a list of
 * MAX_CHANGES_LIMIT bound ids (the most a page holds: filingsInList), one
 * row read a filing.
 */
const filingsById = template(
  "changeFilings",
  (_: Record<string, never>, v: Holes<{ ids: (number | null)[] }>) =>
    sql`select ${withParties(true, undefined, "listed")} from ${filingsInList(v.ids)}`,
);

/**
 * The filings of one shard's changes on a merged page (`heads`), each
 * change with its filing as it stands now: the second part of a page merged
 * over several shards, one row a filing.
 */
export async function shardChangeFilings(db: Db, heads: ChangeHead[]): Promise<ChangeItem[]> {
  const unique = [...new Set(heads.map((h) => h.filingId))];
  if (unique.length > MAX_CHANGES_LIMIT) throw new Error(`changes: ${unique.length} filings on one page`);
  const [rows] = await db.batch([db.all<PageRow>(filingsById({}, { ids: idSlots(unique, MAX_CHANGES_LIMIT) }))]);
  const listed = assembleListed(rows);
  const byId = new Map(listed.map((f) => [Number(f.filing.id), f]));
  return heads.flatMap(({ filingId, ...head }) => {
    const filing = byId.get(filingId);
    // A change's filing is there still: filings are never deleted.
    return filing ? [{ ...head, filing }] : [];
  });
}

/**
 * One change by its seq with its filing as it stands now, as a page shows
 * it: what a webhook delivery sends. One statement, a row for the change
 * and one for its filing (its listed form, which every change the feed
 * keeps has); none of a page's marks or its look at the newest change,
 * which say where a page starts and whether more follow.
 */
const changeAt = template("changeAt", (_: Record<string, never>, v: Holes<{ seq: number }>) =>
  withFilings(sql`select ${columns} from ${changes} where ${changes.seq} = ${v.seq}`),
);

/** The change `seq` of one shard with its filing; undefined when the shard no longer keeps it (or never had it). */
export async function shardChange(db: Db, seq: number): Promise<ChangeItem | undefined> {
  const [rows] = await db.batch([db.all<Row>(changeAt({}, { seq }))]);
  return itemsOf(rows)[0];
}

/** Where a shard's page starts: the start read, or the purge mark from the oldest. */
const startAt = (mark: Mark | undefined) => Number(mark?.start ?? mark?.purged ?? 0);

/**
 * One shard's changes of `filter` from `start`: at most `limit`, and
 * whether more follow (`more`: the filter's newest change is past them);
 * with a party filter at most `limit` + 1, the one past the page saying
 * there is more (a window's matches are known only as it is read).
 */
export async function shardChanges(db: Db, filter: ChangeFilter, start: Start, limit: number): Promise<ShardChanges> {
  const scanning = scans(filter);
  const size = scanning ? Math.min(SCAN_WINDOW, limit * SCAN_PER_CHANGE) : limit;
  const [page, marks, examined] = formOf(filter, start, "whole", size, scanning ? limit + 1 : limit);
  if (!page || !marks) throw new Error("changes: two statements or three");
  type Examined = { through: number | null; n: number };
  const [rows, [mark], scanned] = examined
    ? await db.batch([db.all<Row>(page), db.all<Mark>(marks), db.all<Examined>(examined)])
    : await db.batch([db.all<Row>(page), db.all<Mark>(marks)]);
  const items = itemsOf(rows);
  const from = startAt(mark);
  const window0 = scanned?.[0];
  const newest = rows[0]?.newest ?? null;
  return {
    items,
    start: from,
    ...(scanning
      ? { examined: { through: window0?.through ?? null, full: Number(window0?.n ?? 0) >= size } }
      : { more: items.length === limit && newest !== null && Number(newest) > (items.at(-1)?.seq ?? from) }),
    purged: Number(mark?.purged ?? 0),
    dataLoadedAt: loadedAt(filter, mark),
  };
}

/** A change's row as the API reads it, without its filing. */
function changeOf(r: Omit<ChangeRow, "filing_id">): Omit<ChangeItem, "filing"> {
  return {
    seq: Number(r.seq),
    type: CHANGE_TYPES[Number(r.type)] as ChangeType,
    state: r.change_state,
    amendment: r.amendment,
    changedFields: fieldsOf(r.changed_fields === null ? null : Number(r.changed_fields)),
    recordedAt: iso(Number(r.recorded_at)),
    occurredAt: iso(Number(r.occurred_at)),
    removedParties: r.removed_parties ?? null,
  };
}

/** Page rows as changes, each with its filing. */
function itemsOf(rows: Row[]): ChangeItem[] {
  const filings = assembleListed(rows);
  return rows.map((r, i) => ({ ...changeOf(r), filing: filings[i] as ListedFilingWithParties }));
}
