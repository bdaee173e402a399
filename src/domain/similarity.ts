/**
 * How alike two debtor names are, from 0 (nothing shared) to 1 (the same
 * under UCC search logic). Used to rank the candidates of similar-name
 * search; never run over the whole table.
 *
 * The score is the better of two views:
 * - word by word: each word of one name is paired with its closest word of
 *   the other (edit distance, adjacent swaps counting once), weighted by
 *   length; the query's words weigh more than the candidate's extra words,
 *   so "Acme" finds "Acme Industries" but not the reverse as strongly;
 * - as a whole: the edit distance of the two names' words run together,
 *   which catches words run together or split ("Prairiebakery"); when one
 *   name has more words, also with its first word moved last or its last
 *   word moved first, so a person's name run together first name first
 *   matches it filed last name first ("Bettywalker" and "Walker, Betty").
 * Both compare the names' comparable words (soundKeys.ts): "and", "of" and
 * "the" left out, and abbreviations read as their long form, so "Mfg" and
 * "Manufacturing" are one word. A word that could abbreviate the other
 * (same first letter, then some of its letters in order: "Logis" and
 * "Logistics") counts as nearly the same word, so abbreviations the table
 * does not know still score high; but not a word of the name with more
 * words against a word of the other, which may be words run together
 * ("Smith" of "Aaliyah Smith" does not abbreviate "Smithbakery").
 */
import { comparableWords } from "./soundKeys.ts";

/** Names scoring below this are not similar enough to show. */
export const SIMILARITY_THRESHOLD = 0.7;

/**
 * The last row of an optimal string alignment of `a` and `b` (insertions,
 * deletions, substitutions, adjacent swaps): entry j is the distance from
 * `a` to b[..j], where b[..j] may start for free where `start(j)` says (the
 * cost of reaching position j of `b` before any letter of `a`).
 */
function alignment(a: string, b: string, start: (j: number) => number): number[] {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array(rows * cols).fill(0);
  // Every cell read below was written before (the first row and column here, the rest in order).
  const at = (k: number) => d[k] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = start(j);
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(at((i - 1) * cols + j) + 1, at(i * cols + j - 1) + 1, at((i - 1) * cols + j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, at((i - 2) * cols + j - 2) + 1);
      }
      d[i * cols + j] = v;
    }
  }
  return d.slice((rows - 1) * cols);
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  return alignment(a, b, (j) => j).at(-1) ?? 0;
}

/**
 * Edits from `a` to the closest run of consecutive whole `words` run
 * together: "silvercreek" is none from "Silver Creek" of "Silver Creek
 * Industries", and "johnsonplumbing" eight from "Johnson" of "Aaliyah
 * Johnson" (a run never starts or ends inside a word).
 */
function wordRunDistance(a: string, words: string[]): number {
  const b = words.join("");
  const bounds = [0];
  for (const w of words) bounds.push((bounds.at(-1) ?? 0) + w.length);
  const before = (j: number) => bounds.findLast((k) => k <= j) ?? 0;
  const after = (j: number) => bounds.find((k) => k >= j) ?? b.length;
  const last = alignment(a, b, (j) => j - before(j));
  return Math.min(...last.map((v, j) => v + after(j) - j));
}

/** Likeness of a word and a longer word it could abbreviate. */
const ABBREVIATION_LIKENESS = 0.9;

/**
 * Whether `short` could abbreviate `long`: two letters or more, at most 60%
 * of its length (so "Mary" does not abbreviate "Marya"), the same first
 * letter and the rest in order.
 */
function abbreviates(short: string, long: string): boolean {
  if (short.length < 2 || short.length > 0.6 * long.length || short[0] !== long[0]) return false;
  let matched = 0;
  for (const ch of long) if (ch === short[matched]) matched += 1;
  return matched >= short.length;
}

function likeness(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 0 : 1 - editDistance(a, b) / longest;
}

/** Likeness of a word `w` and a word `t`; `t` may abbreviate `w` only if `shortT`. */
function wordLikeness(w: string, t: string, shortT: boolean): number {
  const byEdits = likeness(w, t);
  return abbreviates(w, t) || (shortT && abbreviates(t, w)) ? Math.max(byEdits, ABBREVIATION_LIKENESS) : byEdits;
}

/**
 * Length-weighted mean, over `from`'s words, of each one's best likeness in
 * `to`. When `from` has fewer words, a long word of it may be words of `to`
 * run together, and a word of `to` it starts with is no abbreviation of it:
 * "Smithbakery" is not "Smith" abbreviated, so "Aaliyah Smith" does not
 * cover it.
 */
function coverage(from: string[], to: string[]): number {
  const shortTo = from.length >= to.length;
  let total = 0;
  let weight = 0;
  for (const w of from) {
    total += w.length * Math.max(0, ...to.map((t) => wordLikeness(w, t, shortTo)));
    weight += w.length;
  }
  return weight === 0 ? 0 : total / weight;
}

/** The words run together as written, and with the first word moved last or the last moved first. */
function runTogether(words: string[]): string[] {
  if (words.length < 2) return [words.join("")];
  const [head, ...tail] = words;
  return [words.join(""), [...tail, head].join(""), [words.at(-1), ...words.slice(0, -1)].join("")];
}

/**
 * Likeness of a query run together and some consecutive words of a name
 * with more words, run together: like coverage, the query's letters weigh
 * 0.7 and the name's 0.3, so "Silvercreek" scores 0.86 against "Silver
 * Creek Industries" and "Johnsonplumbing" 0.48 against "Aaliyah Johnson".
 */
function runLikeness(q: string, words: string[]): number {
  if (q.length === 0) return 0;
  const matched = Math.max(0, q.length - wordRunDistance(q, words));
  return 0.7 * (matched / q.length) + 0.3 * (matched / words.join("").length);
}

/**
 * Likeness of two names as a whole: their words run together, the name with
 * more words in any order runTogether reads; a query with fewer words may
 * also be some of the name's words only (runLikeness).
 */
function wholeLikeness(q: string[], c: string[]): number {
  if (q.length === c.length) return likeness(q.join(""), c.join(""));
  const joined = (q.length < c.length ? q : c).join("");
  const readings = runTogether(q.length < c.length ? c : q).map((w) => likeness(joined, w));
  if (q.length < c.length) readings.push(runLikeness(joined, c));
  return Math.max(...readings);
}

export function similarity(query: string, candidate: string): number {
  const q = comparableWords(query);
  const c = comparableWords(candidate);
  const byWords = 0.7 * coverage(q, c) + 0.3 * coverage(c, q);
  const whole = wholeLikeness(q, c);
  return Math.round(Math.max(byWords, whole) * 1000) / 1000;
}
