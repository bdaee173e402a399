/**
 * A filing as a feed line: the envelope B lien the API returns (endpoint 9,
 * with amendments), plus `filing_kind` and each address's `street2`, which
 * the API does not show but a reload needs. Reading such a line back
 * (schema.ts) gives the same FilingRecord, so exports round-trip.
 */
import type { AddressRecord, FilingRecord, PartyRecord } from "../db/records.ts";
import { lapseDate, lienStatus, terminatedAt } from "../domain/lifecycle.ts";
import { isStateCode, STATE_SEARCH_URLS } from "../domain/states.ts";

function address(a: AddressRecord) {
  // As the API builds it (src/http/present.ts); tests compare the two.
  const query = `${a.street1}, ${a.city}, ${a.state} ${a.zipCode}`;
  return {
    street1: a.street1,
    street2: a.street2 ?? null,
    city: a.city,
    state: a.state,
    zip_code: a.zipCode,
    country: a.country ?? null,
    maps_url: `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(query)}`,
  };
}

const debtor = (p: PartyRecord) => ({
  name: p.name,
  type: p.type,
  category: p.label ?? p.type,
  address: address(p.address),
});

const secured = (p: PartyRecord) => ({
  name: p.name,
  type: "Secured Party" as const,
  category: p.label ?? "Secured Party",
  address: address(p.address),
});

/** The feed line of `record`, with lapse and status as of `today` (YYYY-MM-DD). */
export function lienLine(record: FilingRecord, today: string) {
  const lapse = lapseDate(record.kind, record.filedAt, record.amendments);
  const amendments = [...record.amendments].sort((a, b) =>
    a.filedAt === b.filedAt ? (a.number < b.number ? -1 : a.number > b.number ? 1 : 0) : a.filedAt < b.filedAt ? -1 : 1,
  );
  return {
    initial_financing_number: record.number,
    initial_financing_date: record.filedAt,
    estimated_lien_lapse_date: lapse,
    estimated_lien_status: lienStatus({ lapseDate: lapse, terminatedAt: terminatedAt(record.amendments) }, today),
    jurisdiction_state: record.state,
    search_url: isStateCode(record.state) ? STATE_SEARCH_URLS[record.state] : "",
    involved_parties: {
      debtor_parties: record.debtors.map(debtor),
      secured_parties: record.securedParties.map(secured),
    },
    amendments: amendments.map((a) => ({
      amendment_financing_number: a.number,
      amendment_financing_date: a.filedAt,
      amendment_financing_type_description: a.description,
    })),
    filing_kind: record.kind,
  };
}

export type LienLine = ReturnType<typeof lienLine>;
