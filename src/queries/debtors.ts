/**
 * Queries behind the debtor lookups that list addresses and co-borrowers
 * rather than filings (endpoints 6 and 7). Each page is one batch: the page
 * and the count of distinct entries.
 */
import { and, count, desc, eq, max, ne, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { debtorParties } from "../db/schema.ts";
import type { Db } from "./db.ts";
import type { PageWindow } from "./filings.ts";

/**
 * Endpoint 6: the distinct addresses (by address key) at which a debtor has
 * filed, in any state, most recently used first.
 */
export async function knownAddresses(db: Db, nameKey: string, { page, size }: PageWindow) {
  const matches = eq(debtorParties.nameKey, nameKey);
  const lastUsed = max(debtorParties.filedAt);
  // SQLite takes bare columns of a max() aggregate from the row holding the
  // max, so each address is shown as it was most recently filed.
  const distinctAddresses = db
    .select({
      lastUsed,
      street1: debtorParties.street1,
      city: debtorParties.city,
      state: debtorParties.state,
      zip: debtorParties.zip,
    })
    .from(debtorParties)
    .where(matches)
    .groupBy(debtorParties.addressKey);
  const [rows, [counted]] = await db.batch([
    distinctAddresses
      .orderBy(desc(lastUsed), debtorParties.addressKey)
      .limit(size)
      .offset((page - 1) * size),
    db
      .select({ total: sql<number>`count(distinct ${debtorParties.addressKey})` })
      .from(debtorParties)
      .where(matches),
  ]);
  return { rows, total: counted?.total ?? 0 };
}

/**
 * Endpoint 7: the other debtors named on the filings of a debtor in a
 * state, one entry per distinct name (match key) and address, most recent
 * co-filing first.
 */
export async function associatedDebtors(db: Db, q: { nameKey: string; state: string }, { page, size }: PageWindow) {
  const self = alias(debtorParties, "self");
  const other = debtorParties;
  const joined = and(eq(other.filingId, self.filingId), ne(other.nameKey, self.nameKey));
  const ofDebtor = and(eq(self.nameKey, q.nameKey), eq(self.filingState, q.state));
  const lastSeen = max(other.filedAt);
  const [rows, [counted]] = await db.batch([
    db
      .select({
        lastSeen,
        name: other.name,
        street1: other.street1,
        street2: other.street2,
        city: other.city,
        state: other.state,
        zip: other.zip,
      })
      .from(self)
      .innerJoin(other, joined)
      .where(ofDebtor)
      .groupBy(other.nameKey, other.addressKey)
      .orderBy(desc(lastSeen), other.nameKey, other.addressKey)
      .limit(size)
      .offset((page - 1) * size),
    db
      .select({ total: count() })
      .from(
        db
          .select({ one: sql`1` })
          .from(self)
          .innerJoin(other, joined)
          .where(ofDebtor)
          .groupBy(other.nameKey, other.addressKey)
          .as("entries"),
      ),
  ]);
  return { rows, total: counted?.total ?? 0 };
}
