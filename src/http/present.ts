/**
 * How rows become JSON: every response body field is built here, typed by
 * the schemas in responses.ts.
 */
import type { Context } from "hono";
import pkg from "../../package.json" with { type: "json" };
import { type ChangeItem, changeId } from "../changes/read.ts";
import type { FilingRows } from "../db/records.ts";
import type { DebtorParty } from "../db/schema.ts";
import { flat, joined } from "../domain/flat.ts";
import type { ChangedField } from "../domain/kinds.ts";
import { lienStatus } from "../domain/lifecycle.ts";
import { isStateCode, STATE_SEARCH_URLS } from "../domain/states.ts";
import type { FilingWithParties, ListedFilingWithParties, PageWindow } from "../queries/filings.ts";
import { type AppEnv, responseMetadata } from "./context.ts";
import type { LienA, LienB, LienFull } from "./responses.ts";

type Address = Pick<DebtorParty, "street1" | "city" | "state" | "zip" | "country">;

/** An address as envelope A shows it: no country, no map link. */
function addressA(a: Omit<Address, "country">) {
  return { street1: a.street1, city: a.city, state: a.state, zip_code: a.zip };
}

const MAPS_SEARCH = "https://www.google.com/maps/search/?api=1&query=";

/**
 * A map search for the parts the office recorded: `street, city, state ZIP`
 * (and the country when it is not the US); null when it recorded none.
 */
export function mapsUrl(a: Address): string | null {
  const region = a.state ? (a.zip ? `${a.state} ${a.zip}` : a.state) : a.zip;
  const query = commaJoined(commaJoined(commaJoined(a.street1, a.city), region), a.country === "US" ? null : a.country);
  return query ? joined(MAPS_SEARCH, encodeURIComponent(query)) : null;
}

/** `a, b`, or whichever of them is there (a page has a few hundred addresses: no arrays built for each). */
function commaJoined(a: string | null, b: string | null): string {
  return a ? (b ? `${a}, ${b}` : a) : b || "";
}

function addressB(a: Address) {
  return { ...addressA(a), country: a.country, maps_url: mapsUrl(a) };
}

/** A filing with its parties and amendments: the rows a loader writes, as the presenters read them. */
export type FilingItem = FilingRows;

function lienA({ filing, debtors, securedParties }: ListedFilingWithParties): LienA {
  return {
    initial_financing_number: filing.number,
    // Timestamps are stored in the API's form already (ISO 8601 UTC with Z).
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

function debtorB(d: ListedFilingWithParties["debtors"][number]) {
  return { name: d.name, type: d.type, category: d.industry ?? d.type, address: addressB(d) };
}

function securedB(s: ListedFilingWithParties["securedParties"][number]) {
  return {
    name: s.name,
    type: "Secured Party" as const,
    category: s.category ?? "Secured Party",
    address: addressB(s),
  };
}

function amendmentB(a: ListedFilingWithParties["amendments"][number]) {
  return {
    amendment_financing_number: a.number,
    amendment_financing_date: a.filedAt,
    amendment_financing_type_description: a.description,
  };
}

function lienB(item: ListedFilingWithParties, today: string, withAmendments: boolean): LienB {
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

/**
 * The full filing of the public lookup (`GET /filings`): envelope B's lien with
 * what the office recorded beyond it, and each amendment's kind. Exports
 * write the same object (src/feed/export.ts).
 */
export function lienFull(item: FilingWithParties, today: string): LienFull {
  const { filing } = item;
  return {
    ...lienB(item, today, false),
    amendments: [...item.amendments].sort(byFilingTime).map((a) => ({
      ...amendmentB(a),
      amendment_kind: a.kind,
      amendment_lapse_date: a.lapseDate,
      amendment_collateral: a.collateral,
    })),
    filing_kind: filing.kind,
    lapse_date_source: filing.lapseSource,
    filing_office: filing.filingOffice,
    collateral: filing.collateral,
  };
}

/** Amendments in filing order, ties by number (as the database lists them). */
function byFilingTime(a: { filedAt: string; number: string }, b: { filedAt: string; number: string }) {
  if (a.filedAt !== b.filedAt) return a.filedAt < b.filedAt ? -1 : 1;
  return a.number < b.number ? -1 : a.number > b.number ? 1 : 0;
}

export function terminatedFiling({ filing, debtors, securedParties }: ListedFilingWithParties) {
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

const emptyAddress = { street1: null, city: null, state: null, zip_code: null };

/** A known address (GET /debtors/addresses): envelope A's address with street2, part of what tells addresses apart. */
export function knownAddress(a: Omit<Address, "country"> & { street2: string | null }) {
  const { street1, city, state, zip_code } = addressA(a);
  return { street1, street2: a.street2, city, state, zip_code };
}

export function associatedDebtor(r: {
  name: string;
  street1: string | null;
  street2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
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

/** `next_cursor`, present only when another page follows. */
const continuation = (next: string | undefined) => (next === undefined ? {} : { next_cursor: next });

/** Envelope A: counted pages; `next` is the cursor of the page after, if any. */
export function envelopeA(c: Context<AppEnv>, { page, size }: PageWindow, total: number, next?: string) {
  return {
    pagination: {
      current_page: page,
      total_pages: Math.ceil(total / size),
      page_size: size,
      total_results: total,
      ...continuation(next),
    },
    response_metadata: responseMetadata(c),
  };
}

/** Envelope B: open-ended pages with data freshness and version. */
function envelopeB(
  c: Context<AppEnv>,
  { page, size }: PageWindow,
  hasMore: boolean,
  dataLoadedAt: string | null,
  next: string | undefined,
) {
  return {
    response_metadata: {
      page,
      page_size: size,
      next_page: hasMore,
      ...continuation(next),
      ...responseMetadata(c),
      data_source_last_updated: dataLoadedAt,
      api_version: pkg.version,
    },
  };
}

/** A counted page of filings as an envelope-A body. */
export function lienPageA(
  c: Context<AppEnv>,
  window: PageWindow,
  { items, total }: { items: ListedFilingWithParties[]; total: number },
  next: string | undefined,
) {
  return { ucc_liens: items.map(lienA), ...envelopeA(c, window, total, next) };
}

interface OpenPage<T = ListedFilingWithParties> {
  items: T[];
  hasMore: boolean;
  dataLoadedAt: string | null;
}

/** An open-ended page of filings as an envelope-B body; lapse status is as of the request's day. */
export function lienPageB(
  c: Context<AppEnv>,
  window: PageWindow,
  { items, hasMore, dataLoadedAt }: OpenPage,
  withAmendments: boolean,
  next: string | undefined,
) {
  const today = c.get("now").toISOString().slice(0, 10);
  return {
    ucc_liens: items.map((i) => lienB(i, today, withAmendments)),
    ...envelopeB(c, window, hasMore, dataLoadedAt, next),
  };
}

/** A page of the public lookup (`GET /filings`): envelope B of full filings. */
export function lienPageFull(
  c: Context<AppEnv>,
  window: PageWindow,
  { items, hasMore, dataLoadedAt }: OpenPage<FilingWithParties>,
  next: string | undefined,
) {
  const today = c.get("now").toISOString().slice(0, 10);
  return {
    ucc_liens: items.map((i) => lienFull(i, today)),
    ...envelopeB(c, window, hasMore, dataLoadedAt, next),
  };
}

/**
 * One change of the change feed: what happened, and the filing as it stands
 * now (envelope B, with amendments). Also a webhook's `data` (src/webhooks/deliver.ts).
 */
export function change(item: ChangeItem, today: string) {
  const { filing } = item.filing;
  const amendment =
    item.amendment === null ? undefined : item.filing.amendments.find((a) => a.number === item.amendment);
  return {
    id: flat(changeId(item)),
    type: item.type,
    recorded_at: item.recordedAt,
    occurred_at: item.occurredAt,
    jurisdiction_state: filing.state,
    initial_financing_number: filing.number,
    ...(amendment ? { amendment: { ...amendmentB(amendment), amendment_kind: amendment.kind } } : {}),
    ...(item.changedFields ? { changed_fields: item.changedFields.split("|").map(flat) as ChangedField[] } : {}),
    lien: lienB(item.filing, today, true),
  };
}

/** A page of the change feed. */
export function changePageBody(
  c: Context<AppEnv>,
  page: { changes: ChangeItem[]; hasMore: boolean; dataLoadedAt: string | null },
  nextCursor: string,
) {
  const today = c.get("now").toISOString().slice(0, 10);
  return {
    changes: page.changes.map((item) => change(item, today)),
    response_metadata: {
      next_cursor: nextCursor,
      has_more: page.hasMore,
      ...responseMetadata(c),
      data_source_last_updated: page.dataLoadedAt,
      api_version: pkg.version,
    },
  };
}

/** The states list (GET /states). */
export function statesBody(
  c: Context<AppEnv>,
  states: {
    state: string;
    filings: number;
    activeFilings: number;
    lastLoadedAt: string | null;
    dataThrough: string | null;
    backfillBeganAt: string | null;
    backfilledAt: string | null;
  }[],
) {
  return {
    states: states.map((s) => ({
      state: s.state,
      filings: s.filings,
      active_filings: s.activeFilings,
      last_loaded_at: s.lastLoadedAt,
      data_through: s.dataThrough,
      backfill_began_at: s.backfillBeganAt,
      backfilled_at: s.backfilledAt,
    })),
    response_metadata: { ...responseMetadata(c), api_version: pkg.version },
  };
}
