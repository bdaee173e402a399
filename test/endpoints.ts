/**
 * The endpoint registry: every path the Worker answers, with what the
 * cross-cutting checks need to call it. The tests (http, contract, fuzz,
 * query-plans, bounded-work, docs-examples), the load test and the benchmark
 * all read their endpoint lists from here, and test/endpoints.test.ts fails
 * when the app has a route this file lacks (or the reverse), or when an
 * entry's parameters, access or scope disagree with the OpenAPI document.
 * A new endpoint therefore cannot skip a check: add it here, with samples
 * for each data set below, and every check covers it.
 *
 * Path and access come from the route definitions themselves. Plain data
 * only (no Workers-only imports): scripts run this under Node.
 */
import type { FilingRecord, PartyRecord } from "../src/db/records.ts";
import { INDUSTRIES } from "../src/domain/industries.ts";
import { isoSeconds } from "../src/domain/time.ts";
import { reportRoute } from "../src/report/route.ts";
import {
  debtorAddressesRoute,
  debtorAssociatedRoute,
  debtorSearchRoute,
  debtorSimilarRoute,
} from "../src/routes/debtors.ts";
import {
  filingLookupRoute,
  recentByPostalCodeRoute,
  recentByStateRoute,
  recentlyTerminatedRoute,
} from "../src/routes/filings.ts";
import { changesRoute, lapsingRoute, statesRoute } from "../src/routes/monitoring.ts";
import { recentBySecuredPartyRoute } from "../src/routes/secureds.ts";

/**
 * Which filing states a request reads (issue 13: a state's data lives in one
 * shard):
 * - "state": `state` is required; the request reads that state only;
 * - "optional": `state` is optional; with it one state, without it all;
 * - "all": the request spans states (no `state` parameter).
 */
type Scope = "state" | "optional" | "all";

/** The busiest values of a data set, from which the benchmark builds its requests (scripts/bench.ts). */
export interface DataPicks {
  states: string[];
  zips: string[];
  lenders: { name: string; state: string }[];
  debtors: { name: string; state: string }[];
  /** Debtors with the most distinct co-debtors in a state (the busiest debtors often have none). */
  linked: { name: string; state: string }[];
  numbers: { number: string; state: string }[];
}

type LookupRoute =
  | typeof recentByStateRoute
  | typeof recentByPostalCodeRoute
  | typeof recentlyTerminatedRoute
  | typeof filingLookupRoute
  | typeof recentBySecuredPartyRoute
  | typeof debtorSearchRoute
  | typeof debtorAddressesRoute
  | typeof debtorAssociatedRoute
  | typeof debtorSimilarRoute
  | typeof changesRoute
  | typeof lapsingRoute
  | typeof statesRoute
  | typeof reportRoute;

/** A documented lookup (a route in the OpenAPI document). */
export interface Lookup {
  route: LookupRoute;
  path: string;
  /** "key": needs an API key; "public": open, limited per client address. */
  access: "key" | "public";
  scope: Scope;
  /** Valid values of every query parameter but `page`, including odd spellings (fuzz starts from these). */
  params: Record<string, string[]>;
  /** Requests that answer a non-empty list over sampleFilings(); the first is the plain one. */
  sample: string[];
  /** Every filter combination, answered 200 on any data (query plans). */
  variants: string[];
  /** Requests over test/dense.ts's data (bounded work). */
  dense: string[];
  /** Requests that find data in `npm run seed`'s default data (load test). */
  seeded: string[];
  /** The benchmark's query mix, built from the data's busiest values. */
  bench(data: DataPicks): string[];
}

/** A path the Worker serves that is not a lookup: the index, the document, its reference page and the console. */
export interface StaticEndpoint {
  path: string;
  access: "static";
}

const enc = encodeURIComponent;

/**
 * A change-feed cursor at the start of every shard (`{"p":{}}`, sealed as
 * src/http/cursor.ts seals it): a valid `cursor` that needs no request.
 */
const START_CURSOR = "eyJwIjp7fX0.1XiAJjvvbB-6";

/** A day `days` from today (UTC), YYYY-MM-DD. */
const dayFromNow = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

function lookup(route: LookupRoute, entry: Omit<Lookup, "route" | "path" | "access">): Lookup {
  return { route, path: route.path, access: route.security?.length ? "key" : "public", ...entry };
}

export const LOOKUPS: Lookup[] = [
  lookup(recentByStateRoute, {
    scope: "state",
    params: { state: ["CA", "ny"], industry: ["Manufacturing", "real estate,Equipment"] },
    sample: ["/filings/recent-by-state?state=CA"],
    variants: [
      "/filings/recent-by-state?state=CA",
      "/filings/recent-by-state?state=CA&industry=Manufacturing,Real%20Estate&page=3",
      "/filings/recent-by-state?state=CA&industry=Manufacturing",
      // Seven industries: more index ranges than one compound SELECT may hold.
      `/filings/recent-by-state?state=CA&industry=${enc(INDUSTRIES.slice(0, 7).join(","))}`,
    ],
    dense: [
      "/filings/recent-by-state?state=CA",
      // Fifteen industries: more index ranges than D1 merges in one compound SELECT.
      `/filings/recent-by-state?state=CA&industry=${enc(INDUSTRIES.join(","))}`,
      "/filings/recent-by-state?state=CA&industry=Manufacturing",
      `/filings/recent-by-state?state=CA&industry=${enc("Manufacturing,Equipment")}`,
      // test/dense.ts's three industries.
      `/filings/recent-by-state?state=CA&industry=${enc("Manufacturing,Retail & E-commerce,Equipment")}`,
      `/filings/recent-by-state?state=CA&industry=${enc("Energy & Utilities")}`,
      "/filings/recent-by-state?state=CA&industry=Agriculture%20%26%20Farming",
    ],
    seeded: [
      "/filings/recent-by-state?state=CA",
      "/filings/recent-by-state?state=TX&industry=Manufacturing,Food%20%26%20Beverage&page=2",
    ],
    bench: (d) =>
      d.states.flatMap((s) => [
        `/filings/recent-by-state?state=${s}`,
        `/filings/recent-by-state?state=${s}&industry=${enc("Manufacturing,Food & Beverage")}`,
        `/filings/recent-by-state?state=${s}&industry=${enc("Energy & Utilities")}`,
        `/filings/recent-by-state?state=${s}&industry=${enc("Equipment,Real Estate,Health & Wellness,Automotive Services & Sales")}`,
      ]),
  }),
  lookup(recentByPostalCodeRoute, {
    scope: "all",
    params: { postal_code: ["94107", "94107-1234"], industry: ["Equipment"], envelope: ["a", "B"] },
    sample: [
      "/filings/recent-by-postal-code?postal_code=94107",
      "/filings/recent-by-postal-code?postal_code=94107&envelope=b",
    ],
    variants: [
      "/filings/recent-by-postal-code?postal_code=94107",
      "/filings/recent-by-postal-code?postal_code=94107&industry=Manufacturing&envelope=b",
    ],
    dense: [
      `/filings/recent-by-postal-code?postal_code=94107&industry=${enc(INDUSTRIES.join(","))}`,
      "/filings/recent-by-postal-code?postal_code=94107",
      "/filings/recent-by-postal-code?postal_code=94107-1234&industry=Equipment",
      `/filings/recent-by-postal-code?postal_code=94110&industry=${enc("Manufacturing,Retail & E-commerce")}&envelope=b`,
    ],
    seeded: [
      "/filings/recent-by-postal-code?postal_code=75210",
      "/filings/recent-by-postal-code?postal_code=14222&envelope=b",
    ],
    bench: (d) =>
      d.zips.flatMap((z) => [
        `/filings/recent-by-postal-code?postal_code=${z}`,
        `/filings/recent-by-postal-code?postal_code=${z}&envelope=b&industry=Equipment`,
        `/filings/recent-by-postal-code?postal_code=${z}&industry=${enc("Retail & E-commerce,Manufacturing")}`,
      ]),
  }),
  lookup(recentBySecuredPartyRoute, {
    scope: "state",
    params: {
      name: ["first test", "Wells Fargo"],
      state: ["CA"],
      borrower_type: ["Organization", "individual"],
      envelope: ["a", "b"],
    },
    sample: [
      "/secureds/recent-by-secured-party?name=first%20test&state=CA",
      "/secureds/recent-by-secured-party?name=first%20test&state=CA&envelope=a",
    ],
    variants: [
      "/secureds/recent-by-secured-party?name=first%20test&state=CA",
      "/secureds/recent-by-secured-party?name=first&state=CA&borrower_type=Individual&envelope=a",
      "/secureds/recent-by-secured-party?name=first&state=CA&borrower_type=Organization&envelope=b&page=2",
    ],
    dense: [
      "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA",
      "/secureds/recent-by-secured-party?name=wells%20fargo%20bank&state=CA&envelope=a",
      "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA&borrower_type=Individual&envelope=a",
      "/secureds/recent-by-secured-party?name=wells&state=CA&borrower_type=Organization",
    ],
    seeded: [
      "/secureds/recent-by-secured-party?name=wells%20fargo&state=CA",
      "/secureds/recent-by-secured-party?name=corporation%20service&state=NY&borrower_type=Organization&envelope=a",
    ],
    bench: (d) =>
      d.lenders.flatMap((l) => [
        `/secureds/recent-by-secured-party?name=${enc(l.name)}&state=${l.state}`,
        `/secureds/recent-by-secured-party?name=${enc(l.name)}&state=${l.state}&borrower_type=Individual&envelope=a`,
        `/secureds/recent-by-secured-party?name=${enc(l.name)}&state=${l.state}&borrower_type=Organization`,
      ]),
  }),
  lookup(recentlyTerminatedRoute, {
    scope: "state",
    params: { state: ["CA", "TX"] },
    sample: ["/filings/recently-terminated?state=CA"],
    variants: ["/filings/recently-terminated?state=CA"],
    dense: ["/filings/recently-terminated?state=CA"],
    seeded: ["/filings/recently-terminated?state=NY"],
    bench: (d) => d.states.map((s) => `/filings/recently-terminated?state=${s}`),
  }),
  lookup(debtorSearchRoute, {
    scope: "state",
    params: { name: ["Acme Widgets LLC", "The Acme Co., Inc."], state: ["CA"] },
    sample: ["/debtors/search?name=contract&state=CA"],
    variants: [
      "/debtors/search?name=Acme%20Widgets&state=CA",
      // Individual readings: exact keys, first-name ranges, an initial with a middle-name rule.
      "/debtors/search?name=John%20Allen%20Smith&state=CA",
      "/debtors/search?name=John%20Smith&state=CA",
      "/debtors/search?name=Smith,%20J%20A&state=CA",
    ],
    dense: [
      "/debtors/search?name=Busy%20Borrower&state=CA",
      // A busy individual ("Owner 3" is on one filing in 35), by full first name and by initial.
      "/debtors/search?name=Owner%203&state=CA",
      "/debtors/search?name=3,%20O&state=CA",
    ],
    seeded: ["/debtors/search?name=Sanchez%20%26%20Sons%20Cafe&state=NY"],
    bench: (d) => d.debtors.map((x) => `/debtors/search?name=${enc(x.name)}&state=${x.state}`),
  }),
  lookup(debtorAddressesRoute, {
    scope: "all",
    params: { name: ["Acme Widgets"] },
    sample: ["/debtors/addresses?name=contract"],
    variants: ["/debtors/addresses?name=Acme%20Widgets", "/debtors/addresses?name=J%20Smith"],
    dense: ["/debtors/addresses?name=Busy%20Borrower", "/debtors/addresses?name=Owner%203"],
    seeded: ["/debtors/addresses?name=Sanchez%20%26%20Sons%20Cafe"],
    bench: (d) => d.debtors.map((x) => `/debtors/addresses?name=${enc(x.name)}`),
  }),
  lookup(debtorAssociatedRoute, {
    scope: "state",
    params: { name: ["Acme Widgets"], state: ["CA"] },
    sample: ["/debtors/associated/?name=contract&state=CA"],
    variants: ["/debtors/associated/?name=Acme%20Widgets&state=CA", "/debtors/associated/?name=Smith,%20John&state=CA"],
    dense: ["/debtors/associated/?name=Busy%20Borrower&state=CA"],
    // With a trailing slash: the same endpoint.
    seeded: ["/debtors/associated/?name=Sanchez%20%26%20Sons%20Cafe&state=NY"],
    bench: (d) => d.linked.map((x) => `/debtors/associated/?name=${enc(x.name)}&state=${x.state}`),
  }),
  lookup(debtorSimilarRoute, {
    scope: "optional",
    params: { name: ["Acme Widgts", "widgets acme"], state: ["CA", "nv"] },
    sample: ["/debtors/search-similar?name=Contrakt%20Co"],
    variants: [
      "/debtors/search-similar?name=Acme%20Widgts",
      "/debtors/search-similar?name=Widgets%20Acme%20Inc&state=CA",
      "/debtors/search-similar?name=Allen%2C%20Nancy%20Q.&state=CA",
      "/debtors/search-similar?name=Acme%20Mfg%20Intl%20Svcs",
      // Five words: 26 sound keys, nested compound SELECTs.
      "/debtors/search-similar?name=Golden%20Gate%20Machine%20Works%20Tool%20Supply&state=CA",
      // One word: a person-key range per reading as a first and last name run together.
      "/debtors/search-similar?name=Johnsmith",
      "/debtors/search-similar?name=Smithjohn&state=CA",
    ],
    dense: [
      "/debtors/search-similar?name=Busy%20Borower",
      "/debtors/search-similar?name=Borrower%20Busy&state=CA",
      "/debtors/search-similar?name=Ownr%203&state=CA",
      "/debtors/search-similar?name=Busyborrower",
    ],
    seeded: [
      "/debtors/search-similar?name=Sanches%20and%20Son%20Cafe",
      "/debtors/search-similar?name=Prarie%20Bakery&state=CA",
    ],
    // The busiest debtors cut short, and a name with two typos of the most common words (issue 34).
    bench: (d) => [
      ...d.debtors.map((x) => `/debtors/search-similar?name=${enc(x.name.slice(0, -2))}`),
      "/debtors/search-similar?name=Jonson%20Holdngs",
    ],
  }),
  lookup(filingLookupRoute, {
    scope: "optional",
    params: { initial_financing_number: ["T00000001", "U-123"], state: ["CA"] },
    sample: ["/filings?initial_financing_number=C-1"],
    variants: ["/filings?initial_financing_number=T00000001", "/filings?initial_financing_number=T00000001&state=CA"],
    dense: ["/filings?initial_financing_number=D0000042"],
    seeded: ["/filings?initial_financing_number=00001434&state=OH"],
    bench: (d) => d.numbers.map((n) => `/filings?initial_financing_number=${enc(n.number)}&state=${n.state}`),
  }),
  lookup(changesRoute, {
    scope: "optional",
    params: {
      state: ["CA", "ny"],
      types: ["filing.created", "filing.terminated,filing.assigned"],
      since: ["2026-01-01T00:00:00Z", "2026-06-01T09:30:00+02:00"],
      debtor_name: ["Contract Co", "Carla Contract"],
      secured_party: ["first test"],
      limit: ["1", "100"],
    },
    sample: ["/filings/changes?limit=100", "/filings/changes?state=CA&types=filing.created"],
    variants: [
      "/filings/changes?limit=100",
      "/filings/changes?state=CA",
      `/filings/changes?cursor=${START_CURSOR}&limit=10`,
      "/filings/changes?since=2026-01-01T00:00:00Z",
      "/filings/changes?types=filing.created,filing.terminated",
      "/filings/changes?state=CA&types=filing.created,filing.continued,filing.terminated,filing.assigned,filing.reinstated,filing.amended,filing.updated,filing.lapsed",
      "/filings/changes?debtor_name=Contract%20Co&state=CA",
      "/filings/changes?debtor_name=John%20Smith&types=filing.created",
      "/filings/changes?secured_party=first%20test&state=CA",
      "/filings/changes?secured_party=first%20test&types=filing.terminated",
    ],
    dense: [
      "/filings/changes?limit=20",
      "/filings/changes?state=CA&limit=20",
      "/filings/changes?state=CA&types=filing.terminated,filing.created&limit=20",
      // A party filter examines ten changes per change asked for.
      "/filings/changes?debtor_name=Owner%203&state=CA&limit=4",
      "/filings/changes?secured_party=wells%20fargo&state=CA&limit=4",
      "/filings/changes?debtor_name=Busy%20Borrower&secured_party=wells&types=filing.created&limit=4",
    ],
    seeded: ["/filings/changes?state=CA", "/filings/changes?types=filing.continued,filing.terminated"],
    bench: (d) =>
      d.states.flatMap((s) => [
        "/filings/changes?limit=100",
        `/filings/changes?state=${s}`,
        `/filings/changes?state=${s}&types=filing.created,filing.terminated`,
      ]),
  }),
  lookup(lapsingRoute, {
    scope: "state",
    params: {
      state: ["CA"],
      from: [dayFromNow(0)],
      to: [dayFromNow(180), dayFromNow(400)],
      secured_party: ["first test"],
      industry: ["Manufacturing"],
      envelope: ["a", "b"],
    },
    sample: ["/filings/lapsing?state=CA", "/filings/lapsing?state=CA&envelope=a"],
    variants: [
      "/filings/lapsing?state=CA",
      "/filings/lapsing?state=CA&envelope=a&page=2",
      `/filings/lapsing?state=CA&from=${dayFromNow(-30)}&to=${dayFromNow(30)}`,
      "/filings/lapsing?state=CA&industry=Manufacturing,Equipment",
      "/filings/lapsing?state=CA&industry=Manufacturing&envelope=a",
      "/filings/lapsing?state=CA&secured_party=first%20test",
      "/filings/lapsing?state=CA&secured_party=first%20test&envelope=a",
      "/filings/lapsing?state=CA&secured_party=first&industry=Manufacturing&envelope=a",
    ],
    dense: [
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}`,
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}&envelope=a`,
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}&industry=${enc("Manufacturing,Equipment")}`,
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}&secured_party=wells%20fargo`,
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}&secured_party=wells%20fargo&envelope=a`,
      // Counted from the lender's months under the industry (migration 0033), not its entries in the window.
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}&secured_party=wells%20fargo&industry=Manufacturing&envelope=a`,
      // By three industries, with the filings whose debtors hold three (migration 0034) as well.
      `/filings/lapsing?state=CA&to=${dayFromNow(2000)}&secured_party=wells%20fargo&industry=${enc("Manufacturing,Equipment,Real Estate")}&envelope=a`,
    ],
    seeded: ["/filings/lapsing?state=CA", "/filings/lapsing?state=TX&secured_party=wells%20fargo&envelope=a"],
    bench: (d) => [
      ...d.states.flatMap((s) => [
        `/filings/lapsing?state=${s}`,
        `/filings/lapsing?state=${s}&industry=Manufacturing&envelope=a`,
      ]),
      ...d.lenders.map(
        (l) => `/filings/lapsing?state=${l.state}&secured_party=${enc(l.name)}&industry=Manufacturing&envelope=a`,
      ),
    ],
  }),
  lookup(reportRoute, {
    scope: "optional",
    params: { name: ["Contract Co", "Carla Contract"], state: ["CA", "ca, ny"], format: ["json", "CSV"] },
    sample: ["/debtors/report?name=contract", "/debtors/report?name=Contract%20Co&state=CA"],
    variants: [
      "/debtors/report?name=Acme%20Widgets",
      "/debtors/report?name=Acme%20Widgets&state=CA",
      "/debtors/report?name=John%20Allen%20Smith&state=CA,NY",
      "/debtors/report?name=John%20Smith",
      "/debtors/report?name=Smith,%20J%20A&state=CA",
    ],
    dense: [
      "/debtors/report?name=Busy%20Borrower",
      "/debtors/report?name=Busy%20Borrower&state=CA",
      "/debtors/report?name=Owner%203&state=CA,NV,WA",
    ],
    seeded: [
      "/debtors/report?name=Sanchez%20%26%20Sons%20Cafe",
      "/debtors/report?name=Sanchez%20%26%20Sons%20Cafe&state=NY",
    ],
    bench: (d) =>
      d.debtors.flatMap((x) => [
        `/debtors/report?name=${enc(x.name)}`,
        `/debtors/report?name=${enc(x.name)}&state=${x.state}`,
      ]),
  }),
  lookup(statesRoute, {
    scope: "all",
    params: {},
    sample: ["/states"],
    variants: ["/states"],
    dense: ["/states"],
    seeded: ["/states"],
    bench: () => ["/states"],
  }),
];

const STATIC_ENDPOINTS: StaticEndpoint[] = [
  { path: "/", access: "static" },
  { path: "/openapi.json", access: "static" },
  { path: "/docs", access: "static" },
  { path: "/console", access: "static" },
];

export const ENDPOINTS: (Lookup | StaticEndpoint)[] = [...LOOKUPS, ...STATIC_ENDPOINTS];

/** The lookup whose path `url` calls (a trailing slash is the same path). */
export function lookupOf(url: string): Lookup | undefined {
  // With or without a trailing slash, on either side (the server takes both forms).
  const bare = (path: string) => path.replace(/(.)\/$/, "$1");
  const path = bare(new URL(url, "http://x").pathname);
  return LOOKUPS.find((e) => bare(e.path) === path);
}

/** Whether `url` reads one filing state ("state") or spans them ("all"). */
export function scopeOf(url: string): "state" | "all" {
  const scope = lookupOf(url)?.scope ?? "all";
  if (scope !== "optional") return scope;
  return new URL(url, "http://x").searchParams.has("state") ? "state" : "all";
}

const DAY = 86_400_000;

function party(name: string, over: Partial<PartyRecord> = {}): PartyRecord {
  const address = { street1: "1 Main St", city: "Springfield", state: "CA", zipCode: "94107" };
  return { name, type: "Organization", label: null, address, ...over };
}

/**
 * The data every `sample` request finds: one filing in CA, ten days old, at
 * ZIP 94107, with an organization and an individual debtor (co-borrowers),
 * a lender named "First Test Bank, N.A." and a recent termination; and one
 * of the same lender, filed nearly five years ago, that lapses in about 100
 * days.
 */
export function sampleFilings(now = Date.now()): FilingRecord[] {
  const daysAgo = (days: number) => isoSeconds(now - days * DAY);
  return [
    {
      state: "CA",
      number: "C-1",
      filedAt: daysAgo(10),
      kind: "standard",
      debtors: [party("Contract Co LLC", { label: "Manufacturing" }), party("Carla Contract", { type: "Individual" })],
      securedParties: [party("First Test Bank, N.A.", { label: "Bank" })],
      amendments: [
        { number: "C-1-A", filedAt: daysAgo(5), kind: "assignment", description: "Assignment" },
        { number: "C-1-T", filedAt: daysAgo(2), kind: "termination", description: "Termination" },
      ],
    },
    // Live, lapsing in about 100 days (/filings/lapsing): filed five years before that.
    {
      state: "CA",
      number: "C-2",
      filedAt: daysAgo(5 * 365 - 100),
      kind: "standard",
      debtors: [party("Lapsing Lumber LLC", { label: "Manufacturing" })],
      securedParties: [party("First Test Bank, N.A.", { label: "Bank" })],
      amendments: [],
    },
  ];
}
