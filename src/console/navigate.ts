/**
 * Moving between views: a new fragment is a hashchange, which the app
 * follows. Sending a form again with the same values (after fixing the key,
 * or to retry after a 429) changes nothing in the URL, so it is announced
 * as a reload instead.
 */
export const RELOAD_EVENT = "console:reload";

export function navigate(hash: string): void {
  if (location.hash === hash) window.dispatchEvent(new Event(RELOAD_EVENT));
  else location.hash = hash;
}
