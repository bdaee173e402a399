/**
 * Reading a state's filings back out of the database, in id order, a page
 * at a time (two D1 round trips a page), and writing each as a feed line:
 * the public lookup's full filing (GET /filings, built by the API's own
 * presenter) plus what the API does not show and a reload needs: each
 * address's `street2`, and each secured party's own `type` (Organization
 * or Individual, where the API lists the role, "Secured Party"). Reading
 * such a line back (schema.ts) gives the same rows, so exports round-trip.
 */
import { and, asc, between, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import { securedPartiesWhere } from "../db/lenders.ts";
import { type FilingRecord, toRows } from "../db/records.ts";
import { amendments, debtorParties, filings, securedParties } from "../db/schema.ts";
import { type FilingItem, lienFull } from "../http/present.ts";

/** The filings of `state`, by id, `pageSize` at a time, as stored. */
export async function* exportFilings(db: Db, state: string, pageSize = 200): AsyncGenerator<FilingItem> {
  let after = 0;
  for (;;) {
    // `+state` keeps SQLite off the state indexes: walking the primary key
    // from `after` reads each page's rows once, in id order, however many
    // filings the state has.
    const page = await db
      .select()
      .from(filings)
      .where(and(sql`+${filings.state} = ${state}`, gt(filings.id, after)))
      .orderBy(asc(filings.id))
      .limit(pageSize);
    const first = page[0]?.id;
    const last = page.at(-1)?.id;
    if (first === undefined || last === undefined) return;
    const [debtors, secureds, changes] = await db.batch([
      db
        .select()
        .from(debtorParties)
        .where(and(between(debtorParties.filingId, first, last), eq(debtorParties.filingState, state)))
        .orderBy(debtorParties.filingId, debtorParties.position),
      securedPartiesWhere(
        db,
        and(between(securedParties.filingId, first, last), eq(securedParties.filingState, state)),
      ),
      db
        .select()
        .from(amendments)
        .where(between(amendments.filingId, first, last))
        .orderBy(amendments.filingId, amendments.filedAt, amendments.number),
    ]);
    const items = new Map<number, FilingItem>(
      page.map(({ lenders: _, ...filing }) => [filing.id, { filing, debtors: [], securedParties: [], amendments: [] }]),
    );
    for (const d of debtors) items.get(d.filingId)?.debtors.push(d);
    for (const s of secureds) items.get(s.filingId)?.securedParties.push(s);
    for (const a of changes) items.get(a.filingId)?.amendments.push(a);
    yield* items.values();
    if (page.length < pageSize) return;
    after = last;
  }
}

/** The feed line of a stored filing, with lapse status as of `today` (YYYY-MM-DD). */
export function feedLine(item: FilingItem, today: string) {
  const lien = lienFull(item, today);
  const withStreet2 = <P extends { address: object }>(parties: P[], rows: { street2: string | null }[]) =>
    parties.map((p, i) => ({ ...p, address: { ...p.address, street2: rows[i]?.street2 ?? null } }));
  const secured = withStreet2(lien.involved_parties.secured_parties, item.securedParties);
  return {
    ...lien,
    involved_parties: {
      debtor_parties: withStreet2(lien.involved_parties.debtor_parties, item.debtors),
      secured_parties: secured.map((p, i) => ({ ...p, type: item.securedParties[i]?.type ?? p.type })),
    },
  };
}

export type FeedLine = ReturnType<typeof feedLine>;

/** The feed line of a record, as it would be exported once loaded. */
export function lienLine(record: FilingRecord, today: string): FeedLine {
  return feedLine(toRows(record, 0), today);
}
