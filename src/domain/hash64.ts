/**
 * A 64-bit hash of a text as two 32-bit halves: FNV-1a over its UTF-16
 * units from two seeds, each mixed at the end so texts differing in their
 * last characters spread. Not cryptographic: it names rows and keys that
 * carry no id of their own (a feed's repeated filings, an office's rows),
 * seals cursors (src/http/cursor.ts), and its first half (hash32) places a
 * split state's filing in its part (src/db/shards.ts).
 */
function fnv(text: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

/** FNV-1a over `text` from its standard 32-bit offset basis, mixed at the end (hash64's first half). */
export function hash32(text: string): number {
  return fnv(text, 0x811c9dc5);
}

export function hash64(text: string): [number, number] {
  return [hash32(text), fnv(text, 0x2f5a7c1d)];
}
