/**
 * The console's timeline (src/console/timeline.ts): the facts of a filing's
 * life, read with the server's own lapse rules, the text that says them,
 * and their layout on the axis. The browser test (console.test.ts) sees
 * them drawn; these pin what is drawn.
 */
import { describe, expect, it } from "vitest";
import { factLines, factsOf, type LienLife, layout } from "../../src/console/timeline.ts";

function lien(overrides: Partial<LienLife>): LienLife {
  return {
    initial_financing_number: "00001287",
    initial_financing_date: "2018-10-03T21:58:29Z",
    estimated_lien_lapse_date: "2023-10-03",
    estimated_lien_status: "Lapsed",
    filing_kind: "standard",
    lapse_date_source: "estimated",
    amendments: [],
    ...overrides,
  };
}

const amendment = (number: string, kind: LienLife["amendments"][number]["amendment_kind"], date: string) => ({
  amendment_financing_number: number,
  amendment_financing_date: `${date}T12:00:00Z`,
  amendment_kind: kind,
  amendment_lapse_date: null,
});

describe("the console's timeline", () => {
  it("draws a continuation filed in the six months before lapse as the five years it adds", () => {
    const facts = factsOf(
      lien({
        estimated_lien_lapse_date: "2028-10-03",
        estimated_lien_status: "Active",
        amendments: [amendment("A1", "assignment", "2020-06-04"), amendment("C1", "continuation", "2023-04-21")],
      }),
      "2026-11-27",
    );
    expect(facts.terms).toEqual([
      { from: "2018-10-03", to: "2023-10-03" },
      { from: "2023-10-03", to: "2028-10-03", by: "C1" },
    ]);
    const plot = layout(facts, 600);
    expect(plot.bars.map((b) => b.added)).toEqual([false, true]);
    // The added stretch starts where the first ends.
    expect(plot.bars[1]!.x).toBeCloseTo(plot.bars[0]!.x + plot.bars[0]!.width, 5);
    expect(factLines(facts).map((l) => l.text)).toContain(
      "Continuation C1: the lapse date moves from 2023-10-03 to 2028-10-03.",
    );
  });

  it("says a continuation filed too early moves nothing, and draws one stretch", () => {
    const facts = factsOf(lien({ amendments: [amendment("C1", "continuation", "2020-01-01")] }), "2026-11-27");
    expect(facts.terms).toEqual([{ from: "2018-10-03", to: "2023-10-03" }]);
    expect(factLines(facts).find((l) => l.text.startsWith("Continuation"))?.text).toContain("does not move");
  });

  it("says a continuation plainly where the filing office gives the lapse date, which it may already count", () => {
    const facts = factsOf(
      lien({
        lapse_date_source: "office",
        estimated_lien_lapse_date: "2028-10-03",
        estimated_lien_status: "Active",
        amendments: [{ ...amendment("C1", "continuation", "2023-04-21"), amendment_lapse_date: "2028-10-03" }],
      }),
      "2026-11-27",
    );
    expect(factLines(facts).find((l) => l.text.startsWith("Continuation"))?.text).toBe("Continuation C1.");
  });

  it("says a filing terminated after its lapse date lapsed first, and ends its bar at the lapse, uncut", () => {
    const late = factsOf(
      lien({
        estimated_lien_status: "Terminated",
        amendments: [amendment("T1", "termination", "2026-01-20")],
      }),
      "2026-11-27",
    );
    const lines = factLines(late).map((l) => l.text);
    expect(lines).toContain("Lapsed (date estimated).");
    expect(lines).toContain("Termination T1: recorded after the filing lapsed.");
    expect(lines.join(" ")).not.toContain("terminated before");
    const plot = layout(late, 600);
    expect(plot.cut).toBeNull();
    const lapseFlag = plot.flags.find((f) => f.kind === "lapse");
    expect(lapseFlag?.label).toBe("Lapsed 2023-10-03");
    expect(Math.max(...plot.bars.map((b) => b.x + b.width))).toBeCloseTo(lapseFlag!.x, 5);

    // A filing stands through its lapse date: a termination recorded that day came first.
    const sameDay = factsOf(
      lien({ estimated_lien_status: "Terminated", amendments: [amendment("T1", "termination", "2023-10-03")] }),
      "2026-11-27",
    );
    expect(factLines(sameDay).map((l) => l.text)).toContain("Would have lapsed (date estimated); terminated before.");
    expect(layout(sameDay, 600).cut).not.toBeNull();
  });

  it("ends the bar at a termination, and lets it run on after a reinstatement", () => {
    const terminated = factsOf(
      lien({
        estimated_lien_lapse_date: "2028-10-03",
        estimated_lien_status: "Terminated",
        amendments: [amendment("C1", "continuation", "2023-04-21"), amendment("T1", "termination", "2026-01-20")],
      }),
      "2026-11-27",
    );
    expect(terminated.terminated).toBe("2026-01-20");
    const plot = layout(terminated, 600);
    const end = Math.max(...plot.bars.map((b) => b.x + b.width));
    expect(plot.cut).not.toBeNull();
    expect(end).toBeCloseTo(plot.cut!, 5);
    expect(factLines(terminated).map((l) => l.text)).toContain("Termination T1: the filing ends.");

    const reinstated = factsOf(
      lien({
        estimated_lien_lapse_date: "2023-10-03",
        amendments: [amendment("T1", "termination", "2020-01-20"), amendment("R1", "reinstatement", "2020-02-01")],
      }),
      "2026-11-27",
    );
    expect(reinstated.terminated).toBeNull();
    expect(layout(reinstated, 600).cut).toBeNull();
  });

  it("draws an office's lapse date as one stretch to the date the API gives", () => {
    const facts = factsOf(
      lien({
        filing_kind: "state_tax_lien",
        lapse_date_source: "office",
        estimated_lien_lapse_date: "2030-05-01",
        estimated_lien_status: "Active",
        amendments: [amendment("C1", "continuation", "2023-04-21")],
      }),
      "2026-11-27",
    );
    expect(facts.terms).toEqual([{ from: "2018-10-03", to: "2030-05-01" }]);
    expect(factLines(facts).find((l) => l.date === "2030-05-01")?.text).toBe(
      "Lapses (date given by the filing office).",
    );
  });

  it("runs a filing that does not lapse off the right edge", () => {
    const facts = factsOf(
      lien({
        filing_kind: "transmitting_utility",
        estimated_lien_lapse_date: null,
        estimated_lien_status: "Active",
      }),
      "2026-11-27",
    );
    const plot = layout(facts, 600);
    expect(plot.open).toBe(true);
    expect(Math.max(...plot.bars.map((b) => b.x + b.width))).toBe(600);
    expect(plot.flags.map((f) => f.kind)).toEqual(["filed", "today"]);
  });

  it("stacks marks too close to stand apart, and keeps every label clear of the others", () => {
    const facts = factsOf(
      lien({
        estimated_lien_lapse_date: "2028-10-03",
        amendments: [
          amendment("A1", "assignment", "2020-06-04"),
          amendment("P1", "party_change", "2020-06-05"),
          amendment("K1", "collateral_change", "2020-06-06"),
        ],
      }),
      "2023-10-02",
    );
    for (const width of [320, 600, 1000]) {
      const plot = layout(facts, width);
      expect(new Set(plot.marks.map((m) => m.y)).size, `${width}px`).toBe(3);
      const boxes = plot.flags.map((f) => {
        const w = f.label.length * 6.6;
        const from = f.anchor === "start" ? f.labelX : f.anchor === "end" ? f.labelX - w : f.labelX - w / 2;
        return { y: f.labelY, from, to: from + w };
      });
      for (const a of boxes) {
        for (const b of boxes) {
          if (a !== b && a.y === b.y) expect(a.to <= b.from || b.to <= a.from, `${width}px`).toBe(true);
        }
      }
    }
  });

  it("says every event in date order, today among them", () => {
    const facts = factsOf(
      lien({
        estimated_lien_lapse_date: "2028-10-03",
        estimated_lien_status: "Active",
        amendments: [amendment("C1", "continuation", "2023-04-21"), amendment("A1", "assignment", "2020-06-04")],
      }),
      "2026-11-27",
    );
    expect(factLines(facts)).toEqual([
      { date: "2018-10-03", text: "Filed." },
      { date: "2020-06-04", text: "Assignment A1." },
      { date: "2023-04-21", text: "Continuation C1: the lapse date moves from 2023-10-03 to 2028-10-03." },
      { date: "2026-11-27", text: "Today: Active." },
      { date: "2028-10-03", text: "Lapses (date estimated)." },
    ]);
  });
});
