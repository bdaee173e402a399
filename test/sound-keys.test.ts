/**
 * The keys similar-name search finds candidates by (src/domain/soundKeys.ts)
 * and the abbreviations it reads as long forms: a name and each kind of
 * misspelling of it share a key, and unrelated names do not.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalWord } from "../src/domain/abbreviations.ts";
import { similarity } from "../src/domain/similarity.ts";
import { comparableWords, nameSoundKeys, querySoundKeys } from "../src/domain/soundKeys.ts";

const shareKey = (name: string, query: string) => {
  const stored = new Set(nameSoundKeys(name));
  const { broad, narrow } = querySoundKeys(query);
  return [...broad, ...narrow].some((k) => stored.has(k));
};

describe("abbreviations", () => {
  it.each([
    ["mfg", "manufacturing"],
    ["svcs", "services"],
    ["svc", "service"],
    ["intl", "international"],
    ["bros", "brothers"],
    ["assoc", "associates"],
    ["dev", "development"],
    ["constr", "construction"],
    ["co", "company"],
    ["manufacturing", "manufacturing"],
    ["acme", "acme"],
  ])("%s reads as %s", (word, long) => {
    expect(canonicalWord(word)).toBe(long);
  });

  it("applies to the words of a name as written, with periods and apostrophes", () => {
    expect(comparableWords("Smith Bros. Int'l Mfg Co. of Texas, Inc.")).toEqual([
      "smith",
      "brothers",
      "international",
      "manufacturing",
      "company",
      "texas",
    ]);
  });

  it.each([
    ["Acme Mfg", "Acme Manufacturing"],
    ["Smith Bros Constr", "Smith Brothers Construction"],
    ["Delta Intl Svcs LLC", "Delta International Services"],
    ["Kowalski & Assoc", "Kowalski and Associates"],
    ["Harbor Dev. Co. Holdings", "Harbor Development Company Holdings"],
  ])("scores %s and %s as the same name", (a, b) => {
    expect(similarity(a, b)).toBe(1);
    expect(similarity(b, a)).toBe(1);
    expect(shareKey(a, b)).toBe(true);
  });
});

describe("sound keys", () => {
  it.each([
    ["one wrong letter", "Magnolia Goods, Inc.", "Magsolia Goods, Inc."],
    ["a wrong first letter", "Magnolia Goods, Inc.", "Nagnolia Goods"],
    ["a wrong last letter", "Magnolia Goods, Inc.", "Magnolia Goodz"],
    ["two letters swapped", "Magnolia Goods, Inc.", "Mangolia Goods"],
    ["a letter dropped", "Magnolia Goods, Inc.", "Magolia Goods"],
    ["a letter added", "Magnolia Goods, Inc.", "Magnolia Gooods"],
    ["words swapped", "Magnolia Goods, Inc.", "Goods Magnolia"],
    ["a middle word left out", "Kowalski Wellness Center LLC", "Kowalski Center"],
    ["another middle word", "Kowalski Wellness Center LLC", "Kowalski Fitness Center"],
    ["a word added", "Red River Freight LLC", "Red River Freight Lines"],
    ["two words joined, one of them The", "The Red River Freight LLC", "Thered River Freight LLC"],
    ["a sound-alike spelling", "Nancy Q. Allen", "Nancie Q. Allen"],
    ["a misspelled first name", "Nancy Q. Allen", "Naney Q. Allen"],
    ["swapped letters in a first name", "Nancy Q. Allen", "Nnacy Q. Allen"],
    ["a misspelled last name", "Nancy Q. Allen", "Nancy Q. Alen"],
    ["last name first", "Nancy Q. Allen", "Allen, Nancy Q."],
    ["no middle initial", "Nancy Q. Allen", "Nancy Allen"],
    ["another middle initial", "Nancy Q. Allen", "Nancy R. Allen"],
    ["another middle initial, last name first", "Nancy Q. Allen", "Allen, Nancy R."],
    ["a middle initial the name lacks", "Nancy Allen", "Nancy Q. Allen"],
    ["an abbreviation the table lacks", "Clark Productions LLC", "Clark Prodctns LLC"],
    ["two typos within their sounds", "Prairie Bakery LLC", "Prarie Bakkery"],
  ])("a name and its misspelling share a key: %s", (_, name, query) => {
    expect(shareKey(name, query)).toBe(true);
  });

  it.each([
    ["Magnolia Goods, Inc.", "Pacific Freight"],
    ["Nancy Q. Allen", "Robert Q. Smith"],
    ["Prairie Bakery LLC", "Summit Roofing"],
  ])("%s and %s share none", (name, query) => {
    expect(shareKey(name, query)).toBe(false);
  });

  it("keeps one misspelled word of any length findable", () => {
    // Words of consonants that do not repeat side by side: their sound is
    // the word itself, so one edit of the word is one edit of its sound.
    // (A sound of two letters swapped end for end keeps neither end.)
    const letter = fc.constantFrom(..."bdfglmnprst");
    const word = fc
      .array(letter, { minLength: 2, maxLength: 9 })
      .filter((w) => w.every((c, i) => i === 0 || c !== w[i - 1]))
      .map((w) => w.join(""));
    const edit = fc.tuple(fc.constantFrom("substitute", "drop", "insert", "swap"), fc.nat(), letter);
    fc.assert(
      fc.property(word, word, edit, (a, b, [kind, at, c]) => {
        const i = at % b.length;
        const typo =
          kind === "substitute"
            ? b.slice(0, i) + c + b.slice(i + 1)
            : kind === "drop"
              ? b.slice(0, i) + b.slice(i + 1)
              : kind === "insert"
                ? b.slice(0, i) + c + b.slice(i)
                : b.slice(0, i) + (b[i + 1] ?? "") + b[i] + b.slice(i + 2);
        const repeats = [...typo].some((ch, j) => j > 0 && ch === typo[j - 1]);
        const abbreviation = [a, b, typo].some((w) => canonicalWord(w) !== w);
        fc.pre(typo.length > 0 && !repeats && !abbreviation && a !== b && a !== typo);
        fc.pre(!(kind === "swap" && b.length === 2));
        // Last comes a plain word, so no legal ending ("lp", "pc") is dropped.
        expect(shareKey(`${b} ${a} Holdings`, `${typo} ${a} Holdings`)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("stores a few keys per name and probes a bounded number per query", () => {
    expect(nameSoundKeys("Magnolia Goods, Inc.").length).toBeLessThanOrEqual(7);
    const long = Array.from({ length: 66 }, (_, i) => `Word${String.fromCharCode(97 + (i % 26))}x${i}`).join(" ");
    const { broad, narrow } = querySoundKeys(long);
    expect(broad.length + narrow.length).toBeLessThanOrEqual(26);
  });
});
