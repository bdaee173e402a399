/**
 * The keys similar-name search finds candidates by: exact lookups that
 * survive the misspellings people make, computed once per name when it is
 * loaded and once per query, so a request never compares names one by one.
 *
 * A name is reduced to the sounds of its words (see wordSound: vowel slips,
 * doubled letters and c/k-like swaps leave a sound unchanged), after
 * dropping "and", "of" and "the" and reading abbreviations as their long
 * form. Its keys are sets of those sounds, order ignored:
 * - all of its sounds ("F"): the same words in any order, with any legal
 *   ending, middle initial in place or "Last, First";
 * - all but one sound, with the first or the last letters of the one left
 *   out ("L", see hints()): one word misspelled beyond its sound, or
 *   abbreviated in a way the table does not know;
 * - all but one middle sound, with no letter ("M"): a middle word (or
 *   middle initial) left out, or another written in its place.
 * A query probes the same shapes from its side: all its sounds, and all
 * but each one, with that one's ends (the same hints) or none.
 * Keys are hashes of KEY_BITS bits: a collision only adds candidates that
 * scoring then drops.
 */
import { canonicalWord } from "./abbreviations.ts";
import { significantWords, wordSound } from "./names.ts";

/** Words of a name (or query) that take part in its keys; the rest only count in scoring. */
export const MAX_KEY_WORDS = 5;

/** Words too common in names to tell them apart. */
const STOP_WORDS = new Set(["and", "of", "the"]);

/** The words of a name that similar-name search compares: significant, no stop words, abbreviations expanded. */
export function comparableWords(name: string): string[] {
  return significantWords(name)
    .filter((w) => !STOP_WORDS.has(w))
    .map(canonicalWord);
}

/**
 * Sounds of the name's first MAX_KEY_WORDS comparable words, in name order.
 * Two words may sound alike ("Joh G. Garcia"): both stay, so leaving one
 * out still leaves the other.
 */
function nameSounds(name: string): string[] {
  return comparableWords(name)
    .map(wordSound)
    .filter((s) => s !== "")
    .slice(0, MAX_KEY_WORDS);
}

/** Bits of a key: with a state and a name id it packs into one SQLite integer (src/db/soundKeys.ts). */
export const KEY_BITS = 27;

/** FNV-1a, cut to KEY_BITS. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % 2 ** KEY_BITS;
}

function key(sounds: string[], hint: string): number {
  return hash(`${[...sounds].sort().join(" ")}|${hint}`);
}

/**
 * What is kept of a left-out sound: its ends. One edit (a wrong, missing,
 * extra or swapped letter of the sound) leaves its first or its last letter
 * as they were, and, once the sound has four letters or more, its first two
 * or its last two; two letters tell a long word from far more names. Sounds
 * of four letters carry both, so that a sound and its misspelling, a letter
 * longer or shorter, always share one. A stored one-letter sound (an
 * initial) is kept once; a query's is probed as either end, so that a
 * two-letter sound missing a letter still meets it.
 */
function hints(sound: string, stored: boolean): string[] {
  if (sound.length === 1) return stored ? [`<${sound}`] : [`<${sound}`, `>${sound}`];
  if (sound.length < 4) return [`<${sound[0]}`, `>${sound.at(-1)}`];
  const long = [`<${sound.slice(0, 2)}`, `>${sound.slice(-2)}`];
  if (sound.length === 4) return [`<${sound[0]}`, `>${sound.at(-1)}`, ...long];
  // A long stored word keeps its first letter too: an abbreviation ("Ent",
  // "Logis") is short, so it probes with one letter.
  return stored ? [`<${sound[0]}`, ...long] : long;
}

const without = (sounds: string[], i: number) => [...sounds.slice(0, i), ...sounds.slice(i + 1)];

/** The keys a name is stored under. */
export function nameSoundKeys(name: string): number[] {
  const sounds = nameSounds(name);
  if (sounds.length === 0) return [];
  const keys = new Set([key(sounds, "")]);
  if (sounds.length > 1) {
    sounds.forEach((sound, i) => {
      const rest = without(sounds, i);
      for (const hint of hints(sound, true)) keys.add(key(rest, hint));
      if (i > 0 && i < sounds.length - 1) keys.add(key(rest, ""));
    });
  }
  return [...keys];
}

/**
 * The keys a query probes: names with the same sounds, or one sound more,
 * less or different. Keys over a single sound are `broad` (every name with
 * that word and one other shares them); the rest are `narrow`.
 */
export function querySoundKeys(query: string): { broad: number[]; narrow: number[] } {
  const sounds = nameSounds(query);
  const broad = new Set<number>();
  const narrow = new Set<number>();
  const probe = (set: string[], hint: string) => (set.length === 1 ? broad : narrow).add(key(set, hint));
  if (sounds.length > 0) probe(sounds, "");
  if (sounds.length > 1) {
    sounds.forEach((sound, i) => {
      for (const hint of [...hints(sound, false), ""]) probe(without(sounds, i), hint);
    });
  }
  return { broad: [...broad], narrow: [...narrow] };
}

/** Most hints a query word is probed with, the empty one included. */
const MAX_PROBES_PER_WORD = 5;

/** Most keys of each kind a query of `words` key words probes. */
export function maxQueryKeys(words: number): { broad: number; narrow: number } {
  if (words <= 1) return { broad: words, narrow: 0 };
  if (words === 2) return { broad: 2 * MAX_PROBES_PER_WORD, narrow: 1 };
  return { broad: 0, narrow: 1 + words * MAX_PROBES_PER_WORD };
}
