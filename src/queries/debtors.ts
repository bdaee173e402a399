/**
 * Queries behind the debtor lookups that list addresses and co-borrowers
 * rather than filings (endpoints 6 and 7). Both read aggregates the loader
 * keeps per debtor (src/db/load.ts, refreshStatements), so a page reads its
 * own rows off an index in list order, and the count reads the debtor's
 * entries: it grows with that debtor's addresses or co-borrowers, never
 * with the number of filings.
 */
import { and, count, desc, eq } from "drizzle-orm";
import { debtorAddresses, debtorLinks } from "../db/schema.ts";
import type { Db } from "./db.ts";
import type { PageWindow } from "./filings.ts";

/** Endpoint 6: the distinct addresses (by address key) of a debtor, in any state, most recently used first. */
export async function knownAddresses(db: Db, nameKey: string, { page, size }: PageWindow) {
  const ofDebtor = eq(debtorAddresses.nameKey, nameKey);
  const [rows, [counted]] = await db.batch([
    db
      .select()
      .from(debtorAddresses)
      .where(ofDebtor)
      .orderBy(desc(debtorAddresses.lastUsed), desc(debtorAddresses.addressKey))
      .limit(size)
      .offset((page - 1) * size),
    db.select({ total: count() }).from(debtorAddresses).where(ofDebtor),
  ]);
  return { rows, total: counted?.total ?? 0 };
}

/**
 * Endpoint 7: the other debtors named on the filings of a debtor in a
 * state, one entry per distinct name (match key) and address, most recent
 * co-filing first.
 */
export async function associatedDebtors(db: Db, q: { nameKey: string; state: string }, { page, size }: PageWindow) {
  const ofDebtor = and(eq(debtorLinks.nameKey, q.nameKey), eq(debtorLinks.filingState, q.state));
  const [rows, [counted]] = await db.batch([
    db
      .select()
      .from(debtorLinks)
      .where(ofDebtor)
      .orderBy(desc(debtorLinks.lastSeen), desc(debtorLinks.otherKey), desc(debtorLinks.otherAddressKey))
      .limit(size)
      .offset((page - 1) * size),
    db.select({ total: count() }).from(debtorLinks).where(ofDebtor),
  ]);
  return { rows, total: counted?.total ?? 0 };
}
