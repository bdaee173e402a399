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
 *   which catches words run together or split ("Prairiebakery"). When one
 *   name is one word and the other more, also the other's words with the
 *   first moved last or the last moved first, so a person's name run
 *   together first name first matches it filed last name first
 *   ("Bettywalker" and "Walker, Betty"); and when the query is that one
 *   word, its closest run of the name's whole words (runLikeness:
 *   "Silvercreek" and "Silver Creek Industries").
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

/** Rows that alignment() reuses, grown to the longest name met: scoring runs it for every candidate. */
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * The last row of an optimal string alignment of `a` and `b` (insertions,
 * deletions, substitutions, adjacent swaps): entry j is the distance from
 * `a` to b[..j], given row 0 as `first` writes it (the cost of reaching
 * position j of `b` before any letter of `a`). The row is valid until the
 * next call.
 */
function alignment(a: string, b: string, first: (row: Int32Array) => void): Int32Array {
  const cols = b.length + 1;
  if (rows[0].length < cols) rows = [new Int32Array(cols), new Int32Array(cols), new Int32Array(cols)];
  let [before, above, row] = rows;
  first(above);
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    const x = a.charCodeAt(i - 1);
    const xBefore = a.charCodeAt(i - 2);
    for (let j = 1; j < cols; j++) {
      const y = b.charCodeAt(j - 1);
      let v = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + (x === y ? 0 : 1));
      if (i > 1 && j > 1 && x === b.charCodeAt(j - 2) && xBefore === y) v = Math.min(v, (before[j - 2] ?? 0) + 1);
      row[j] = v;
    }
    [before, above, row] = [above, row, before];
  }
  return above;
}

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  return (
    alignment(a, b, (row) => {
      for (let j = 0; j <= b.length; j++) row[j] = j;
    })[b.length] ?? 0
  );
}

/**
 * Edits from `a` to the closest run of consecutive whole `words` run
 * together: "silvercreek" is none from "Silver Creek" of "Silver Creek
 * Industries", and "johnsonplumbing" eight from "Johnson" of "Aaliyah
 * Johnson" (a run never starts or ends inside a word).
 */
function wordRunDistance(a: string, words: string[]): number {
  const b = words.join("");
  // Row 0: reaching position j costs the letters since its word's start (none at a word's end).
  const last = alignment(a, b, (row) => {
    let j = 0;
    row[0] = 0;
    for (const w of words) for (let k = 1; k <= w.length; k++) row[++j] = k % w.length;
  });
  // A run ending at j leaves out the rest of its word.
  let best = Number.POSITIVE_INFINITY;
  let end = b.length;
  for (const w of words.toReversed()) {
    for (let k = 0; k < w.length; k++) best = Math.min(best, (last[end - k] ?? 0) + k);
    end -= w.length;
  }
  return Math.min(best, last[0] ?? 0);
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

/** At most likeness(a, b) for strings of these lengths. */
const likenessBound = (a: number, b: number) => (Math.max(a, b) === 0 ? 0 : 1 - Math.abs(a - b) / Math.max(a, b));

/** A name's comparable words, and the same run together. */
interface Words {
  list: string[];
  joined: string;
}

const wordsOf = (name: string): Words => {
  const list = comparableWords(name);
  return { list, joined: list.join("") };
};

/**
 * The better of `best` and the likeness of two names as a whole: their
 * words run together; when one of them is one word (words run together),
 * the other's words also in any order runTogether reads, and, when the
 * query is that one word, some of the name's words only (runLikeness).
 * Readings that cannot beat `best` are not computed.
 */
function wholeLikeness(query: Words, candidate: Words, best: number): number {
  const [q, c] = [query.list, candidate.list];
  const [joinedQ, joinedC] = [query.joined, candidate.joined];
  // Every order of the words run together has these lengths.
  const bound = likenessBound(joinedQ.length, joinedC.length);
  if (bound > best) best = Math.max(best, likeness(joinedQ, joinedC));
  if (q.length === c.length || Math.min(q.length, c.length) !== 1) return best;
  const [one, more] = q.length === 1 ? [joinedQ, c] : [joinedC, q];
  if (bound > best) {
    for (const w of runTogether(more).slice(1)) best = Math.max(best, likeness(one, w));
  }
  if (q.length === 1 && 0.7 + 0.3 * Math.min(1, one.length / joinedC.length) > best) {
    best = Math.max(best, runLikeness(one, c));
  }
  return best;
}

/**
 * Scores names against `query`, whose words are read once: a request
 * scores every candidate against one query, and reading the words of a
 * name of a thousand characters costs more than most scores.
 */
export function similarityTo(query: string): (candidate: string) => number {
  const q = wordsOf(query);
  return (candidate) => {
    const c = wordsOf(candidate);
    const byWords = 0.7 * coverage(q.list, c.list) + 0.3 * coverage(c.list, q.list);
    return Math.round(wholeLikeness(q, c, byWords) * 1000) / 1000;
  };
}

export function similarity(query: string, candidate: string): number {
  return similarityTo(query)(candidate);
}
