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
import { and, desc, eq, inArray, max, not, sql } from "drizzle-orm";
import { debtorAddresses, debtorAddressSets, debtorLinks, debtorNames } from "../db/schema.ts";
import { debtorQuery } from "../domain/names.ts";
import type { Db } from "./db.ts";
import type { PageWindow } from "./filings.ts";
import { keyMatches } from "./nameMatch.ts";

/**
 * Candidate rows a page asks of a database per address it shows: an address
 * filed under several of the found names (John A Smith, John Smith and
 * J Smith at one address) has a row under each, and the page needs enough
 * rows to hold its addresses once. A page whose rows hold too few addresses
 * asks again (knownAddressesAcross).
 */
export const ROWS_PER_ADDRESS = 3;

/**
 * The first `limit` rows of the found debtors' addresses in list order: last
 * used, then address key, then name key, newest first. Each debtor's rows
 * are one range of debtor_addresses in that order, so SQLite reads each
 * found debtor's newest rows and leaves a debtor's range at its first row
 * that falls behind the rows kept (its ORDER BY LIMIT optimization): about
 * `limit` rows plus two per found debtor, however many addresses they have.
 * An address under several found names comes once per name; the merge keeps
 * its newest row.
 */
export function knownAddressRows(db: Db, name: string, limit: number, after?: AddressPosition) {
  return db
    .select({
      nameKey: debtorAddresses.nameKey,
      addressKey: debtorAddresses.addressKey,
      street1: debtorAddresses.street1,
      street2: debtorAddresses.street2,
      city: debtorAddresses.city,
      state: debtorAddresses.state,
      zip: debtorAddresses.zip,
      lastUsed: debtorAddresses.lastUsed,
    })
    .from(debtorAddressSets)
    .crossJoin(debtorAddresses)
    .where(
      and(
        keyMatches(debtorAddressSets.nameKey, debtorQuery(name)),
        eq(debtorAddresses.nameKey, debtorAddressSets.nameKey),
        // Each found name's range starts below the position (its primary key's order).
        after && sql`(${debtorAddresses.lastUsed}, ${debtorAddresses.addressKey}) < (${after.at}, ${after.address})`,
      ),
    )
    .orderBy(desc(debtorAddresses.lastUsed), desc(debtorAddresses.addressKey), desc(debtorAddresses.nameKey))
    .limit(limit);
}

/** A place in the known-address list: an address's last use as stored (seconds), and its address key. */
export interface AddressPosition {
  at: number;
  address: number;
}

/** The position of a row of knownAddressRows, shown as its address's newest. */
export function addressPositionOf(row: { lastUsed: string; addressKey: number }): AddressPosition {
  return { at: Number(debtorAddresses.lastUsed.mapToDriverValue(row.lastUsed)), address: row.addressKey };
}

/**
 * /debtors/addresses, one database's part (one round trip): its first
 * `limit` rows in list order (knownAddressRows), below `after` if given,
 * and the address key set of each debtor it finds, one row per debtor,
 * from which the Worker counts the distinct addresses of every found debtor
 * in every shard exactly, and tells which found debtors hold an address.
 */
export async function knownAddressCandidates(db: Db, name: string, limit: number, after?: AddressPosition) {
  const [sets, rows] = await db.batch([knownAddressSets(db, name), knownAddressRows(db, name, limit, after)]);
  return { sets, rows, limit };
}

/** The address key set of each debtor a search for `name` finds: one row per debtor. */
export function knownAddressSets(db: Db, name: string) {
  return db
    .select({ nameKey: debtorAddressSets.nameKey, addressKeys: debtorAddressSets.addressKeys })
    .from(debtorAddressSets)
    .where(keyMatches(debtorAddressSets.nameKey, debtorQuery(name)));
}

/**
 * /debtors/associated/: the other debtors named on the filings of a debtor in a
 * state, one entry per distinct name (match key) and address, most recent
 * co-filing first. Debtors the query itself finds are not "other" debtors
 * ("J Smith" finds John and Jane Smith: neither is listed as the other's
 * co-borrower).
 */
export async function associatedDebtors(
  db: Db,
  q: { name: string; state: string },
  { page, size, offset = (page - 1) * size }: PageWindow,
) {
  const query = debtorQuery(q.name);
  // The found debtors of the state come from debtor_names, so a key range
  // reads the links of those debtors in this state only.
  const found = db
    .select({ key: debtorNames.nameKey })
    .from(debtorNames)
    .where(keyMatches(debtorNames.nameKey, query, eq(debtorNames.state, q.state)));
  const ofDebtor = and(
    inArray(debtorLinks.nameKey, found),
    eq(debtorLinks.filingState, q.state),
    not(keyMatches(debtorLinks.otherKey, query)),
  );
  const lastSeen = max(debtorLinks.lastSeen);
  const [rows, [counted]] = await db.batch([
    db
      .select({
        name: debtorLinks.name,
        street1: debtorLinks.street1,
        street2: debtorLinks.street2,
        city: debtorLinks.city,
        state: debtorLinks.state,
        zip: debtorLinks.zip,
        lastSeen,
      })
      .from(debtorLinks)
      .where(ofDebtor)
      .groupBy(debtorLinks.otherKey, debtorLinks.otherAddressKey)
      .orderBy(desc(lastSeen), desc(debtorLinks.otherKey), desc(debtorLinks.otherAddressKey))
      .limit(size)
      .offset(offset),
    db
      .select({
        total: sql<number>`count(distinct ${debtorLinks.otherKey} || '|' || ${debtorLinks.otherAddressKey})`,
      })
      .from(debtorLinks)
      .where(ofDebtor),
  ]);
  return { rows, total: counted?.total ?? 0 };
}
