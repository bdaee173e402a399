/**
 * Deterministic generator of realistic filings. The same seed, size and day
 * give the same data; dates are placed relative to `now`, so the "recent"
 * lookups always find filings whatever day the seed runs.
 *
 * What it models:
 * - businesses organized in a state (weighted by population), some filing
 *   often and some once, moving between addresses over the years and writing
 *   their legal ending differently from one filing to the next;
 * - owners who sign as individual co-debtors, and affiliated businesses, so
 *   co-borrowers recur; sole proprietors filing alone;
 * - lenders drawn from real secured-party names, weighted by how common;
 * - state-specific filing-number formats;
 * - continuations inside (and a few outside) the six-month window, lapses,
 *   terminations (some in the last 90 days), assignments and amendments;
 * - manufactured-home, public-finance and transmitting-utility filings;
 * - after those, from a stream of their own (so the filings above stay the
 *   same for the same seed), the shapes of real office data: state and
 *   federal tax liens and judgment liens with the office's lapse dates,
 *   foreign lenders (regions and postal codes as written), debtors without
 *   a ZIP, accented names, collateral text, and a revoked termination.
 */
import type { AmendmentRecord, FilingRecord, PartyRecord } from "../src/db/records.ts";
import { INDUSTRIES } from "../src/domain/industries.ts";
import type { FilingKind } from "../src/domain/kinds.ts";
import { lapseDate, shiftDate } from "../src/domain/lifecycle.ts";
import type { StateCode } from "../src/domain/states.ts";
import { isoSeconds as iso } from "../src/domain/time.ts";
import {
  ACCENTED_NAMES,
  AMENDMENT_DESCRIPTIONS,
  COLLATERAL,
  FOREIGN_LENDERS,
  GIVEN_NAMES,
  HOME_LENDERS,
  LEGAL_ENDINGS,
  LENDERS,
  type Lender,
  OTHER_INDUSTRIES,
  PLACE_WORDS,
  STATE_TAX_AGENCIES,
  STATES,
  STREETS,
  SURNAMES,
  TRADE_NOUNS,
} from "./data.ts";

const DAY = 86_400_000;
/** Share of filings placed in the last 90 days, so recent lists are never thin. */
const RECENT_SHARE = 0.1;
/** Filings span this many years back from today. */
const HISTORY_YEARS = 12;
/** Filings of real-office shapes added after the generated ones, per generated filing. */
const EXTRA_SHARE = 0.03;

/** mulberry32: a small, fast, seedable PRNG with good spread. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => next() < p;
  const weighted = <T>(xs: readonly T[], weight: (x: T) => number): T => {
    const total = xs.reduce((s, x) => s + weight(x), 0);
    let r = next() * total;
    for (const x of xs) {
      r -= weight(x);
      if (r < 0) return x;
    }
    return xs[xs.length - 1]!;
  };
  return { next, int, pick, chance, weighted };
}

type Rng = ReturnType<typeof prng>;

interface Business {
  name: string;
  industry: string;
  state: StateCode;
  /** Addresses over time, oldest first. */
  addresses: PartyRecord["address"][];
  owner: { name: string; address: PartyRecord["address"] } | null;
  affiliate: number | null;
}

const STATE_CODES = Object.keys(STATES) as StateCode[];

function address(rng: Rng, state: StateCode): PartyRecord["address"] {
  const [city, zip3] = rng.pick(STATES[state].cities);
  // A few ZIPs per city, so busy postal codes emerge.
  const zip = `${zip3}${String(rng.int(8) * 3 + 1).padStart(2, "0")}`;
  const zipCode = rng.chance(0.2) ? `${zip}-${String(rng.int(10_000)).padStart(4, "0")}` : zip;
  return {
    street1: `${1 + rng.int(9_899)} ${rng.pick(STREETS)}`,
    street2: rng.chance(0.15) ? `Suite ${100 + rng.int(400)}` : null,
    city,
    state,
    zipCode,
    country: rng.chance(0.7) ? "US" : null,
  };
}

function personName(rng: Rng): string {
  const middle = rng.chance(0.6) ? ` ${String.fromCharCode(65 + rng.int(26))}.` : "";
  return `${rng.pick(GIVEN_NAMES)}${middle} ${rng.pick(SURNAMES)}`;
}

function businessName(rng: Rng, industry: string): string {
  const noun = rng.pick(TRADE_NOUNS[industry as keyof typeof TRADE_NOUNS]);
  const r = rng.next();
  const stem =
    r < 0.4
      ? `${rng.pick(PLACE_WORDS)} ${noun}`
      : r < 0.65
        ? `${rng.pick(SURNAMES)} ${noun}`
        : r < 0.8
          ? `${rng.pick(SURNAMES)} & Sons ${noun}`
          : r < 0.92
            ? `${rng.pick(SURNAMES)} & ${rng.pick(SURNAMES)} ${noun}`
            : `The ${rng.pick(PLACE_WORDS)} ${noun}`;
  return withEnding(rng, stem);
}

function withEnding(rng: Rng, stem: string): string {
  const [ending] = rng.weighted(LEGAL_ENDINGS, ([, w]) => w);
  if (ending === "") return stem;
  return ending.startsWith(",") ? `${stem}${ending}` : `${stem} ${ending}`;
}

/** The same business as a filer might write it on another day. */
function variant(rng: Rng, name: string): string {
  const r = rng.next();
  if (r < 0.5) return name.toUpperCase();
  const stem = name.replace(/,?\s+(LLC|L\.L\.C\.|Inc\.|Incorporated|Corp\.|Corporation|Co\.|Company|LP|Ltd\.)$/, "");
  return withEnding(rng, stem);
}

/** Filing-number formats differ by state; numbers are opaque strings. */
function filingNumber(state: StateCode, filedAt: string, seq: number): string {
  const yyyy = filedAt.slice(0, 4);
  const yy = filedAt.slice(2, 4);
  const pad = (n: number, w: number) => String(n).padStart(w, "0");
  switch (state) {
    case "CA":
      return `U${yy}${pad(seq, 10)}`;
    case "TX":
    case "OK":
    case "LA":
      return `${yy}-${pad(seq, 10)}`;
    case "NY":
    case "NJ":
    case "PA":
      return `${filedAt.slice(0, 10).replaceAll("-", "")}${pad(seq, 6)}`;
    case "IL":
    case "MI":
    case "OH":
      return pad(seq, 8);
    case "FL":
    case "GA":
      return `${yyyy}${pad(seq, 8)}`;
    case "WA":
    case "OR":
      return `${yy}-${pad(seq, 7)}-${String.fromCharCode(65 + (seq % 26))}`;
    default:
      return `${yyyy}${pad(seq, 7)}`;
  }
}

/** A filing time: mostly spread over the years, a share in the last 90 days, in office hours. */
function filingTime(rng: Rng, now: number): number {
  const back = rng.chance(RECENT_SHARE) ? rng.next() * 89.5 * DAY : rng.next() * HISTORY_YEARS * 365 * DAY;
  const day = Math.floor((now - back) / DAY) * DAY;
  const t = day + (13 + rng.int(10)) * 3_600_000 + rng.int(3_600) * 1_000;
  return Math.min(t, now - 60_000);
}

/** Time `fraction` of the way between two instants. */
const between = (from: number, to: number, fraction: number) => from + Math.max(0, to - from) * fraction;

export interface GenerateOptions {
  /** Generated filings; EXTRA_SHARE more of real-office shapes follow them. */
  filings: number;
  seed: number;
  /** "Today" for the generated data, in ms. */
  now: number;
  /**
   * Every filing in this one state (a single-state benchmark: bench/), its
   * businesses drawn from the same names; otherwise states weighted by
   * population.
   */
  state?: StateCode | undefined;
}

/** The number of records generateFilings yields for `filings`. */
export function generatedCount(filings: number): number {
  return filings + Math.max(1, Math.round(filings * EXTRA_SHARE));
}

/** Yields generatedCount(`filings`) filing records, deterministically for the options. */
export function* generateFilings({ filings, seed, now, state: only }: GenerateOptions): Generator<FilingRecord> {
  const rng = prng(seed);
  // Amendments depend on how old a filing is on the day of the run, so they
  // draw from their own stream: who filed, where and with whom stays the
  // same whatever the day.
  const lifeRng = prng(seed ^ 0x5eed5eed);
  const businesses: Business[] = [];
  const businessCount = Math.max(10, Math.round(filings * 0.45));
  const names = new Set<string>();
  for (let i = 0; i < businessCount; i++) {
    const state = only ?? rng.weighted(STATE_CODES, (s) => STATES[s].weight);
    const industry = rng.chance(0.05) ? rng.pick(OTHER_INDUSTRIES) : rng.pick(INDUSTRIES);
    let name = businessName(rng, industry);
    // One state's millions of businesses outgrow the names a draw makes (about 3.5 million, most
    // of them two surnames): after a few taken, a place word goes before the name.
    for (let tries = 1; names.has(`${state}|${name}`); tries++) {
      name =
        only && tries > 8 ? `${rng.pick(PLACE_WORDS)} ${businessName(rng, industry)}` : businessName(rng, industry);
    }
    names.add(`${state}|${name}`);
    const moves = rng.chance(0.3) ? 1 + rng.int(2) : 0;
    businesses.push({
      name,
      industry,
      state,
      addresses: Array.from({ length: 1 + moves }, () => address(rng, state)),
      owner: rng.chance(0.45) ? { name: personName(rng), address: address(rng, state) } : null,
      affiliate: rng.chance(0.08) && i > 0 ? rng.int(i) : null,
    });
  }

  // Filings and amendments count separately (amendments from a higher
  // range), so a filing's number does not depend on the day of the run.
  const counters = new Map<string, number>();
  const numberer = (series: "filing" | "amendment", base: number) => (state: StateCode, filedAt: string) => {
    const seq = (counters.get(`${series}|${state}`) ?? 0) + 1;
    counters.set(`${series}|${state}`, seq);
    return filingNumber(state, filedAt, base + seq * 7);
  };
  const filingNumberFor = numberer("filing", 1_000);
  const amendmentNumberFor = numberer("amendment", 50_000_000);
  const history = HISTORY_YEARS * 365 * DAY;

  for (let i = 0; i < filings; i++) {
    // A skewed draw: a few businesses file often, most file once or twice.
    const business = businesses[Math.floor(rng.next() ** 1.5 * businesses.length)]!;
    const state = business.state;
    const filedMs = filingTime(rng, now);
    const filedAt = iso(filedMs);
    const age = Math.min(0.999, Math.max(0, 1 - (now - filedMs) / history));
    const at = business.addresses[Math.floor(age * business.addresses.length)]!;

    let kind: FilingKind = "standard";
    const debtors: PartyRecord[] = [];
    let lenders: Lender[] = [rng.weighted(LENDERS, (l) => l.weight)];
    const r = rng.next();
    if (r < 0.01) {
      kind = "manufactured_home";
      debtors.push({ name: personName(rng), type: "Individual", label: null, address: address(rng, state) });
      lenders = [rng.pick(HOME_LENDERS)];
    } else if (r < 0.08) {
      // A sole proprietor, filed under the owner's own name.
      debtors.push({ name: personName(rng), type: "Individual", label: business.industry, address: at });
    } else {
      if (business.industry === "Energy & Utilities" && rng.chance(0.15)) kind = "transmitting_utility";
      if (business.industry === "Real Estate" && rng.chance(0.03)) kind = "public_finance";
      const name = rng.chance(0.12) ? variant(rng, business.name) : business.name;
      debtors.push({ name, type: "Organization", label: business.industry, address: at });
      if (business.owner && rng.chance(0.55)) {
        debtors.push({ name: business.owner.name, type: "Individual", label: null, address: business.owner.address });
      }
      if (business.affiliate !== null && rng.chance(0.5)) {
        const aff = businesses[business.affiliate]!;
        debtors.push({ name: aff.name, type: "Organization", label: aff.industry, address: aff.addresses.at(-1)! });
      }
    }
    if (rng.chance(0.08)) lenders.push(rng.weighted(LENDERS, (l) => l.weight));
    const securedParties: PartyRecord[] = lenders.map((l) => ({
      name: l.name,
      type: "Organization",
      label: l.category,
      address: { street1: l.street1, city: l.city, state: l.state, zipCode: l.zip, country: "US" },
    }));

    const amendments = amendmentsFor(lifeRng, { kind, filedMs, now, state, nextNumber: amendmentNumberFor });
    yield { state, number: filingNumberFor(state, filedAt), filedAt, kind, debtors, securedParties, amendments };
  }

  const realRng = prng(seed ^ 0x1ea1da7a);
  const extraNumberFor = numberer("filing", 80_000_000);
  for (let i = generatedCount(filings) - filings; i > 0; i--) {
    yield realWorldFiling(realRng, { businesses, now, numberFor: extraNumberFor, amendmentNumberFor });
  }
}

const at = (r: Rng, text: string) => text.replace("{n}", String(10_000 + r.int(90_000)));

/**
 * A filing shaped like real office data: a state or federal tax lien or a
 * judgment lien with the office's own lapse date, or an equipment filing
 * with a foreign lender; some debtors have no ZIP or an accented name.
 */
function realWorldFiling(
  rng: Rng,
  ctx: {
    businesses: Business[];
    now: number;
    numberFor: (state: StateCode, filedAt: string) => string;
    amendmentNumberFor: (state: StateCode, filedAt: string) => string;
  },
): FilingRecord {
  const business = rng.pick(ctx.businesses);
  const state = business.state;
  const filedMs = filingTime(rng, ctx.now);
  const filedAt = iso(filedMs);
  const debtorAddress = { ...business.addresses.at(-1)! };
  if (rng.chance(0.25)) debtorAddress.zipCode = null;
  const debtors: PartyRecord[] = rng.chance(0.3)
    ? [{ name: rng.pick(ACCENTED_NAMES), type: "Individual", label: null, address: debtorAddress }]
    : [{ name: business.name, type: "Organization", label: business.industry, address: debtorAddress }];
  const [city, zip3] = STATES[state].cities[0]!;
  const r = rng.next();
  let record: FilingRecord;
  if (r < 0.35) {
    const agencies = STATE_TAX_AGENCIES[state] ?? [
      { name: "DEPARTMENT OF REVENUE", street1: "PO Box 1100", zip: `${zip3}01` },
    ];
    const agency = rng.pick(agencies);
    record = {
      state,
      number: ctx.numberFor(state, filedAt),
      filedAt,
      kind: "state_tax_lien",
      // The office's term: ten years in California and most states here.
      officeLapseDate: shiftDate(filedAt, 10),
      collateral: COLLATERAL.tax[0],
      debtors,
      securedParties: [
        {
          name: agency.name,
          type: "Organization",
          label: "Government",
          address: { street1: agency.street1, city, state, zipCode: agency.zip, country: "US" },
        },
      ],
      amendments: [],
    };
  } else if (r < 0.6) {
    record = {
      state,
      number: ctx.numberFor(state, filedAt),
      filedAt,
      kind: "federal_tax_lien",
      // The IRS's last day for refiling, as the office records it.
      officeLapseDate: shiftDate(filedAt, 10, rng.int(3)),
      collateral: COLLATERAL.tax[0],
      debtors,
      securedParties: [
        {
          name: "INTERNAL REVENUE SERVICE",
          type: "Organization",
          label: "Government",
          address: { street1: "PO Box 145595", city: "Cincinnati", state: "OH", zipCode: "45250", country: "US" },
        },
      ],
      amendments: [],
    };
  } else if (r < 0.8) {
    const creditor = rng.pick(ctx.businesses);
    record = {
      state,
      number: ctx.numberFor(state, filedAt),
      filedAt,
      kind: "judgment_lien",
      // Judgment liens on personal property run five years in California, for example.
      officeLapseDate: shiftDate(filedAt, 5),
      collateral: COLLATERAL.judgment[0],
      debtors,
      securedParties: [{ name: creditor.name, type: "Organization", label: null, address: creditor.addresses.at(-1)! }],
      amendments: [],
    };
  } else {
    const lender = rng.pick(FOREIGN_LENDERS);
    record = {
      state,
      number: ctx.numberFor(state, filedAt),
      filedAt,
      kind: "standard",
      collateral: at(rng, rng.pick(COLLATERAL.foreign)),
      debtors,
      securedParties: [
        {
          name: lender.name,
          type: "Organization",
          label: "Equipment Finance",
          address: {
            street1: lender.street1,
            city: lender.city,
            state: lender.state,
            zipCode: lender.zip,
            country: lender.country,
          },
        },
      ],
      amendments: [],
    };
  }
  // Some liens are released; a few terminations are revoked as filed in error.
  if (rng.chance(0.2)) {
    const ms = between(filedMs + 86_400_000, ctx.now, rng.next());
    const when = iso(Math.floor(ms / 1000) * 1000);
    record.amendments.push({
      number: ctx.amendmentNumberFor(state, when),
      filedAt: when,
      kind: "termination",
      description: record.kind === "standard" ? "Termination" : "Lien Release",
    });
    if (rng.chance(0.25)) {
      const later = iso(Math.floor(between(ms + 86_400_000, ctx.now, rng.next()) / 1000) * 1000);
      if (later > when) {
        record.amendments.push({
          number: ctx.amendmentNumberFor(state, later),
          filedAt: later,
          kind: "reinstatement",
          description: AMENDMENT_DESCRIPTIONS.reinstatement,
        });
      }
    }
  }
  return record;
}

function amendmentsFor(
  rng: Rng,
  f: {
    kind: FilingKind;
    filedMs: number;
    now: number;
    state: StateCode;
    nextNumber: (state: StateCode, filedAt: string) => string;
  },
): AmendmentRecord[] {
  const out: { kind: AmendmentRecord["kind"]; ms: number }[] = [];
  const filedAt = iso(f.filedMs);
  // Continuations: most filers continue inside the six-month window before
  // lapse; a few file too early, which does not count.
  if (f.kind === "standard") {
    let lapse = lapseDate(f.kind, filedAt, []);
    while (lapse !== null) {
      const windowOpens = Date.parse(`${shiftDate(lapse, 0, -6)}T15:00:00Z`);
      if (windowOpens > f.now) break;
      const r = rng.next();
      if (r < 0.04) {
        const early = windowOpens - (30 + rng.int(150)) * DAY;
        if (early > f.filedMs && early < f.now) out.push({ kind: "continuation", ms: early });
        break;
      }
      if (r > 0.6) break;
      const ms = between(windowOpens, Math.min(f.now, Date.parse(`${lapse}T00:00:00Z`) - DAY), rng.next());
      out.push({ kind: "continuation", ms });
      lapse = shiftDate(lapse, 5);
    }
  }
  const lapseMs = (() => {
    const l = lapseDate(
      f.kind,
      filedAt,
      out.map((a) => ({ kind: a.kind, filedAt: iso(a.ms) })),
    );
    return l === null ? f.filedMs + 10 * 365 * DAY : Date.parse(`${l}T00:00:00Z`);
  })();
  let end = Math.min(f.now, lapseMs);
  // Terminations fall anywhere in the filing's life; those still ahead are dropped.
  if (rng.chance(0.35)) {
    const ms = between(f.filedMs + DAY, lapseMs, rng.next());
    if (ms < f.now) {
      out.push({ kind: "termination", ms });
      end = ms;
    }
  }
  for (const [kind, p] of [
    ["assignment", 0.12],
    ["party_change", 0.1],
    ["collateral_change", 0.08],
  ] as const) {
    if (rng.chance(p)) out.push({ kind, ms: between(f.filedMs + DAY, end - DAY, rng.next()) });
  }
  return out
    .filter((a) => a.ms > f.filedMs && a.ms < f.now)
    .sort((a, b) => a.ms - b.ms)
    .map((a) => {
      const when = iso(Math.floor(a.ms / 1000) * 1000);
      return {
        number: f.nextNumber(f.state, when),
        filedAt: when,
        kind: a.kind,
        description: AMENDMENT_DESCRIPTIONS[a.kind],
      };
    });
}

/** One generated filing in this many changes in generateDelta. */
const DELTA_EVERY = 97;
/** The kinds of change generateDelta makes in turn; the last is a new filing. */
const DELTA_KINDS = 7;

/**
 * What the seed stores, as a number, in the source of the loads it records
 * (data_loads). Raised when a change to what `npm run seed` stores is not
 * carried into a seeded database by a migration, so that `npm run bench`
 * seeds again rather than measure a database of the old form. 2: industry
 * codes stored as integers (19508e3), where 1 (unnumbered) stored REALs.
 * 3: each secured party's debtor industries (migration 0031), which a
 * database seeded before holds only after `npm run db:rekey`.
 */
export const SEED_FORM = 3;

/** The source of the loads `npm run seed` records (data_loads), its form first. */
export const seedSource = (filings: number, seed: number, state?: string) =>
  `seed v${SEED_FORM} --filings ${filings} --seed ${seed}${state ? ` --state ${state}` : ""}`;

/** The filings `npm run seed -- --filings N` leaves: generatedCount's, and the new ones of its delta. */
export function seededCount(filings: number): number {
  const total = generatedCount(filings);
  // Change k (k = 1, 2, ...) is of kind k % DELTA_KINDS: one in DELTA_KINDS, from the sixth, is a new filing.
  return total + Math.floor((Math.floor(total / DELTA_EVERY) + 1) / DELTA_KINDS);
}

/**
 * A small daily delta over generateFilings' data, as an office's next file
 * would bring: for one generated filing in every DELTA_EVERY, a new
 * continuation, termination, assignment (with its assignee), termination
 * and reinstatement, collateral amendment or corrected debtor address, in
 * turn; and a few new filings. `npm start` loads it after the backfill, so
 * the change feed (GET /filings/changes) has changes of every kind to show.
 * Every record is a filing's whole new state, as an NDJSON line carries it.
 */
export function* generateDelta({ filings, seed, now, state }: GenerateOptions): Generator<FilingRecord> {
  const day = (ago: number) => iso(now - ago * DAY);
  let i = 0;
  let fresh = 0;
  for (const record of generateFilings({ filings, seed, now, state })) {
    i += 1;
    if (i % DELTA_EVERY !== 0) continue;
    const kind = (i / DELTA_EVERY) % DELTA_KINDS;
    const number = (suffix: string) => `${record.number}-${suffix}`;
    const amend = (suffix: string, k: AmendmentRecord["kind"], description: string, ago = 1): AmendmentRecord => ({
      number: number(suffix),
      filedAt: day(ago),
      kind: k,
      description,
    });
    if (kind === 0) yield { ...record, amendments: [...record.amendments, amend("C", "continuation", "Continuation")] };
    else if (kind === 1)
      yield { ...record, amendments: [...record.amendments, amend("T", "termination", "Termination")] };
    else if (kind === 2) {
      const assignee = { ...(record.securedParties[0] ?? record.debtors[0]!), name: "Harbor Point Capital LLC" };
      yield {
        ...record,
        securedParties: [...record.securedParties, assignee],
        amendments: [...record.amendments, amend("A", "assignment", "Assignment")],
      };
    } else if (kind === 3) {
      const both = [amend("T", "termination", "Termination", 3), amend("R", "reinstatement", "Termination Revoked")];
      yield { ...record, amendments: [...record.amendments, ...both] };
    } else if (kind === 4) {
      yield {
        ...record,
        amendments: [...record.amendments, amend("K", "collateral_change", "Amendment - Collateral")],
      };
    } else if (kind === 5) {
      const [first, ...rest] = record.debtors;
      if (!first) continue;
      const moved = {
        ...first,
        address: { ...first.address, street1: `${first.address.street1 ?? "1 Main St"} Suite 200` },
      };
      yield { ...record, debtors: [moved, ...rest] };
    } else {
      fresh += 1;
      yield { ...record, number: `${record.number}N${fresh}`, filedAt: day(1), amendments: [] };
    }
  }
}
