/**
 * Queries behind the debtor lookups that list addresses and co-borrowers
 * rather than filings (/debtors/addresses, /debtors/associated/). Both read aggregates the loader
 * keeps per debtor (src/db/load.ts, refreshStatements), for the debtors the
 * query finds under the same spans as the filing search (nameMatch.ts): the
 * organization key, and the individual-name variants. One name may find
 * several debtors ("John Smith" and "J Smith"), so entries are merged by
 * address (or co-debtor and address) and each is listed once, as most
 * recently seen. A page and its count read the found debtors' entries:
 * they grow with those debtors' addresses or co-borrowers, never with the
 * number of filings.
 */
import { and, desc, eq, inArray, max, not, sql } from "drizzle-orm";
import { debtorAddresses, debtorLinks, debtorNames } from "../db/schema.ts";
import { debtorQuery } from "../domain/names.ts";
import type { Db } from "./db.ts";
import type { PageWindow } from "./filings.ts";
import { keyMatches } from "./nameMatch.ts";

/**
 * /debtors/addresses: the distinct addresses (by address key) of a debtor, in any
 * state, most recently used first. With `keys`, the count is instead
 * every distinct address key of the debtor: merging several shards'
 * addresses counts each address once.
 */
export async function knownAddresses(
  db: Db,
  name: string,
  { page, size }: PageWindow,
  options: { keys?: boolean } = {},
) {
  const ofDebtor = keyMatches(debtorAddresses.nameKey, debtorQuery(name));
  // Beside max(), SQLite takes the other columns from the row holding the max.
  const lastUsed = max(debtorAddresses.lastUsed);
  const rows = db
    .select({
      addressKey: debtorAddresses.addressKey,
      street1: debtorAddresses.street1,
      street2: debtorAddresses.street2,
      city: debtorAddresses.city,
      state: debtorAddresses.state,
      zip: debtorAddresses.zip,
      lastUsed,
    })
    .from(debtorAddresses)
    .where(ofDebtor)
    .groupBy(debtorAddresses.addressKey)
    .orderBy(desc(lastUsed), desc(debtorAddresses.addressKey))
    .limit(size)
    .offset((page - 1) * size);
  if (options.keys) {
    const [found, keys] = await db.batch([
      rows,
      db.selectDistinct({ key: debtorAddresses.addressKey }).from(debtorAddresses).where(ofDebtor),
    ]);
    return { rows: found, total: keys.length, keys: keys.map((k) => k.key) };
  }
  const [found, [counted]] = await db.batch([
    rows,
    db
      .select({ total: sql<number>`count(distinct ${debtorAddresses.addressKey})` })
      .from(debtorAddresses)
      .where(ofDebtor),
  ]);
  return { rows: found, total: counted?.total ?? 0, keys: undefined };
}

/**
 * /debtors/associated/: the other debtors named on the filings of a debtor in a
 * state, one entry per distinct name (match key) and address, most recent
 * co-filing first. Debtors the query itself finds are not "other" debtors
 * ("J Smith" finds John and Jane Smith: neither is listed as the other's
 * co-borrower).
 */
export async function associatedDebtors(db: Db, q: { name: string; state: string }, { page, size }: PageWindow) {
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
      .offset((page - 1) * size),
    db
      .select({
        total: sql<number>`count(distinct ${debtorLinks.otherKey} || '|' || ${debtorLinks.otherAddressKey})`,
      })
      .from(debtorLinks)
      .where(ofDebtor),
  ]);
  return { rows, total: counted?.total ?? 0 };
}
