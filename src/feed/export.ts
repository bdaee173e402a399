/**
 * Reading a state's filings back out of the database, in id order, a page
 * at a time (two D1 round trips a page), as the FilingRecords they were
 * loaded from. lien.ts turns each into the line the importer reads.
 */
import { and, asc, between, eq, gt, sql } from "drizzle-orm";
import type { DrizzleD1Database } from "drizzle-orm/d1";
import type { FilingRecord } from "../db/records.ts";
import { amendments, debtorParties, filings, securedParties } from "../db/schema.ts";

type Db = DrizzleD1Database<any>;

const addressOf = (p: {
  street1: string;
  street2: string | null;
  city: string;
  state: string;
  zip: string;
  country: string | null;
}) => ({ street1: p.street1, street2: p.street2, city: p.city, state: p.state, zipCode: p.zip, country: p.country });

/** The filings of `state`, by id, `pageSize` at a time. */
export async function* exportFilings(db: Db, state: string, pageSize = 200): AsyncGenerator<FilingRecord> {
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
    if (page.length === 0) return;
    const first = page[0]!.id;
    const last = page.at(-1)!.id;
    const [debtors, secureds, changes] = await db.batch([
      db
        .select()
        .from(debtorParties)
        .where(and(between(debtorParties.filingId, first, last), eq(debtorParties.filingState, state)))
        .orderBy(debtorParties.filingId, debtorParties.position),
      db
        .select()
        .from(securedParties)
        .where(and(between(securedParties.filingId, first, last), eq(securedParties.filingState, state)))
        .orderBy(securedParties.filingId, securedParties.position),
      db
        .select()
        .from(amendments)
        .where(between(amendments.filingId, first, last))
        .orderBy(amendments.filingId, amendments.filedAt, amendments.number),
    ]);
    const records = new Map<number, FilingRecord>(
      page.map((f) => [
        f.id,
        {
          state: f.state,
          number: f.number,
          filedAt: f.filedAt,
          kind: f.kind,
          debtors: [],
          securedParties: [],
          amendments: [],
        },
      ]),
    );
    for (const d of debtors) {
      records.get(d.filingId)?.debtors.push({ name: d.name, type: d.type, label: d.industry, address: addressOf(d) });
    }
    for (const s of secureds) {
      records
        .get(s.filingId)
        ?.securedParties.push({ name: s.name, type: "Organization", label: s.category, address: addressOf(s) });
    }
    for (const a of changes) {
      records
        .get(a.filingId)
        ?.amendments.push({ number: a.number, filedAt: a.filedAt, kind: a.kind, description: a.description });
    }
    yield* records.values();
    if (page.length < pageSize) return;
    after = last;
  }
}
