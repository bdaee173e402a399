/**
 * Filings a feed gives more than once, found by reading it once before it
 * is loaded (findRepeats), so the load compares each filing with what is
 * stored in its last version only (importFeed holds the earlier versions
 * back, see foldRepeat): loading the same file twice then writes nothing and
 * reports every filing unchanged, where comparing each version in turn
 * would report (and record as a change) the flip from the last version back
 * to an earlier one and forward again, every time.
 *
 * Bounded memory whatever the file's size: each filing key read is kept as
 * a 64-bit hash in an open-addressed table of typed arrays (16 bytes a
 * filing at most, half of it empty), and only the keys met again are kept
 * in a map with the position of their last copy. Two keys may share a
 * hash; that only makes the load hold a record it need not (and it is then
 * written in its own place), never merge two filings.
 */
import { hash64 } from "../domain/hash64.ts";
import { filingKey } from "./merge.ts";
import { FeedFileError, type FeedItem } from "./read.ts";

/** A filing's key as two 32-bit halves of a 64-bit hash. */
function hashOf(record: { state: string; number: string }): [number, number] {
  const key = filingKey(record.state.toUpperCase(), record.number);
  return hash64(key);
}

/** A filing's 64-bit key hash as text: how Repeats names it. */
export function keyHash(record: { state: string; number: string }): string {
  const [a, b] = hashOf(record);
  return `${a.toString(36)}:${b.toString(36)}`;
}

/** The hashes of every key read: an open-addressed set of 64-bit values in two Uint32Arrays. */
class HashSet {
  private hi = new Uint32Array(1 << 12);
  private lo = new Uint32Array(1 << 12);
  private size = 0;

  /** Adds the hash; whether it was there already. */
  add(a: number, b: number): boolean {
    // (0, 0) marks an empty slot.
    if (a === 0 && b === 0) b = 1;
    if (this.size * 2 >= this.hi.length) this.grow();
    const mask = this.hi.length - 1;
    for (let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask; ; i = (i + 1) & mask) {
      if (this.hi[i] === 0 && this.lo[i] === 0) {
        this.hi[i] = a;
        this.lo[i] = b;
        this.size += 1;
        return false;
      }
      if (this.hi[i] === a && this.lo[i] === b) return true;
    }
  }

  private grow() {
    const [hi, lo] = [this.hi, this.lo];
    this.hi = new Uint32Array(hi.length * 2);
    this.lo = new Uint32Array(lo.length * 2);
    this.size = 0;
    hi.forEach((a, i) => {
      const b = lo[i] ?? 0;
      if (a !== 0 || b !== 0) this.add(a, b);
    });
  }
}

/** The filings a feed repeats: for each repeated key hash, the position (in read order) of its last copy. */
export type Repeats = ReadonlyMap<string, number>;

/**
 * What a load compares as one copy of a filing: a filing record, or, in a
 * CSV file, one run of a filing's rows (csv.ts, CsvGroup), whatever it
 * reads as; undefined for anything else.
 */
export function copyKey(item: FeedItem): { state: string; number: string } | undefined {
  if (item.csv) return "rows" in item.csv ? item.csv.key : undefined;
  return "record" in item ? item.record : undefined;
}

/** The filing state of a read item, upper case; undefined for a reject. */
export function stateOfItem(item: FeedItem): string | undefined {
  if ("record" in item) return item.record.state.toUpperCase();
  if ("amendment" in item) return item.amendment.state.toUpperCase();
  return undefined;
}

/** What a first reading of a feed finds. */
export interface FirstReading {
  repeats: Repeats;
  /** The filing states of its records. */
  states: ReadonlySet<string>;
}

/**
 * Reads `items` (a feed, as readFeed yields it) and returns its repeats
 * and states. Positions count every item read, rejects and amendments
 * included, as importFeed counts them. A file that stops being readable
 * has what was read before the problem, where its load stops too.
 */
export async function findRepeats(items: AsyncIterable<FeedItem>): Promise<FirstReading> {
  const seen = new HashSet();
  const repeats = new Map<string, number>();
  const states = new Set<string>();
  let position = 0;
  try {
    for await (const item of items) {
      const key = copyKey(item);
      if (key) {
        const [a, b] = hashOf(key);
        if (seen.add(a, b)) repeats.set(keyHash(key), position);
      }
      const state = stateOfItem(item);
      if (state) states.add(state);
      position += 1;
    }
  } catch (err) {
    if (!(err instanceof FeedFileError)) throw err;
  }
  return { repeats, states };
}
