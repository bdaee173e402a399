/**
 * Queries behind the debtor lookups that list addresses and co-borrowers
 * rather than filings (/debtors/addresses, /debtors/associated/). Both read aggregates the loader
 * keeps per debtor (src/db/load.ts, refreshStatements), for the debtors the
 * query finds under the same spans as the filing search (nameMatch.ts): the
 * organization key, and the individual-name variants. One name may find
 * several debtors ("John Smith" and "J Smith"), so entries are merged by
 * address (or co-debtor and address) and each is listed once, as most
 * recently seen. Known addresses read about a page of rows plus a few per
 * found debtor (the merge is in src/queries/fanout.ts); co-borrowers read
 * the found debtors' entries in the state: they grow with those debtors'
 * co-borrowers, never with the number of filings.
 */
import { and, desc, eq, getTableColumns, inArray, max, not, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { debtorAddresses, debtorAddressSets, debtorLinks, debtorNames } from "../db/schema.ts";
import { debtorQuery } from "../domain/names.ts";
import { type Db, decoded, type Holes, query, template } from "./db.ts";
import type { PageWindow } from "./filings.ts";
import { type SpanForm, spanForms, spansIn, spansMatch } from "./nameMatch.ts";

/**
 * Candidate rows a page asks of a database per address it shows: an address
 * filed under several of the found names (John A Smith, John Smith and
 * J Smith at one address) has a row under each, and the page needs enough
 * rows to hold its addresses once. A page whose rows hold too few addresses
 * asks again (knownAddressesAcross).
 */
export const ROWS_PER_ADDRESS = 3;

/** A found debtor's row of its addresses (knownAddressRows). */
export type AddressRow = typeof debtorAddresses.$inferSelect;

/** A found debtor's address key set (knownAddressSets). */
export type AddressSet = typeof debtorAddressSets.$inferSelect;

/** A co-borrower entry (associatedDebtors), with its key: its name key and address key, which group it. */
export type Associated = Pick<
  typeof debtorLinks.$inferSelect,
  "name" | "street1" | "street2" | "city" | "state" | "zip" | "lastSeen"
> & { key: string };

/** What a statement selects, by key: the column whose values it reads (and decodes them), or an expression over it. */
type Columns = readonly (readonly [key: string, column: SQLiteColumn, read?: SQL])[];

/** Every column of `table`, by key. */
const allOf = (table: typeof debtorAddresses | typeof debtorAddressSets): Columns =>
  Object.entries(getTableColumns(table));

const ADDRESS_COLUMNS = allOf(debtorAddresses);
const SET_COLUMNS = allOf(debtorAddressSets);
const lastSeen = max(debtorLinks.lastSeen);
const groupKey = sql`${debtorLinks.otherKey} || '|' || ${debtorLinks.otherAddressKey}`;
const ASSOCIATED_COLUMNS: Columns = [
  ...(["name", "street1", "street2", "city", "state", "zip"] as const).map((key): Columns[number] => [
    key,
    debtorLinks[key],
  ]),
  ["lastSeen", debtorLinks.lastSeen, lastSeen],
  ["key", debtorLinks.otherKey, groupKey],
];

/** A select of `columns`, each named by its key, so rows come back as D1 sends them (decodeAll reads them). */
const selectOf = (columns: Columns) =>
  query.select(Object.fromEntries(columns.map(([key, column, read]) => [key, sql`${read ?? column}`.as(key)])));

/** Rows of a selectOf() statement, each value read back as its column's Drizzle reads it. */
function decodeAll<R>(columns: Columns, rows: Record<string, unknown>[]): R[] {
  const decoders = columns.map(([key, column]): [string, SQLiteColumn] => [key, column]);
  return rows.map((row) => decoded<R>(decoders, (key) => row[key]));
}

/** A debtor query's spans (nameMatch.ts, spanForms), as a template takes them. */
type Spans = { spans: (string | number)[] };

function spansOfName(name: string) {
  const { forms, values } = spanForms(debtorQuery(name));
  return { forms, spans: values };
}

/**
 * The first `limit` rows of the found debtors' addresses in list order: last
 * used, then address key, then name key, newest first. Each debtor's rows
 * are one range of debtor_addresses in that order, so SQLite reads each
 * found debtor's newest rows and leaves a debtor's range at its first row
 * that falls behind the rows kept (its ORDER BY LIMIT optimization): about
 * `limit` rows plus two per found debtor, however many addresses they have.
 * An address under several found names comes once per name; the merge keeps
 * its newest row. Below a position (`after`), each found name's range
 * starts there (its primary key's order).
 */
const ad = debtorAddresses;
const addressRows = template(
  "addressRows",
  (f: { spans: SpanForm[]; after: boolean }, v: Holes<Spans & { limit: number; at: number; address: number }>) =>
    sql`${selectOf(ADDRESS_COLUMNS)
      .from(debtorAddressSets)
      .crossJoin(debtorAddresses)
      .where(
        and(
          spansMatch(debtorAddressSets.nameKey, spansIn(f.spans, v.spans)),
          eq(ad.nameKey, debtorAddressSets.nameKey),
          f.after ? sql`(${ad.lastUsed}, ${ad.addressKey}) < (${v.at}, ${v.address})` : undefined,
        ),
      )
      .orderBy(desc(ad.lastUsed), desc(ad.addressKey), desc(ad.nameKey))
      .getSQL()} limit ${v.limit}`,
);

/** The address key set of each debtor a search finds: one row per debtor. */
const addressSets = template("addressSets", (f: { spans: SpanForm[] }, v: Holes<Spans>) =>
  selectOf(SET_COLUMNS)
    .from(debtorAddressSets)
    .where(spansMatch(debtorAddressSets.nameKey, spansIn(f.spans, v.spans)))
    .getSQL(),
);

/** A place in the known-address list: an address's last use as stored (seconds), and its address key. */
export interface AddressPosition {
  at: number;
  address: number;
}

/** The position of a row of knownAddressRows, shown as its address's newest. */
export function addressPositionOf(row: { lastUsed: string; addressKey: number }): AddressPosition {
  return { at: Number(ad.lastUsed.mapToDriverValue(row.lastUsed)), address: row.addressKey };
}

/** The statements of knownAddressCandidates, the same for every shard: render once, send to each. */
export interface AddressStatements {
  sets: SQL;
  rows: SQL;
  limit: number;
}

/** The statements of a known-address read: the found debtors' address sets, and their first `limit` rows below `after`. */
export function addressStatements(name: string, limit: number, after?: AddressPosition): AddressStatements {
  const found = spansOfName(name);
  return {
    sets: addressSets({ spans: found.forms }, { spans: found.spans }),
    rows: rowsBelow(found, limit, after),
    limit,
  };
}

/** The rows statement of a known-address read: a template's, rendered once per isolate and shape. */
function rowsBelow({ forms, spans }: ReturnType<typeof spansOfName>, limit: number, after?: AddressPosition): SQL {
  return addressRows(
    { spans: forms, after: after !== undefined },
    { spans, limit, at: after?.at ?? 0, address: after?.address ?? 0 },
  );
}

/** knownAddressRows' statement alone: a shard read again for more rows. */
export const knownAddressRows = (db: Db, name: string, limit: number) =>
  db.all<Record<string, unknown>>(rowsBelow(spansOfName(name), limit));

/** Rows of knownAddressRows' statement, decoded. */
export const addressRowsOf = (rows: Record<string, unknown>[]) => decodeAll<AddressRow>(ADDRESS_COLUMNS, rows);

/**
 * /debtors/addresses, one database's part (one round trip): its first
 * `limit` rows in list order, below `after` if given, and the address key
 * set of each debtor it finds, one row per debtor, from which the Worker
 * counts the distinct addresses of every found debtor in every shard
 * exactly, and tells which found debtors hold an address. Given the sets
 * (`known`, read before for the count), it reads the rows alone.
 */
export async function knownAddressCandidates(
  db: Db,
  { sets, rows, limit }: AddressStatements,
  known?: AddressSet[],
): Promise<{ sets: AddressSet[]; rows: AddressRow[]; limit: number }> {
  if (known) {
    const [listed] = await db.batch([db.all<Record<string, unknown>>(rows)]);
    return { sets: known, rows: addressRowsOf(listed), limit };
  }
  const [found, listed] = await db.batch([
    db.all<Record<string, unknown>>(sets),
    db.all<Record<string, unknown>>(rows),
  ]);
  return { sets: decodeAll<AddressSet>(SET_COLUMNS, found), rows: addressRowsOf(listed), limit };
}

/** The address key set of each debtor a search for `name` finds: one row per debtor. */
export async function knownAddressSets(db: Db, name: string): Promise<AddressSet[]> {
  const { forms, spans } = spansOfName(name);
  const [found] = await db.batch([db.all<Record<string, unknown>>(addressSets({ spans: forms }, { spans }))]);
  return decodeAll<AddressSet>(SET_COLUMNS, found);
}

/**
 * /debtors/associated/: the other debtors named on the filings of a debtor in a
 * state, one entry per distinct name (match key) and address, most recent
 * co-filing first, and their count. Debtors the query itself finds are not
 * "other" debtors ("J Smith" finds John and Jane Smith: neither is listed
 * as the other's co-borrower). The found debtors of the state come from
 * debtor_names, so a key range reads the links of those debtors in this
 * state only. With `keys` (a part of a split state, src/queries/fanout.ts),
 * the count is the entries' keys instead: an entry in several parts counts
 * once.
 */
const associated = template(
  "associated",
  (
    f: { spans: SpanForm[]; keys: boolean },
    v: Holes<Spans & { state: string; limit: number; offset: number }>,
  ): SQL[] => {
    const spans = spansIn(f.spans, v.spans);
    const found = query
      .select({ key: debtorNames.nameKey })
      .from(debtorNames)
      .where(spansMatch(debtorNames.nameKey, spans, eq(debtorNames.state, v.state)));
    const ofDebtor = and(
      inArray(debtorLinks.nameKey, found),
      eq(debtorLinks.filingState, v.state),
      not(spansMatch(debtorLinks.otherKey, spans)),
    );
    const rows = selectOf(ASSOCIATED_COLUMNS)
      .from(debtorLinks)
      .where(ofDebtor)
      .groupBy(debtorLinks.otherKey, debtorLinks.otherAddressKey)
      .orderBy(desc(lastSeen), desc(debtorLinks.otherKey), desc(debtorLinks.otherAddressKey));
    const count = f.keys
      ? query.select({ keys: sql<string>`json_group_array(k)`.as("keys") }).from(
          query
            .selectDistinct({ k: sql`${groupKey}`.as("k") })
            .from(debtorLinks)
            .where(ofDebtor)
            .as("entries"),
        )
      : query
          .select({ total: sql<number>`count(distinct ${groupKey})`.as("total") })
          .from(debtorLinks)
          .where(ofDebtor);
    return [sql`${rows.getSQL()} limit ${v.limit} offset ${v.offset}`, count.getSQL()];
  },
);

/** A page of co-borrowers, and their count: one database's, or a part's with its entries' keys (`keys`). */
export async function associatedDebtors(
  db: Db,
  q: { name: string; state: string },
  { size, offset }: PageWindow,
  keys = false,
): Promise<{ rows: Associated[]; total: number; keys: string[] }> {
  const { forms, spans } = spansOfName(q.name);
  const [rows, count] = associated({ spans: forms, keys }, { spans, state: q.state, limit: size, offset });
  if (!rows || !count) throw new Error("associated: two statements");
  const [listed, [counted]] = await db.batch([
    db.all<Record<string, unknown>>(rows),
    db.all<{ total?: number; keys?: string }>(count),
  ]);
  const entries = keys ? (JSON.parse(counted?.keys ?? "[]") as string[]) : [];
  return {
    rows: decodeAll<Associated>(ASSOCIATED_COLUMNS, listed),
    total: keys ? entries.length : Number(counted?.total ?? 0),
    keys: entries,
  };
}
