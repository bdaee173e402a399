/**
 * How rows become JSON: every response body field is built here, typed by
 * the schemas in responses.ts.
 */
import type { Context } from "hono";
import { version } from "../../package.json";
import type { Amendment, DebtorParty, SecuredParty } from "../db/schema.ts";
import { lienStatus } from "../domain/lifecycle.ts";
import { isStateCode, STATE_SEARCH_URLS } from "../domain/states.ts";
import type { FilingWithParties, PageWindow } from "../queries/filings.ts";
import { type AppEnv, responseMetadata } from "./context.ts";
import type { LienA, LienB } from "./responses.ts";

type Address = Pick<DebtorParty, "street1" | "city" | "state" | "zip" | "country">;

/** Timestamps are stored in the API's form already (ISO 8601 UTC with Z). */
function addressA(a: Address) {
  return { street1: a.street1, city: a.city, state: a.state, zip_code: a.zip };
}

function mapsUrl(a: Address): string {
  const query = `${a.street1}, ${a.city}, ${a.state} ${a.zip}`;
  return `https://www.google.com/maps/search/?api=1&query=${encodeURIComponent(query)}`;
}

function addressB(a: Address) {
  return { ...addressA(a), country: a.country, maps_url: mapsUrl(a) };
}

export function lienA({ filing, debtors, securedParties }: FilingWithParties): LienA {
  return {
    initial_financing_number: filing.number,
    initial_financing_date: filing.filedAt,
    jurisdiction_state: filing.state,
    involved_parties: {
      // Always a string: without an industry, the party's kind, as envelope B's `category` says.
      debtor_parties: debtors.map((d) => ({
        name: d.name,
        debtor_industry: d.industry ?? d.type,
        address: addressA(d),
      })),
      secured_parties: securedParties.map((s) => ({ name: s.name, address: addressA(s) })),
    },
  };
}

function debtorB(d: DebtorParty) {
  return { name: d.name, type: d.type, category: d.industry ?? d.type, address: addressB(d) };
}

function securedB(s: SecuredParty) {
  return {
    name: s.name,
    type: "Secured Party" as const,
    category: s.category ?? "Secured Party",
    address: addressB(s),
  };
}

function amendmentB(a: Amendment) {
  return {
    amendment_financing_number: a.number,
    amendment_financing_date: a.filedAt,
    amendment_financing_type_description: a.description,
  };
}

export function lienB(item: FilingWithParties, today: string, withAmendments: boolean): LienB {
  const { filing } = item;
  return {
    initial_financing_number: filing.number,
    initial_financing_date: filing.filedAt,
    estimated_lien_lapse_date: filing.lapseDate,
    estimated_lien_status: lienStatus(filing, today),
    jurisdiction_state: filing.state,
    search_url: isStateCode(filing.state) ? STATE_SEARCH_URLS[filing.state] : "",
    involved_parties: {
      debtor_parties: item.debtors.map(debtorB),
      secured_parties: item.securedParties.map(securedB),
    },
    ...(withAmendments ? { amendments: item.amendments.map(amendmentB) } : {}),
  };
}

export function terminatedFiling({ filing, debtors, securedParties }: FilingWithParties) {
  const debtor = debtors[0];
  const secured = securedParties[0];
  return {
    initial_financing_number: filing.number,
    initial_financing_date: filing.filedAt,
    termination_date: filing.terminatedAt ?? "",
    debtor: { name: debtor?.name ?? "", address: debtor ? addressA(debtor) : emptyAddress },
    secured_party: { name: secured?.name ?? "", address: secured ? addressA(secured) : emptyAddress },
  };
}

const emptyAddress = { street1: "", city: "", state: "", zip_code: "" };

export function knownAddress(a: Omit<Address, "country">) {
  return addressA({ ...a, country: null });
}

export function associatedDebtor(r: {
  name: string;
  street1: string;
  street2: string | null;
  city: string;
  state: string;
  zip: string;
}) {
  return {
    debtor_name: r.name,
    address: {
      street_address_1: r.street1,
      street_address_2: r.street2,
      city: r.city,
      state: r.state,
      postal_code: r.zip,
    },
  };
}

export function similarDebtor(r: { name: string; state: string; filingCount: number; score: number }) {
  return { debtor_name: r.name, debtor_state: r.state, filing_count: r.filingCount, score: r.score };
}

/** Envelope A: counted pages. */
export function envelopeA(c: Context<AppEnv>, page: number, size: number, total: number) {
  return {
    pagination: {
      current_page: page,
      total_pages: Math.ceil(total / size),
      page_size: size,
      total_results: total,
    },
    response_metadata: responseMetadata(c),
  };
}

/** Envelope B: open-ended pages with data freshness and version. */
export function envelopeB(
  c: Context<AppEnv>,
  page: number,
  size: number,
  hasMore: boolean,
  dataLoadedAt: string | null,
) {
  return {
    response_metadata: {
      page,
      page_size: size,
      next_page: hasMore,
      ...responseMetadata(c),
      data_source_last_updated: dataLoadedAt,
      api_version: version,
    },
  };
}

/** A counted page of filings as an envelope-A body. */
export function lienPageA(
  c: Context<AppEnv>,
  { page, size }: PageWindow,
  { items, total }: { items: FilingWithParties[]; total: number },
) {
  return { ucc_liens: items.map(lienA), ...envelopeA(c, page, size, total) };
}

/** An open-ended page of filings as an envelope-B body; lapse status is as of the request's day. */
export function lienPageB(
  c: Context<AppEnv>,
  { page, size }: PageWindow,
  { items, hasMore, dataLoadedAt }: { items: FilingWithParties[]; hasMore: boolean; dataLoadedAt: string | null },
  withAmendments: boolean,
) {
  const today = c.get("now").toISOString().slice(0, 10);
  return {
    ucc_liens: items.map((i) => lienB(i, today, withAmendments)),
    ...envelopeB(c, page, size, hasMore, dataLoadedAt),
  };
}
