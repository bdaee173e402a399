/**
 * Joins byte chunks read from a stream into one array, for the readers that
 * carry part of a line or character across chunks (lines.ts, xml.ts).
 * A lone non-empty part is returned as it is: most joins have only one.
 */
export function joinBytes(parts: readonly Uint8Array[]): Uint8Array {
  const filled = parts.filter((p) => p.length > 0);
  if (filled.length <= 1) return filled[0] ?? new Uint8Array(0);
  const out = new Uint8Array(filled.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of filled) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
