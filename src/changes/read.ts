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
 * - debtor_name, secured_party: there is no index of changes by party, so
 *   a page examines at most SCAN_PER_CHANGE changes per change asked for
 *   (SCAN_WINDOW at most), in order, through the indexes above, and keeps
 *   those whose filing names a matching party (the filing's own rows, by
 *   primary key). The position then moves past every change examined, so
 *   a walk always advances and never skips; a page may hold fewer changes
 *   than `limit` with `has_more` true. Work per page stays fixed however
 *   busy the debtor or lender, and however long the log.
 */
import { and, eq, gt, max, type SQL, sql } from "drizzle-orm";
import { changeMarks, changes, dataLoads, debtorParties, securedParties, stateLoads } from "../db/schema.ts";
import { CHANGE_TYPES, type ChangeType } from "../domain/kinds.ts";
import { debtorQuery, securedNameRange } from "../domain/names.ts";
import type { Db } from "../queries/db.ts";
import { assemble, type FilingWithParties, type PageRow, withParties } from "../queries/filings.ts";
import { keyMatches } from "../queries/nameMatch.ts";

/** Changes a page filtered by a party examines per change it may hold, and at most. */
const SCAN_PER_CHANGE = 10;
const SCAN_WINDOW = 1_000;

/** D1 allows at most five terms in one compound SELECT. */
const MAX_COMPOUND = 5;

export interface ChangeFilter {
  state?: string | undefined;
  types?: ChangeType[] | undefined;
  debtorName?: string | undefined;
  securedParty?: string | undefined;
}

/** Where a shard's part of the page starts. */
export type Start = { after: number } | { since: string } | "oldest";

/** One change as read, with its filing as it stands now. */
export interface ChangeItem {
  seq: number;
  type: ChangeType;
  state: string;
  amendment: string | null;
  changedFields: string | null;
  recordedAt: string;
  occurredAt: string;
  filing: FilingWithParties;
}

export interface ShardChanges {
  /** Up to `limit` + 1 changes after the start, in seq order. */
  items: ChangeItem[];
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

/** The position `start` names, as an SQL expression over the shard's log. */
function startOf(start: Start): SQL {
  const purged = sql`coalesce((select ${changeMarks.purgedThrough} from ${changeMarks} where ${changeMarks.id} = 1), 0)`;
  if (start === "oldest") return purged;
  if ("after" in start) return sql`${start.after}`;
  // recorded_at rises with seq (record.ts): the first change at or after `since` is one seek;
  // none yet: every change from now on.
  return sql`coalesce(
    (select ${changes.seq} - 1 from ${changes} where ${changes.recordedAt} >= ${seconds(start.since)} order by ${changes.recordedAt}, ${changes.seq} limit 1),
    (select coalesce(max(${changes.seq}), ${purged}) from ${changes}))`;
}

const columns = sql`${changes.seq} as seq, ${changes.state} as change_state, ${changes.type} as type, ${changes.filingId} as filing_id, ${changes.amendment} as amendment, ${changes.changedFields} as changed_fields, ${changes.recordedAt} as recorded_at, ${changes.occurredAt} as occurred_at`;

/** `arms` (each in seq order) as one list in seq order, cut to `limit`. */
function merged(arms: SQL[], limit: number): SQL {
  const ordered = (arm: SQL) => sql`select * from (${arm} order by seq limit ${limit})`;
  if (arms.length === 1) return sql`${arms[0]} order by seq limit ${limit}`;
  if (arms.length <= MAX_COMPOUND) {
    return sql`select * from (${sql.join(arms.map(ordered), sql` union all `)}) order by seq limit ${limit}`;
  }
  const size = Math.ceil(arms.length / MAX_COMPOUND);
  const groups: SQL[] = [];
  for (let i = 0; i < arms.length; i += size) groups.push(merged(arms.slice(i, i + size), limit));
  return merged(
    groups.map((g) => sql`select * from (${g})`),
    limit,
  );
}

/** The changes of `filter` after the position `after` (an SQL expression), in seq order, at most `limit`. */
function window(filter: ChangeFilter, after: SQL, limit: number): SQL {
  const onState = filter.state ? eq(changes.state, filter.state) : undefined;
  const types = filter.types;
  const base = (where: SQL | undefined) =>
    sql`select ${columns} from ${changes} where ${and(where, gt(changes.seq, after))}`;
  if (!types) return merged([base(onState)], limit);
  return merged(
    types.map((t) => base(and(onState, eq(changes.type, t)))),
    limit,
  );
}

/** A row of the page statement. */
type Row = PageRow & {
  seq: number;
  change_state: string;
  type: number;
  amendment: string | null;
  changed_fields: number | null;
  recorded_at: number;
  occurred_at: number;
};

const iso = (s: number) => new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** The changed fields of a stored mask, as setMask reads them (bit i: CHANGED_FIELDS[i]). */
function fieldsOf(mask: number | null): string | null {
  return mask === null ? null : (changes.changedFields.mapFromDriverValue(mask) as string);
}

/** One shard's changes of `filter` from `start`, at most `limit` + 1 (one past the page: is there more). */
export async function shardChanges(db: Db, filter: ChangeFilter, start: Start, limit: number): Promise<ShardChanges> {
  const after = startOf(start);
  const scanning = filter.debtorName !== undefined || filter.securedParty !== undefined;
  const size = scanning ? Math.min(SCAN_WINDOW, limit * SCAN_PER_CHANGE) : limit + 1;
  const w = window(filter, after, size);
  const parties: SQL[] = [];
  if (filter.debtorName) {
    const named = keyMatches(debtorParties.nameKey, debtorQuery(filter.debtorName));
    parties.push(
      sql`exists (select 1 from ${debtorParties} where ${debtorParties.filingId} = w.filing_id and (${named}))`,
    );
  }
  if (filter.securedParty) {
    const { from, to } = securedNameRange(filter.securedParty);
    parties.push(
      sql`exists (select 1 from ${securedParties} where ${securedParties.filingId} = w.filing_id and ${securedParties.nameWords} >= ${from} and ${securedParties.nameWords} < ${to})`,
    );
  }
  const matching = parties.length > 0 ? sql`where ${sql.join(parties, sql` and `)}` : sql``;
  // CROSS JOIN keeps SQLite's join order: the window's changes, then each one's filing by id.
  const page = db.all<Row>(
    sql`select w.seq, w.change_state, w.type, w.amendment, w.changed_fields, w.recorded_at, w.occurred_at, ${withParties(true)}
      from (${w}) as w cross join filings on filings.id = w.filing_id ${matching} order by w.seq limit ${limit + 1}`,
  );
  const marks = db.all<{ start: number; purged: number }>(
    sql`select ${after} as start, coalesce((select ${changeMarks.purgedThrough} from ${changeMarks} where ${changeMarks.id} = 1), 0) as purged`,
  );
  const loaded = filter.state
    ? db.select({ at: stateLoads.lastLoadedAt }).from(stateLoads).where(eq(stateLoads.state, filter.state))
    : db.select({ at: max(dataLoads.loadedAt) }).from(dataLoads);
  const examined = db.all<{ through: number | null; n: number }>(
    sql`select max(seq) as through, count(*) as n from (${w})`,
  );
  const [rows, [mark], [last], scanned] = scanning
    ? await db.batch([page, marks, loaded, examined])
    : await db.batch([page, marks, loaded]);
  const filings = assemble(rows);
  const items = rows.map((r, i) => ({
    seq: Number(r.seq),
    type: CHANGE_TYPES[Number(r.type)] as ChangeType,
    state: r.change_state,
    amendment: r.amendment,
    changedFields: fieldsOf(r.changed_fields === null ? null : Number(r.changed_fields)),
    recordedAt: iso(Number(r.recorded_at)),
    occurredAt: iso(Number(r.occurred_at)),
    filing: filings[i] as FilingWithParties,
  }));
  const window0 = scanned?.[0];
  return {
    items,
    start: Number(mark?.start ?? 0),
    ...(scanning ? { examined: { through: window0?.through ?? null, full: Number(window0?.n ?? 0) >= size } } : {}),
    purged: Number(mark?.purged ?? 0),
    dataLoadedAt: last?.at ?? null,
  };
}
