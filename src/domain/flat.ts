/**
 * Text a response body is written from, in one piece. V8's JSON.stringify
 * has a fast path for objects whose strings are all sequential (written out
 * whole). A string of 13 characters or more made by `+` or a template
 * literal (a cons string: a pair of pointers to its parts), or cut out of a
 * longer one by slice, split or a regular expression's match (a sliced
 * string), sends the whole body back through the general serializer: a
 * change feed page of 100 changes took 0.18 ms to serialize where 0.08
 * (bench/CPU.md). Array#join of two or more non-empty parts always writes
 * a new sequential string; strings under 13 characters always are one.
 */

/** `parts` (two or more, none empty) as one sequential string. */
export function joined(...parts: string[]): string {
  return parts.join("");
}

/** `text` as a sequential string: itself when short, else a copy (it may be a cons or sliced string). */
export function flat(text: string): string {
  return text.length < 13 ? text : joined(text.slice(0, 1), text.slice(1));
}
