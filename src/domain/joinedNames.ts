/**
 * A one-word query read as an individual's first and last names run
 * together, in either order ("Bettywalker", "Walkerbetty" for Betty
 * Walker). A person's match key starts with the last name (names.ts,
 * personKey) and the joined word has no sound key in common with the two
 * names, so without these readings similar-name search finds nothing.
 *
 * Each place the word can be cut gives a first and a last name, read both
 * ways round; each reading is one range of person keys (that last name,
 * that first name, any middle name), so a probe is an index seek. The
 * readings that name nobody find no rows.
 */
import { significantWords } from "./names.ts";

/**
 * Most letters of a first name cut from a joined word. First names this
 * long are rare, and the cap keeps a long word to 2 × 12 readings.
 */
const MAX_FIRST_LETTERS = 12;

/**
 * Fewest letters of a last name ("Ng", "Wu"). A first name may be one
 * letter, an initial ("Jwalker" for J. Walker); a one-letter last name is
 * not a reading worth a probe.
 */
const MIN_LAST_LETTERS = 2;

/** Most readings a query has, whatever its length. */
export const MAX_JOINED_READINGS = 2 * MAX_FIRST_LETTERS;

/** A range [from, to) of person keys: every middle name of one last and first name. */
export interface PersonKeyRange {
  from: string;
  to: string;
}

/**
 * The person-key ranges of `query` read as a first and a last name run
 * together, first name first or last name first; none unless the query is
 * one word of letters (legal endings aside) at least three long.
 */
export function joinedNameRanges(query: string): PersonKeyRange[] {
  const words = significantWords(query);
  const word = words[0];
  if (words.length !== 1 || word === undefined || !/^[a-z]+$/.test(word)) return [];
  const ranges = new Map<string, PersonKeyRange>();
  const longest = Math.min(MAX_FIRST_LETTERS, word.length - MIN_LAST_LETTERS);
  for (let n = 1; n <= longest; n++) {
    const readings = [
      { first: word.slice(0, n), last: word.slice(n) },
      { first: word.slice(-n), last: word.slice(0, -n) },
    ];
    for (const { first, last } of readings) {
      // Person keys are "last first middle" (names.ts): "!" follows " " and precedes every letter.
      const stem = `${last} ${first}`;
      ranges.set(stem, { from: `${stem} `, to: `${stem}!` });
    }
  }
  return [...ranges.values()];
}
