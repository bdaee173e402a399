/**
 * Text cut to a length, never through a character: a surrogate pair that
 * would be split (an emoji) is left out whole. A lone half is no text to
 * store (it is not UTF-8) and reads back as another value on every load.
 * What the importer cuts (names, collateral, descriptions) and what error
 * bodies cut (src/http/errors.ts) are cut alike.
 */

/** `text` in at most `max` UTF-16 units. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** `text` cut to `max` units and marked with an ellipsis when it was longer. */
export const clip = (text: string, max: number): string => (text.length <= max ? text : `${cutText(text, max)}…`);
