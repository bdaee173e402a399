/**
 * Queries behind the debtor lookups that list addresses and co-borrowers
 * rather than filings (/debtors/addresses, /debtors/associated/). Both read aggregates the loader
 * keeps per debtor (src/db/load.ts, refreshStatements), for the debtors the
 * query finds under the same spans as the filing search (nameMatch.ts): the
 * organization key, and the individual-name variants. One name may find
 * several debtors ("John Smith" and "J Smith"), so entries are merged by
 * address (or co-debtor and address) and each is listed once, as most
 * recently seen. Known addresses read about a page of rows plus a few per
 * found debtor, and so do co-borrowers (both merges are in
 * src/queries/fanout.ts), however many addresses or co-borrowers the found
 * debtors have.
 */
import { and, desc, eq, getTableColumns, inArray, not, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { debtorAddresses, debtorAddressSets, debtorLinkSets, debtorLinks, debtorNames } from "../db/schema.ts";
import { debtorQuery } from "../domain/names.ts";
import { type Db, decoded, type Holes, query, template } from "./db.ts";
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
/** A co-borrower entry's key: the co-debtor's name key and address key (as debtor_link_sets lists them). */
const groupKey = sql`${debtorLinks.otherKey} || '|' || ${debtorLinks.otherAddressKey}`;
const LINK_COLUMNS: Columns = [
  ...(["name", "street1", "street2", "city", "state", "zip", "lastSeen"] as const).map((key): Columns[number] => [
    key,
    debtorLinks[key],
  ]),
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
 * Co-borrower rows a page asks of a database per entry it shows: an entry
 * (a co-debtor's name key and address) filed with several of the found
 * debtors has a row under each, and the page needs enough rows to hold its
 * entries once. A page whose rows hold too few asks again
 * (src/queries/fanout.ts, associatedAcross).
 */
export const ROWS_PER_ENTRY = 3;

/** A found debtor's co-debtor count and entries' keys (debtor_link_sets), by its name key. */
export interface LinkSet {
  key: string;
  links: number;
  /** Null for a debtor with more than LINK_SET_MAX co-debtors (src/db/load.ts). */
  entries: string[] | null;
}

const LINK_SET_COLUMNS: Columns = [
  ["key", debtorLinkSets.nameKey],
  ["links", debtorLinkSets.links],
  ["entries", debtorLinkSets.entries],
];

/** The found debtors of a state's co-borrower list: debtor_names' keys under the spans, in the state. */
const foundIn = (spans: ReturnType<typeof spansIn>, state: SQLWrapper) =>
  spansMatch(debtorNames.nameKey, spans, eq(debtorNames.state, state));

/**
 * /debtors/associated/: the other debtors named on the filings of a debtor
 * in a state, one entry per distinct name (match key) and address, most
 * recent co-filing first. Debtors the query itself finds are not "other"
 * debtors ("J Smith" finds John and Jane Smith: neither is listed as the
 * other's co-borrower). The found debtors of the state come from
 * debtor_names; each one's entries are one range of debtor_links_recent
 * in list order, whose entries hold the link's key, so SQLite reads each
 * found debtor's newest entries and leaves its range at the first that
 * falls behind the rows kept (its ORDER BY LIMIT optimization), and then
 * the rows kept by key: about twice `limit` rows plus two per found
 * debtor, however many co-debtors they have. An entry filed with several
 * found debtors comes once per debtor; the Worker keeps its newest.
 */
const linkRows = template(
  "linkRows",
  (f: { spans: SpanForm[] }, v: Holes<Spans & { state: string; limit: number }>) => {
    const spans = spansIn(f.spans, v.spans);
    const kept = alias(debtorLinks, "kept");
    const newest = sql`${query
      .select({ nameKey: kept.nameKey, otherKey: kept.otherKey, otherAddressKey: kept.otherAddressKey })
      .from(debtorNames)
      .crossJoin(kept)
      .where(
        and(
          foundIn(spans, v.state),
          eq(kept.nameKey, debtorNames.nameKey),
          eq(kept.filingState, v.state),
          not(spansMatch(kept.otherKey, spans)),
        ),
      )
      .orderBy(desc(kept.lastSeen), desc(kept.otherKey), desc(kept.otherAddressKey))
      .getSQL()} limit ${v.limit}`;
    return selectOf(LINK_COLUMNS)
      .from(sql`(${newest}) as ${sql.identifier("newest")}`)
      .innerJoin(
        debtorLinks,
        and(
          eq(debtorLinks.nameKey, sql`"newest"."name_key"`),
          eq(debtorLinks.filingState, v.state),
          eq(debtorLinks.otherKey, sql`"newest"."other_key"`),
          eq(debtorLinks.otherAddressKey, sql`"newest"."other_address_key"`),
        ),
      )
      .getSQL();
  },
);

/** The co-debtor count and entries of each debtor a search finds in a state: one row per debtor with co-debtors. */
const linkSets = template("linkSets", (f: { spans: SpanForm[] }, v: Holes<Spans & { state: string }>) =>
  selectOf(LINK_SET_COLUMNS)
    .from(debtorNames)
    .crossJoin(debtorLinkSets)
    .where(
      and(
        foundIn(spansIn(f.spans, v.spans), v.state),
        eq(debtorLinkSets.nameKey, debtorNames.nameKey),
        eq(debtorLinkSets.filingState, v.state),
      ),
    )
    .getSQL(),
);

/**
 * Every entry's key of the found debtors in a state, each once: the count's
 * source when a found debtor has too many co-debtors for its set (rare; it
 * reads every entry).
 */
const linkKeys = template("linkKeys", (f: { spans: SpanForm[] }, v: Holes<Spans & { state: string }>) => {
  const spans = spansIn(f.spans, v.spans);
  return query
    .select({ keys: sql<string>`json_group_array(k)`.as("keys") })
    .from(
      query
        .selectDistinct({ k: sql`${groupKey}`.as("k") })
        .from(debtorLinks)
        .where(
          and(
            inArray(
              debtorLinks.nameKey,
              query.select({ key: debtorNames.nameKey }).from(debtorNames).where(foundIn(spans, v.state)),
            ),
            eq(debtorLinks.filingState, v.state),
            not(spansMatch(debtorLinks.otherKey, spans)),
          ),
        )
        .as("entries"),
    )
    .getSQL();
});

/** A co-borrower query: a debtor's name and state. */
export interface AssociatedQuery {
  name: string;
  state: string;
}

/** Rows of linkRows' statement, decoded. */
const linkRowsOf = (rows: Record<string, unknown>[]) => decodeAll<Associated>(LINK_COLUMNS, rows);

/**
 * One database's co-borrower candidates (one round trip): its first `limit`
 * entry rows in list order, and the found debtors' co-debtor sets, from
 * which the Worker counts the entries of every found debtor in every part
 * exactly (fanout.ts, associatedAcross).
 */
export async function associatedCandidates(
  db: Db,
  q: AssociatedQuery,
  limit: number,
): Promise<{ rows: Associated[]; sets: LinkSet[]; limit: number }> {
  const { forms, spans } = spansOfName(q.name);
  const [rows, sets] = await db.batch([
    db.all<Record<string, unknown>>(linkRows({ spans: forms }, { spans, state: q.state, limit })),
    db.all<Record<string, unknown>>(linkSets({ spans: forms }, { spans, state: q.state })),
  ]);
  return {
    rows: linkRowsOf(rows),
    sets: decodeAll<{ key: string; links: number; entries: string | null }>(LINK_SET_COLUMNS, sets).map((s) => ({
      key: s.key,
      links: Number(s.links),
      entries: s.entries === null ? null : (JSON.parse(s.entries) as string[]),
    })),
    limit,
  };
}

/** linkRows' statement alone, with room for `limit` rows: a database read again for more. */
export async function associatedRows(db: Db, q: AssociatedQuery, limit: number): Promise<Associated[]> {
  const { forms, spans } = spansOfName(q.name);
  // A batch of one, so the round trip and its rows are metered as every other.
  const [rows] = await db.batch([
    db.all<Record<string, unknown>>(linkRows({ spans: forms }, { spans, state: q.state, limit })),
  ]);
  return linkRowsOf(rows);
}

/** Every entry's key of the found debtors (linkKeys). */
export async function associatedKeys(db: Db, q: AssociatedQuery): Promise<string[]> {
  const { forms, spans } = spansOfName(q.name);
  const [[found]] = await db.batch([db.all<{ keys: string }>(linkKeys({ spans: forms }, { spans, state: q.state }))]);
  return typeof found?.keys === "string" ? (JSON.parse(found.keys) as string[]) : [];
}
