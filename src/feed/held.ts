/**
 * The earlier copies of a filing a feed gives more than once, held until
 * its last copy is read (src/feed/repeats.ts finds which and where): the
 * load then compares one filing, made of them all, with what is stored.
 * A copy is a filing record (NDJSON, XML), or one run of a CSV filing's
 * rows, which is read again with its other runs.
 *
 * A run of the CLI holds them in memory (HeldInMemory): as many as the
 * file repeats, each gone when its last copy comes. The platform's
 * loader holds them in D1 between its range steps (src/platform/).
 */
import type { CsvGroup } from "./csv.ts";
import type { FeedItem } from "./read.ts";

type FilingItem = Extract<FeedItem, { record: unknown }>;

/** An earlier copy, with its place in the file's read order. */
export type HeldCopy = { position: number } & ({ item: FilingItem } | { group: CsvGroup });

export interface HeldCopies {
  /** Keeps `copy` of the filing whose key hash is `hash`. */
  hold(hash: string, copy: HeldCopy): void | Promise<void>;
  /** The copies held of each of `hashes`, in read order, no longer held. */
  take(hashes: string[]): Promise<Map<string, HeldCopy[]>>;
  /** Every copy still held (the file ended before their last copy), no longer held. */
  rest(): Promise<Map<string, HeldCopy[]>>;
  /** Makes what was held so far outlast the reading (a range step ends). */
  flush?(): Promise<void>;
}

export class HeldInMemory implements HeldCopies {
  private readonly held = new Map<string, HeldCopy[]>();

  hold(hash: string, copy: HeldCopy): void {
    this.held.set(hash, [...(this.held.get(hash) ?? []), copy]);
  }

  async take(hashes: string[]): Promise<Map<string, HeldCopy[]>> {
    const out = new Map<string, HeldCopy[]>();
    for (const hash of hashes) {
      const copies = this.held.get(hash);
      if (copies) out.set(hash, copies);
      this.held.delete(hash);
    }
    return out;
  }

  async rest(): Promise<Map<string, HeldCopy[]>> {
    const out = new Map(this.held);
    this.held.clear();
    return out;
  }
}
