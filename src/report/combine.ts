/**
 * A report's shards' parts (query.ts) as one answer: the summary, each
 * state's count and currency, the page in report order, and every shard's
 * newest change.
 *
 * Per shard and state, the found debtors' digests that can add up do (no
 * filing names two of them), plus the fresh count of the others' filings,
 * each once, where the shard made one. Shards add up: a filing lives in one
 * shard.
 */
import { COLLATERAL_CATEGORIES } from "../domain/collateral.ts";
import { FILING_KINDS } from "../domain/kinds.ts";
import { securedPartyKind } from "../domain/securedPartyKinds.ts";
import { isoDay } from "../domain/time.ts";
import type { FilingWithParties } from "../queries/filings.ts";
import { dataThroughOf } from "../queries/states.ts";
import type { DigestRow, ReportPosition, ShardReport } from "./query.ts";
import type { ReportSummary } from "./schemas.ts";

/** Windows of filing dates the summary counts, in days ending today. */
const WINDOWS = [30, 90, 180] as const;
const FUNDING_WINDOW = 90;

const DAY_MS = 86_400_000;
const daysOf = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;

/** What the summary adds up: a digest's counts, read. */
interface Tally {
  filings: number;
  terminated: number;
  active: number;
  kinds: number[];
  categories: number[];
  lenders: Map<string, number>;
  /** Filings by filing day: [filings, of funding companies]. */
  recent: Map<number, [number, number]>;
  lapsesNext: number | null;
}

const empty = (): Tally => ({
  filings: 0,
  terminated: 0,
  active: 0,
  kinds: FILING_KINDS.map(() => 0),
  categories: COLLATERAL_CATEGORIES.map(() => 0),
  lenders: new Map(),
  recent: new Map(),
  lapsesNext: null,
});

const parsed = <T>(json: string | null, fallback: T): T => (json === null ? fallback : (JSON.parse(json) as T));

function add(t: Tally, d: DigestRow): void {
  t.filings += Number(d.filings ?? 0);
  t.terminated += Number(d.terminated ?? 0);
  t.active += Number(d.active ?? 0);
  parsed<number[]>(d.kinds, []).forEach((n, i) => {
    t.kinds[i] = (t.kinds[i] ?? 0) + n;
  });
  parsed<number[]>(d.categories, []).forEach((n, i) => {
    t.categories[i] = (t.categories[i] ?? 0) + n;
  });
  for (const [name, n] of parsed<[string, number][]>(d.lenders, []))
    t.lenders.set(name, (t.lenders.get(name) ?? 0) + n);
  for (const [day, n, m] of parsed<[number, number, number][]>(d.recent, [])) {
    const [had, hadFunding] = t.recent.get(day) ?? [0, 0];
    t.recent.set(day, [had + n, hadFunding + m]);
  }
  if (d.lapses_next !== null && (t.lapsesNext === null || d.lapses_next < t.lapsesNext)) t.lapsesNext = d.lapses_next;
}

/** One shard's tally by state: its fresh counts where it made them, with the digests that add. */
function shardTallies(part: ShardReport): Map<string, Tally> {
  const out = new Map<string, Tally>();
  const tally = (state: string) => {
    const known = out.get(state);
    if (known) return known;
    const t = empty();
    out.set(state, t);
    return t;
  };
  for (const r of part.recounted) add(tally(r.s), r);
  // A digest whose debtor was counted afresh (query.ts, counted) does not add: its filings are in the fresh count.
  for (const d of part.digests) if (Number(d.adds) === 1) add(tally(d.s), d);
  return out;
}

/** Report order: filing time, then state, then number. */
export function reportOrder(a: FilingWithParties, b: FilingWithParties): number {
  const x = a.filing;
  const y = b.filing;
  if (x.filedAt !== y.filedAt) return x.filedAt < y.filedAt ? -1 : 1;
  if (x.state !== y.state) return x.state < y.state ? -1 : 1;
  return x.number < y.number ? -1 : x.number > y.number ? 1 : 0;
}

/** Where the report resumes after `item`. */
export const positionAfter = ({ filing }: FilingWithParties): ReportPosition => ({
  at: Math.floor(Date.parse(filing.filedAt) / 1000),
  st: filing.state,
  num: filing.number,
});

export interface Combined {
  summary: Omit<ReportSummary, "first_active_filing">;
  /** Candidates for the oldest live filing, with the ids still to fetch by shard (states counted afresh). */
  firsts: FilingWithParties[];
  unfetched: Map<string, number[]>;
  states: { state: string; records_through: string | null; filings: number }[];
  /** Each shard read's newest change. */
  newest: Map<string, number>;
  /** The page in report order, and whether more follow. */
  page: FilingWithParties[];
  more: boolean;
}

/**
 * The parts of the shards read (`shards`, with their parts in order) as
 * one report on `today`: `listed` the states asked for (undefined: every
 * state held), `size` the page.
 */
export function combine(
  shards: readonly string[],
  parts: ShardReport[],
  { today, listed, size }: { today: string; listed: string[] | undefined; size: number },
): Combined {
  const byState = new Map<string, Tally>();
  const total = empty();
  const unfetched = new Map<string, number[]>();
  parts.forEach((part, i) => {
    for (const [state, t] of shardTallies(part)) {
      const into = byState.get(state) ?? empty();
      for (const target of [into, total]) {
        target.filings += t.filings;
        target.terminated += t.terminated;
        target.active += t.active;
        t.kinds.forEach((n, k) => {
          target.kinds[k] = (target.kinds[k] ?? 0) + n;
        });
        t.categories.forEach((n, k) => {
          target.categories[k] = (target.categories[k] ?? 0) + n;
        });
        for (const [name, n] of t.lenders) target.lenders.set(name, (target.lenders.get(name) ?? 0) + n);
        for (const [day, [n, m]] of t.recent) {
          const [had, hadFunding] = target.recent.get(day) ?? [0, 0];
          target.recent.set(day, [had + n, hadFunding + m]);
        }
        if (t.lapsesNext !== null && (target.lapsesNext === null || t.lapsesNext < target.lapsesNext)) {
          target.lapsesNext = t.lapsesNext;
        }
      }
      byState.set(state, into);
    }
    // A fresh count's oldest live filing is known by id only: fetched after.
    const recounted = part.recounted.flatMap((r) => (r.first_active === null ? [] : [r.first_active]));
    if (recounted.length > 0) unfetched.set(shards[i] ?? "", recounted);
  });

  const todayDays = daysOf(today);
  const since = (days: number) => todayDays - days;
  let funding = 0;
  const windows = WINDOWS.map(() => 0);
  for (const [day, [n, m]] of total.recent) {
    WINDOWS.forEach((w, i) => {
      if (day > since(w)) windows[i] = (windows[i] ?? 0) + n;
    });
    if (day > since(FUNDING_WINDOW)) funding += m;
  }
  const [last30 = 0, last90 = 0, last180 = 0] = windows;

  const held = new Map<string, string | null>();
  for (const part of parts) {
    for (const s of part.states) {
      const through = dataThroughOf(s.office, s.newest);
      const known = held.get(s.state);
      // A split state's parts: the later date, as /states says.
      held.set(s.state, known == null || (through !== null && through > known) ? through : known);
    }
  }
  const searched = listed ?? [...held.keys()].sort();

  const page = parts.flatMap((p) => p.page).sort(reportOrder);
  const newest = new Map(parts.map((p, i) => [shards[i] ?? "", p.seq]));
  return {
    summary: {
      filings: total.filings,
      active: total.active,
      lapsed: total.filings - total.active - total.terminated,
      terminated: total.terminated,
      active_by_kind: Object.fromEntries(
        FILING_KINDS.map((k, i) => [k, total.kinds[i] ?? 0]),
      ) as ReportSummary["active_by_kind"],
      active_secured_parties: [...total.lenders]
        .map(([name, filings]) => ({ name, kind: securedPartyKind(name), filings }))
        .sort((a, b) => b.filings - a.filings || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      blanket_liens: total.categories[COLLATERAL_CATEGORIES.indexOf("all_assets")] ?? 0,
      collateral_categories: Object.fromEntries(
        COLLATERAL_CATEGORIES.map((c, i) => [c, total.categories[i] ?? 0]),
      ) as ReportSummary["collateral_categories"],
      filed_last_30_days: last30,
      filed_last_90_days: last90,
      filed_last_180_days: last180,
      funding_company_filings_last_90_days: funding,
      next_lapse_date: total.lapsesNext === null ? null : isoDay(total.lapsesNext),
    },
    firsts: parts.flatMap((p) => p.firsts),
    unfetched,
    states: searched.map((state) => ({
      state,
      records_through: held.get(state) ?? null,
      filings: byState.get(state)?.filings ?? 0,
    })),
    newest,
    page: page.slice(0, size),
    more: page.length > size,
  };
}
