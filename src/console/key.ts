/**
 * The API key the person typed, for this tab only: sessionStorage, which
 * the browser drops when the tab closes and never sends anywhere. Nothing
 * else (no cookie, no localStorage, no URL) ever holds it.
 */
const SLOT = "lien-console:api-key";

/** The key while the page lives, for a browser that refuses storage (it is then typed again after a reload). */
let inPage = "";

export function savedKey(): string {
  try {
    return sessionStorage.getItem(SLOT) ?? inPage;
  } catch {
    return inPage;
  }
}

export function saveKey(key: string): void {
  inPage = key;
  try {
    if (key) sessionStorage.setItem(SLOT, key);
    else sessionStorage.removeItem(SLOT);
  } catch {
    // Storage refused: the key in the page serves.
  }
}
