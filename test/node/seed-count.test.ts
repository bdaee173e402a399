/**
 * The benchmark reseeds local data unless it holds exactly what `npm run
 * seed -- --filings N` leaves (scripts/bench.ts): seededCount must count the
 * generated filings and the new ones of the day's delta the seed loads after
 * them, or every run replaces a million filings.
 */
import { describe, expect, it } from "vitest";
import { generateDelta, generatedCount, generateFilings, seededCount } from "../../seed/generate.ts";

const NOW = Date.parse("2026-06-01T00:00:00Z");

describe("seededCount", () => {
  it.each([1, 100, 679, 680, 2_000, 20_000])("counts the generated filings and the delta's new ones: %i", (filings) => {
    const options = { filings, seed: 1, now: NOW };
    const keyOf = (r: { state: string; number: string }) => `${r.state} ${r.number}`;
    const generated = new Set([...generateFilings(options)].map(keyOf));
    const fresh = [...generateDelta(options)].filter((r) => !generated.has(keyOf(r))).length;
    expect(generated.size).toBe(generatedCount(filings));
    expect(seededCount(filings)).toBe(generated.size + fresh);
  });
});
