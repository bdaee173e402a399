/**
 * Name match keys, computed once when data is loaded and once per query.
 *
 * Debtor names follow the UCC standard search logic that filing offices use
 * (IACA model rules): case, punctuation and spaces are ignored, `&` reads as
 * "and", a leading "The" and ending noise words such as Inc or LLC are
 * dropped. "The Acme Co., Inc." and "ACME COMPANY" share the key "acme".
 *
 * Secured-party names keep their word boundaries instead, because lender
 * search matches whole leading words: "wells fargo" finds
 * "WELLS FARGO BANK, N.A." but "wells far" does not.
 */

/**
 * Ending noise words and phrases, as sequences of words. Longer phrases come
 * first so "limited liability company" is dropped whole, not word by word.
 */
const ENDING_NOISE: readonly (readonly string[])[] = [
  ["professional", "limited", "liability", "company"],
  ["limited", "liability", "company"],
  ["limited", "liability", "partnership"],
  ["limited", "liability", "limited", "partnership"],
  ["limited", "partnership"],
  ["professional", "association"],
  ["professional", "corporation"],
  ["l", "l", "l", "p"],
  ["l", "l", "c"],
  ["l", "l", "p"],
  ["p", "l", "l", "c"],
  ["l", "p"],
  ["l", "c"],
  ["p", "c"],
  ["p", "a"],
  ["incorporated"],
  ["inc"],
  ["corporation"],
  ["corp"],
  ["company"],
  ["co"],
  ["limited"],
  ["ltd"],
  ["llc"],
  ["lc"],
  ["llp"],
  ["lllp"],
  ["lp"],
  ["pllc"],
  ["plc"],
  ["pc"],
  ["pa"],
  ["chtd"],
  ["chartered"],
];

/**
 * Lowercase words of a name, with `&` read as "and". Periods and apostrophes
 * join rather than split, so "N.A." is one word like "NA", and "O'Brien"
 * like "OBrien".
 */
function words(name: string): string[] {
  return name
    .toLowerCase()
    .replaceAll("&", " and ")
    .replace(/[.'’]/g, "")
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

function endsWith(ws: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length >= ws.length) return false; // never drop the whole name
  const start = ws.length - phrase.length;
  return phrase.every((w, i) => ws[start + i] === w);
}

/** The words of a debtor name that count under UCC search logic. */
export function significantWords(name: string): string[] {
  let ws = words(name);
  if (ws.length > 1 && ws[0] === "the") ws = ws.slice(1);
  let dropped = true;
  while (dropped) {
    dropped = false;
    for (const phrase of ENDING_NOISE) {
      if (endsWith(ws, phrase)) {
        ws = ws.slice(0, ws.length - phrase.length);
        dropped = true;
        break;
      }
    }
  }
  return ws;
}

/** The UCC search-logic key of a debtor name; "" if it has no letters or digits. */
export function debtorNameKey(name: string): string {
  return significantWords(name).join("");
}

/** Consonants that sound alike, folded to one letter. */
const SOUND_CLASSES: Record<string, string> = { c: "k", q: "k", z: "s", v: "f", j: "g" };

/**
 * A coarse sound of a word: its first letter, then its consonants with
 * look-alike ones folded and repeats collapsed. Vowel slips, doubled letters
 * and swaps such as s/z or c/k leave it unchanged ("Sanches" and "Sanchez",
 * "Bakkery" and "Bakery"), so similar-name search finds candidates by it.
 */
export function wordSound(word: string): string {
  const w = word.replace(/ph/g, "f").replace(/ck/g, "k");
  const fold = (ch: string) => SOUND_CLASSES[ch] ?? ch;
  let out = fold(w[0] ?? "");
  let last = out;
  for (const ch of w.slice(1)) {
    if ("aeiouyhw".includes(ch)) {
      last = "";
      continue;
    }
    const folded = fold(ch);
    if (folded !== last) out += folded;
    last = folded;
  }
  return out;
}

/** Lowercase words separated by single spaces: the secured-party match form. */
export function securedNameWords(name: string): string {
  return words(name).join(" ");
}

/**
 * The half-open key range [from, to) of secured-party names that equal
 * `query` or start with it as whole words. Stored names hold only [a-z0-9 ],
 * so any key from "wells fargo" up to "wells fargo!" (the character after the
 * space) is either the query itself or the query followed by a space and
 * more words. One index range, no LIKE.
 */
export function securedNameRange(query: string): { from: string; to: string } {
  const from = securedNameWords(query);
  return { from, to: `${from}!` };
}
