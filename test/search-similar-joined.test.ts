/**
 * A one-word query read as an individual's first and last names run
 * together (src/domain/joinedNames.ts), and its score against the name
 * filed either way round (src/domain/similarity.ts).
 */
import { describe, expect, it } from "vitest";
import { joinedNameRanges, MAX_JOINED_READINGS } from "../src/domain/joinedNames.ts";
import { debtorKey } from "../src/domain/names.ts";
import { SIMILARITY_THRESHOLD, similarity } from "../src/domain/similarity.ts";

const inAnyRange = (query: string, stored: string) =>
  joinedNameRanges(query).some((r) => stored >= r.from && stored < r.to);

describe("joined-name readings", () => {
  it.each([
    ["Bettywalker", "Betty Walker"],
    ["Walkerbetty", "Betty Walker"],
    ["BETTYWALKER", "Walker, Betty"],
    ["Bettywalker", "Betty A. Walker"],
    ["Bettywalker", "WALKER, BETTY ANN"],
    ["Jwalker", "J. Walker"],
    ["Obrienbetty", "Betty O'Brien"],
    ["Josemunoz", "José Muñoz"],
    ["Bettywalker LLC", "Betty Walker"],
  ])("%s reads as the person key of %s", (query, name) => {
    expect(inAnyRange(query, debtorKey(name, "Individual"))).toBe(true);
  });

  it.each([
    ["Bettywalker", "Bettye Walker"],
    ["Bettywalker", "Betty Walkers"],
    ["Bettywalker", "Walker"],
    ["Bettywalker", "Bettywalker"],
  ])("%s does not read as %s (another first or last name)", (query, name) => {
    expect(inAnyRange(query, debtorKey(name, "Individual"))).toBe(false);
  });

  it("never reads an organization's key", () => {
    expect(inAnyRange("Acmeholdings", debtorKey("Acme Holdings LLC", "Organization"))).toBe(false);
  });

  it.each([
    ["two words", "Betty Walker"],
    ["digits", "Owner3"],
    ["too short for a first and a last name", "Ng"],
    ["no letters", "&&"],
  ])("has none for %s", (_, query) => {
    expect(joinedNameRanges(query)).toEqual([]);
  });

  it("cuts no one-letter last name, and reads a first name of one letter as an initial", () => {
    const stems = joinedNameRanges("Jwalker").map((r) => r.from);
    expect(stems).toContain("walker j ");
    expect(stems).toContain("jwalke r ");
    expect(stems.some((s) => /^[a-z] /.test(s))).toBe(false);
  });

  it("has at most MAX_JOINED_READINGS readings however long the word", () => {
    expect(joinedNameRanges("Bettywalker")).toHaveLength(2 * (11 - 2));
    expect(joinedNameRanges("x".repeat(5) + "y".repeat(300)).length).toBeLessThanOrEqual(MAX_JOINED_READINGS);
  });
});

describe("scoring a joined name", () => {
  it.each(["Betty Walker", "Walker, Betty", "WALKER BETTY"])(
    "scores Bettywalker and Walkerbetty 1 against %s",
    (name) => {
      expect(similarity("Bettywalker", name)).toBe(1);
      expect(similarity("Walkerbetty", name)).toBe(1);
    },
  );

  it("scores the same name with a middle initial lower, yet above the threshold", () => {
    for (const name of ["Betty A. Walker", "Walker, Betty A."]) {
      const score = similarity("Bettywalker", name);
      expect(score).toBeLessThan(1);
      expect(score).toBeGreaterThanOrEqual(SIMILARITY_THRESHOLD);
    }
  });

  it.each([
    ["Silvercreek", "Silver Creek Industries LLC"],
    ["Redwoodtool", "Redwood Tool & Equipment L.L.C."],
    ["Creekindustries", "Silver Creek Industries LLC"],
  ])("scores %s, some words of %s run together, above the threshold", (query, name) => {
    expect(similarity(query, name)).toBeGreaterThan(0.8);
  });

  it("does not find a run inside a word: Ace is not in Pace Industries", () => {
    expect(similarity("Aceindustries", "Pace Industries")).toBeLessThan(similarity("Aceindustries", "Ace Industries"));
    expect(similarity("Ace", "Pace Industries")).toBeLessThan(SIMILARITY_THRESHOLD);
  });

  it("scores a name split in two against its words run together either way", () => {
    expect(similarity("Walker Betty", "Bettywalker")).toBe(1);
  });

  it.each([
    ["Bettywalker", "Nancy Walker"],
    ["Walkerbetty", "Nancy Walker"],
    ["Acmeholdings", "Holly Smith"],
  ])("leaves %s and %s below the threshold", (query, name) => {
    expect(similarity(query, name)).toBeLessThan(SIMILARITY_THRESHOLD);
  });

  it.each([
    ["Johnsonplumbing", "Aaliyah Johnson"],
    ["Smithbakery", "Smith, Aaliyah"],
    ["Acmeholdings", "Acme Smith"],
  ])("does not read the first word of %s as an abbreviation of it: %s stays below the threshold", (query, name) => {
    expect(similarity(query, name)).toBeLessThan(SIMILARITY_THRESHOLD);
  });

  it.each([
    ["Logistics", "Logis"],
    ["Smith Logistics", "Smith Logis"],
    ["Logis Partners", "Logistics Partners"],
  ])("still reads a word of as many words as an abbreviation: %s and %s", (query, name) => {
    expect(similarity(query, name)).toBeGreaterThanOrEqual(0.9);
  });
});
