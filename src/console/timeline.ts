/**
 * A filing's life as facts (filed, each amendment, the terms its
 * continuations added, the end, today) and those facts laid out on a time
 * axis of a given width. Pure, so the picture and the text beside it say
 * the same thing, and tests can check both without a browser.
 *
 * The terms come from the server's own lapse rules (src/domain/lifecycle.ts,
 * bundled as it is): the lapse date after each amendment in turn, so a
 * continuation that counted shows as the stretch of bar it added. When the
 * filing office gave the lapse date, the office's original date is not in
 * the answer, so the bar is one stretch to the lapse date the API gives.
 */
import type { AmendmentKind, FilingKind } from "../domain/kinds.ts";
import { lapsedOn, lapseOf, terminatedAt } from "../domain/lifecycle.ts";
import { AMENDMENT_KIND_LABELS, day } from "./format.ts";

export interface LienLife {
  initial_financing_number: string;
  initial_financing_date: string;
  estimated_lien_lapse_date: string | null;
  estimated_lien_status: string;
  filing_kind: FilingKind;
  lapse_date_source: "office" | "estimated";
  amendments: {
    amendment_financing_number: string;
    amendment_financing_date: string;
    amendment_kind: AmendmentKind;
    amendment_lapse_date: string | null;
  }[];
}

/** A stretch of the filing's effect: its first term, or what an amendment added. */
interface Term {
  from: string;
  to: string;
  /** The amendment that added it (a continuation, or an office's new lapse date); none for the first term. */
  by?: string;
}

interface Mark {
  date: string;
  kind: AmendmentKind;
  number: string;
}

export interface Facts {
  number: string;
  filed: string;
  today: string;
  status: string;
  marks: Mark[];
  terms: Term[];
  /** YYYY-MM-DD the filing lapses (or lapsed); null if it does not lapse. */
  lapse: string | null;
  lapseSource: "office" | "estimated";
  /** YYYY-MM-DD of the termination that stands, if any. */
  terminated: string | null;
  /**
   * Continuations the replay of an estimated lapse date found outside their window, so they moved nothing;
   * none for an office's date, whose replay is not in the answer.
   */
  untimely: string[];
}

export function factsOf(lien: LienLife, today: string): Facts {
  const filed = day(lien.initial_financing_date);
  const events = [...lien.amendments]
    .map((a) => ({
      kind: a.amendment_kind,
      filedAt: a.amendment_financing_date,
      lapseDate: a.amendment_lapse_date,
      number: a.amendment_financing_number,
    }))
    .sort((a, b) => (a.filedAt < b.filedAt ? -1 : a.filedAt > b.filedAt ? 1 : 0));
  const terminatedStamp = terminatedAt(events);
  const { terms, untimely } = termsOf(lien, filed, events);
  return {
    number: lien.initial_financing_number,
    filed,
    today,
    status: lien.estimated_lien_status,
    marks: events.map((e) => ({ date: day(e.filedAt), kind: e.kind, number: e.number })),
    terms,
    lapse: lien.estimated_lien_lapse_date,
    lapseSource: lien.lapse_date_source,
    terminated: terminatedStamp ? day(terminatedStamp) : null,
    untimely,
  };
}

/**
 * The stretches of bar: the first term, then one per amendment that moved
 * the lapse date later, replayed with the server's rules. Any other outcome
 * (an office date, a rule that disagrees with the answer, a date moved
 * earlier) is one stretch to the API's lapse date, which is authoritative,
 * and says nothing of which continuations counted.
 */
function termsOf(
  lien: LienLife,
  filed: string,
  events: { kind: AmendmentKind; filedAt: string; lapseDate: string | null; number: string }[],
): { terms: Term[]; untimely: string[] } {
  const lapse = lien.estimated_lien_lapse_date;
  if (lapse === null) return { terms: [], untimely: [] };
  const whole = { terms: [{ from: filed, to: lapse }], untimely: [] };
  if (lien.lapse_date_source !== "estimated") return whole;
  let current = lapseOf(lien.filing_kind, lien.initial_financing_date, []).date;
  if (current === null) return whole;
  const terms: Term[] = [{ from: filed, to: current }];
  const untimely: string[] = [];
  for (let i = 0; i < events.length; i++) {
    const event = events[i];
    const next = lapseOf(lien.filing_kind, lien.initial_financing_date, events.slice(0, i + 1)).date;
    if (next === null || next < current) return whole;
    if (next > current) terms.push({ from: current, to: next, by: event?.number });
    else if (event?.kind === "continuation") untimely.push(event.number);
    current = next;
  }
  return current === lapse ? { terms, untimely } : whole;
}

/**
 * Whether the termination came before the lapse: a filing lapses at the end
 * of its lapse date, so one recorded on that date still ended it; one
 * recorded later found it lapsed already.
 */
function terminatedFirst(facts: Facts): boolean {
  return facts.terminated !== null && (facts.lapse === null || !lapsedOn(facts.lapse, facts.terminated));
}

/** One line per fact, in date order: the text beside the picture. */
export function factLines(facts: Facts): { date: string; text: string }[] {
  const lines: { date: string; text: string; order: number }[] = [{ date: facts.filed, text: "Filed.", order: 0 }];
  for (const mark of facts.marks) {
    const added = facts.terms.find((t) => t.by === mark.number);
    const what = AMENDMENT_KIND_LABELS[mark.kind];
    const ending = mark.kind === "termination" && facts.terminated === mark.date;
    const effect = added
      ? `: the lapse date moves from ${added.from} to ${added.to}`
      : facts.untimely.includes(mark.number)
        ? ": filed outside the six months before lapse, so the lapse date does not move"
        : ending && terminatedFirst(facts)
          ? ": the filing ends"
          : ending
            ? ": recorded after the filing lapsed"
            : "";
    lines.push({ date: mark.date, text: `${what} ${mark.number}${effect}.`, order: 1 });
  }
  if (facts.lapse !== null) {
    const past = lapsedOn(facts.lapse, facts.today);
    const source = facts.lapseSource === "office" ? " (date given by the filing office)" : " (date estimated)";
    const text = terminatedFirst(facts)
      ? `Would have lapsed${source}; terminated before.`
      : `${past ? "Lapsed" : "Lapses"}${source}.`;
    lines.push({ date: facts.lapse, text, order: 2 });
  }
  lines.push({ date: facts.today, text: `Today: ${facts.status}.`, order: 3 });
  return lines
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.order - b.order))
    .map(({ date, text }) => ({ date, text }));
}

/** The lapse flag's word: a filing terminated before it lapsed has a lapse date only in name. */
function lapseWord(facts: Facts): string {
  if (terminatedFirst(facts)) return "Lapse date";
  return facts.lapse !== null && lapsedOn(facts.lapse, facts.today) ? "Lapsed" : "Lapses";
}

const DAY_MS = 86_400_000;
const ms = (date: string) => Date.parse(`${date}T00:00:00Z`);

export interface Layout {
  width: number;
  height: number;
  axisY: number;
  barY: number;
  barHeight: number;
  ticks: { x: number; label: string }[];
  bars: { x: number; width: number; added: boolean }[];
  /** Where the bar stops short of a lapse: a termination, drawn as an end cap. */
  cut: number | null;
  /** A filing that does not lapse: the bar runs off the right edge. */
  open: boolean;
  marks: (Mark & { x: number; y: number })[];
  flags: {
    x: number;
    label: string;
    kind: "filed" | "lapse" | "today";
    labelX: number;
    labelY: number;
    anchor: "start" | "middle" | "end";
  }[];
}

/** Pixels between two marks that stay apart; closer ones stack in lanes above the bar. */
const MARK_GAP = 16;
const LANE = 18;
const LABEL_ROW = 16;
/** Rough width of a label's character at the 12 px the stylesheet sets (flags do not overlap). */
const CHAR_PX = 6.6;

export function layout(facts: Facts, width: number): Layout {
  const pad = { left: 12, right: 12 };
  const latest =
    [facts.today, facts.lapse ?? facts.today, ...facts.marks.map((m) => m.date)].sort().at(-1) ?? facts.today;
  const start = ms(facts.filed);
  const span = Math.max(ms(latest) - start, 365 * DAY_MS);
  // A little room each side, and a year more on the right for a filing that never lapses.
  const t0 = start - span * 0.04;
  const t1 = start + span * (facts.lapse === null ? 1.25 : 1.06);
  const inner = width - pad.left - pad.right;
  const x = (date: string) => pad.left + ((ms(date) - t0) / (t1 - t0)) * inner;

  // Lanes for the amendment marks, above the bar.
  const lanes: number[] = [];
  const placed = facts.marks.map((mark) => {
    const at = x(mark.date);
    let lane = lanes.findIndex((last) => at - last >= MARK_GAP);
    if (lane < 0) lane = lanes.length;
    lanes[lane] = at;
    return { ...mark, x: at, lane };
  });
  const top = 10;
  const barY = top + Math.max(1, lanes.length) * LANE + 6;
  const barHeight = 14;
  const axisY = barY + barHeight + 8;

  const ticks = yearTicks(t0, t1, inner).map((year) => ({ x: x(`${year}-01-01`), label: String(year) }));

  // The bar stops at whichever came first; a termination recorded after the lapse cuts nothing.
  const cut = terminatedFirst(facts) ? facts.terminated : null;
  const end = cut ?? facts.lapse;
  const bars = facts.terms.flatMap((term, i) => {
    const to = end !== null && term.to > end ? end : term.to;
    if (to <= term.from) return [];
    return [{ x: x(term.from), width: Math.max(1, x(to) - x(term.from)), added: i > 0 }];
  });
  if (facts.lapse === null) {
    bars.push({ x: x(facts.filed), width: (cut ? x(cut) : width) - x(facts.filed), added: false });
  }

  const flagSpecs: { date: string; label: string; kind: "filed" | "lapse" | "today" }[] = [
    { date: facts.filed, label: `Filed ${facts.filed}`, kind: "filed" },
    ...(facts.lapse !== null
      ? [
          {
            date: facts.lapse,
            label: `${lapseWord(facts)} ${facts.lapse}`,
            kind: "lapse" as const,
          },
        ]
      : []),
    { date: facts.today, label: `Today ${facts.today}`, kind: "today" },
  ];
  const rows: { from: number; to: number }[][] = [];
  const flags = flagSpecs.map((spec) => {
    const at = x(spec.date);
    const w = spec.label.length * CHAR_PX;
    const anchor: "start" | "middle" | "end" = at - w / 2 < 0 ? "start" : at + w / 2 > width ? "end" : "middle";
    const from = anchor === "start" ? at : anchor === "end" ? at - w : at - w / 2;
    let row = rows.findIndex((taken) => taken.every((r) => from + w + 8 <= r.from || from >= r.to + 8));
    if (row < 0) row = rows.push([]) - 1;
    rows[row]?.push({ from, to: from + w });
    return {
      ...spec,
      x: at,
      labelX: anchor === "start" ? Math.max(at, 0) : anchor === "end" ? Math.min(at, width) : at,
      labelY: 0,
      anchor,
      row,
    };
  });
  const labelsTop = axisY + 36;
  for (const flag of flags) flag.labelY = labelsTop + flag.row * LABEL_ROW;

  return {
    width,
    height: labelsTop + Math.max(1, rows.length) * LABEL_ROW,
    axisY,
    barY,
    barHeight,
    ticks,
    bars,
    cut: cut !== null ? x(cut) : null,
    open: facts.lapse === null && facts.terminated === null,
    marks: placed.map(({ lane, ...mark }) => ({ ...mark, y: barY - 10 - lane * LANE })),
    flags: flags.map(({ row: _, date: __, ...flag }) => flag),
  };
}

/** January firsts inside (t0, t1), every 1, 2, 5, 10 or 20 years: the first step that leaves 44 px between labels. */
function yearTicks(t0: number, t1: number, inner: number): number[] {
  const years = (t1 - t0) / (365.25 * DAY_MS);
  const step = [1, 2, 5, 10, 20].find((s) => (inner / years) * s >= 44) ?? 50;
  const first = new Date(t0).getUTCFullYear() + 1;
  const last = new Date(t1).getUTCFullYear();
  const ticks: number[] = [];
  for (let y = Math.ceil(first / step) * step; y <= last; y += step) ticks.push(y);
  return ticks;
}
