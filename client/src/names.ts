// Generated from src/domain/names.ts by `npm run client:types` (scripts/clientNames.ts): edit that file, not this one.
/**
 * Name match keys, computed once when data is loaded and once per query:
 * the one implementation of the API's name rules. The typed client's
 * watch(), which matches a watchlist against the change feed, runs a copy
 * of this file (client/src/names.ts, written by `npm run client:types`,
 * scripts/clientNames.ts; CI checks it is current), so it matches names
 * exactly as the server does. The client package compiles only its own
 * folder: this file imports nothing, so the copy compiles there as it is.
 *
 * Debtor names follow the standard search logic that filing offices publish
 * for UCC searches. Sources (cited below by their tags):
 * - [IACA] IACA Model Administrative Rules, rule 503 (standard search logic)
 *   and its "Ending Noise Words" list (503.4), which [NC] and [MS] adopt by
 *   reference.
 * - [TX] 1 Tex. Admin. Code §95.503(1)(B)-(H).
 * - [TN] Tenn. Comp. R. & Regs. 1360-08-05-.04(1)(e), the ending list.
 * - [MT] Mont. Admin. R. 44.6.201(3)-(5), the ending list.
 * - [MA] 950 CMR 140.49(5), the ending list of Massachusetts's rule.
 * - [CO] Colorado Secretary of State, "Standard search"
 *   (coloradosos.gov/pubs/UCC/standardSearch.html): how names are
 *   normalized, with a table of individual-name searches.
 * - [NC] 18 NCAC 05B .0503(6); [MS] 1 Miss. Code R. 4-12.4(G); [UT] Utah
 *   Admin. Code R154-2-504: the individual-name rule, in the words of [TX].
 * - [IA] Iowa Admin. Code 721-30.5(2)(a)(1); [IN] Indiana UCC rule 501.1:
 *   a single name is a last name.
 *
 * Organizations: case, punctuation, accents and spaces are ignored, `&`
 * reads as "and", a leading "The" and ending noise words are dropped, and
 * what is left must be equal: "The Acme Co., Inc." and "ACME COMPANY" share
 * the key "acme".
 *
 * Individuals are matched part by part (last, first, middle), so their keys
 * keep the parts apart: see personKey() and debtorQuery().
 *
 * Secured-party names keep their word boundaries instead, because lender
 * search matches whole leading words: "wells fargo" finds
 * "WELLS FARGO BANK, N.A." but "wells far" does not.
 *
 * Keys are stored when a filing is loaded (src/db/records.ts): a change here
 * that gives any name another key needs `npm run db:rekey` on every
 * database (docs/deploying.md).
 */
/** A party's kind, as the API names it: src/domain/kinds.ts, PARTY_TYPES (test/names.test.ts checks they agree). */
type PartyType = "Individual" | "Organization";

/**
 * Ending noise words and phrases: words at the end of an organization's
 * name that only say what kind of organization it is are ignored [TX (E),
 * IACA 503.4]. Offices publish their
 * own lists; this is the union of the lists found, so a search here finds
 * whatever any of those offices' searches would. Periods and apostrophes
 * join letters ("N.A." is "na", "Ass'n" is "assn"); other punctuation splits
 * words ("Co-op" is "co op", listed both ways).
 */
const ENDING_NOISE_PHRASES: readonly string[] = [
  // [TN] and [MT]
  "association",
  "assn",
  "business trust",
  "chartered",
  "co",
  "company",
  "corp",
  "corporation",
  "credit union",
  "cu",
  "federal savings bank",
  "fsb",
  "general partnership",
  "gp",
  "inc",
  "incorporated",
  "lc",
  "limited",
  "limited liability company",
  "limited partnership",
  "llc",
  "llp",
  "lp",
  "ltd",
  "na",
  // [TN]
  "agency",
  "assc",
  "assoc",
  "associates",
  "attorneys at law",
  "bank",
  "national bank",
  "charter",
  "gen part",
  "limited liability partnership",
  "ltee",
  "medical doctors professional association",
  "mdpa",
  "medical doctors professional corporation",
  "mdpc",
  "national association",
  // [MT]
  "chtd",
  "co op",
  "coop",
  "cooperative",
  "corporations",
  "fcu",
  "federal credit union",
  "joint stock company",
  "jsc",
  "joint venture",
  "jv",
  "limited company",
  "limited liability limited partnership",
  "lllp",
  "ltd co",
  // [MA] (a)-(i): the forms no other list here has. Its others are above or
  // below ("Professional corporation", "P.C."); "L.L.C'" and "L.P" read as
  // "llc" and "lp".
  "prof corp",
  "ltd partnership",
  "ltd part",
  "llco",
  "massachusetts limited liability partnership",
  "massachusetts business trust",
  // [CO]: its example lists "ABC Partnership" among the matches for "The
  // ABC Company"; it also drops "the" at the end ("ACME COMPANY, THE").
  "partnership",
  "the",
  // Professional forms and spaced-out initials, kept from this service's
  // first list (the excerpts of [TN] and [MT] found end before the letter P);
  // [MA] (c) lists "professional corporation" and "pc".
  "professional limited liability company",
  "pllc",
  "professional association",
  "pa",
  "professional corporation",
  "pc",
  "plc",
  "l l c",
  "l l p",
  "l l l p",
  "l p",
  "l c",
  "p l l c",
  "p c",
  "p a",
];

/** The ending list as word sequences, longest first, so a phrase is dropped whole before its last word alone. */
const ENDING_NOISE: readonly (readonly string[])[] = ENDING_NOISE_PHRASES.map((p) => p.split(" ")).sort(
  (a, b) => b.length - a.length,
);

/** Letters that Unicode decomposition does not reduce to a base letter. */
const LETTER_FOLDS: Record<string, string> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ħ: "h",
  ı: "i",
  ŧ: "t",
  ŋ: "n",
};

/**
 * Lowercase, with accented letters folded to their base letters: "Peña" is
 * "pena", "Straße" "strasse", "Łódź" "lodz". [TX (D)] and [IACA 503.1.3(b)]
 * ignore accents with punctuation; keeping the base letter makes "PEÑA" and the
 * "PENA" that most office systems store (they accept A-Z only) one name.
 * NFKD also turns compatibility forms (ligatures, full-width, mathematical,
 * enclosed and black-letter letters) into plain letters. It runs before
 * lowercasing: "𝐇" and "ℌ" have no lowercase form, so lowercased first they
 * would stay themselves, and NFKD would then give a capital H, which no
 * later step reads as a letter. (For letters and digits this is Unicode's
 * compatibility caseless match; a second NFKD after lowercasing changes
 * nothing.)
 */
export function foldAccents(name: string): string {
  return name
    .normalize("NFKD")
    .toLowerCase()
    .replace(/\p{M}+/gu, "")
    .replace(/[ßæœøłđðþħıŧŋ]/g, (ch) => LETTER_FOLDS[ch] ?? ch);
}

/** Periods and apostrophes join letters rather than split words. */
const JOINERS = /[.'’ʼ‘]/g;

/**
 * Lowercase ASCII words of a name, accents folded, with `&` read as "and"
 * [TX (C)]. Periods and apostrophes join rather than split, so "N.A." is one
 * word like "NA", and "O'Brien" like "OBrien"; every other character that
 * is not A-Z or 0-9 separates words [TX (D)].
 */
function words(name: string): string[] {
  return foldAccents(name)
    .replaceAll("&", " and ")
    .replace(JOINERS, "")
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

function endsWith(ws: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length >= ws.length) return false; // never drop the whole name
  const start = ws.length - phrase.length;
  return phrase.every((w, i) => ws[start + i] === w);
}

/**
 * The words of an organization name that count under UCC search logic: a
 * leading "The" dropped [TX (F)], then ending noise words dropped from the
 * end, repeatedly ("Acme Co., Inc." is "acme"; "U.S. Bank, N.A." is "us"),
 * never the whole name.
 */
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

/**
 * The search-logic key of an organization name: its significant words with
 * the spaces removed [TX (G)]; "" if it has no letters or digits. Keys hold
 * only [a-z0-9].
 */
export function debtorNameKey(name: string): string {
  return significantWords(name).join("");
}

/** An individual's name in the parts offices search by, each [a-z0-9]* with its spaces removed [CO]. */
export interface PersonName {
  last: string;
  first: string;
  middle: string;
}

/**
 * Name suffixes, ignored: an individual is searched by last, first and
 * middle name and nothing else [CO]. A lone "V" is not among them: it is
 * more often an initial.
 */
const SUFFIXES = new Set(["jr", "sr", "ii", "iii", "iv", "2nd", "3rd", "4th", "esq", "md", "phd", "dds", "dvm", "cpa"]);

/**
 * Words that begin a last name written after the given names ("Maria de la
 * Cruz", "Ludwig van Beethoven"), so the last name of "First Middle Last"
 * takes them along: the same last name as "De La Cruz, Maria".
 */
const SURNAME_PARTICLES = new Set([
  "da",
  "das",
  "de",
  "del",
  "dela",
  "della",
  "der",
  "des",
  "di",
  "do",
  "dos",
  "du",
  "la",
  "le",
  "mc",
  "st",
  "ste",
  "ten",
  "ter",
  "van",
  "vander",
  "von",
]);

/** Words of one part of a person's name: split on spaces, each with everything but a-z and 0-9 removed. */
function nameTokens(part: string): string[] {
  return part
    .split(/[\s,]+/)
    .map((t) => t.replace(/[^a-z0-9]/g, ""))
    .filter((t) => t.length > 0);
}

/** `tokens` without trailing suffixes, keeping at least one token. */
function withoutSuffixes(tokens: string[]): string[] {
  const out = [...tokens];
  while (out.length > 1 && SUFFIXES.has(out.at(-1) ?? "")) out.pop();
  return out;
}

/**
 * An individual debtor's name read into parts. Names come as one string:
 * "Last, First Middle Suffix" when there is a comma (the form offices
 * display, and the one the XML importer composes from structured fields),
 * else "First Middle Last Suffix". A single word is a last name [IA, IN].
 * Several middle names join into one middle part, as do the words of a
 * last name ("Van Buren" is "vanburen") [CO]. Null when no last name is
 * left.
 */
export function personName(name: string): PersonName | null {
  return personReadings(name)[0] ?? null;
}

/** personName() of `tokens` ("First Middle Last") with the last name starting at token `lastStart`. */
function givenFirst(tokens: string[], lastStart: number): PersonName {
  return {
    last: tokens.slice(lastStart).join(""),
    first: lastStart > 0 ? (tokens[0] ?? "") : "",
    middle: tokens.slice(1, lastStart).join(""),
  };
}

/**
 * The ways a search reads an individual's name: personName() first, then,
 * for "First Middle Last" whose last name is one word, the last two words
 * as one last name. A hyphen is punctuation and spaces are disregarded
 * [TX (D), (G)], so "Mary Smith Jones" may mean "Smith-Jones, Mary" as
 * much as "Jones, Mary Smith". An initial is never half of a last name
 * ("Mary A Jones" has one reading).
 */
function personReadings(name: string): PersonName[] {
  const text = foldAccents(name).replaceAll("&", " and ").replace(JOINERS, "");
  const comma = text.indexOf(",");
  const before = comma < 0 ? text : text.slice(0, comma);
  const after = comma < 0 ? [] : nameTokens(text.slice(comma + 1));
  // "John Smith, Jr.": a comma before a suffix only.
  if (comma >= 0 && after.length > 0 && after.every((t) => SUFFIXES.has(t)) && nameTokens(before).length > 1) {
    return personReadings(before);
  }
  if (comma >= 0) {
    const last = withoutSuffixes(nameTokens(before)).join("");
    if (last === "") return [];
    const given = withoutSuffixes(after);
    return [{ last, first: given[0] ?? "", middle: given.slice(1).join("") }];
  }
  const tokens = withoutSuffixes(nameTokens(before));
  if (tokens.length === 0) return [];
  let lastStart = tokens.length - 1;
  for (let i = 1; i < tokens.length - 1; i++) {
    if (SURNAME_PARTICLES.has(tokens[i] ?? "")) {
      lastStart = i;
      break;
    }
  }
  const readings = [givenFirst(tokens, lastStart)];
  const joined = lastStart - 1;
  if (lastStart === tokens.length - 1 && joined > 0 && (tokens[joined]?.length ?? 0) > 1) {
    readings.push(givenFirst(tokens, joined));
  }
  return readings;
}

/**
 * The match key of an individual: "last first middle", parts separated by
 * single spaces, empty parts kept ("smith john a", "smith john ", "cher  ").
 * Organization keys never hold a space, so the two kinds never collide, and
 * the variants a search accepts are key ranges (see debtorQuery()).
 */
function personKey(p: PersonName): string {
  return `${p.last} ${p.first} ${p.middle}`;
}

/**
 * The stored match key of a debtor: individuals (as the filer typed them)
 * by their name parts, organizations by debtorNameKey(). An individual's
 * name with no letters or digits falls back to the organization key ("").
 */
export function debtorKey(name: string, type: PartyType): string {
  const person = type === "Individual" ? personName(name) : null;
  return person ? personKey(person) : debtorNameKey(name);
}

/** The character after `c`: keys starting with `c` are those in [c, nextChar(c)). */
export const nextChar = (c: string) => String.fromCharCode(c.charCodeAt(0) + 1);

/**
 * A condition on the middle name of an individual key: the middle part
 * starts at the second space after the last name, and the first name
 * starts at `firstAt` (1-based, as SQL counts).
 */
type MiddleRule = { firstAt: number } & ({ initial: string } | { names: string[] });

/**
 * One index-served piece of a debtor-name query: a stored key equal to
 * `key`, or a key in [from, to) whose middle name passes `middle` if given.
 * `few` marks a range expected to hold few debtors (first names filed as an
 * initial only).
 */
export type KeySpan = { key: string } | { from: string; to: string; middle?: MiddleRule; few?: boolean };

/** The middle part of an individual key (see MiddleRule). */
function middleOf(key: string, firstAt: number): string {
  const rest = key.slice(firstAt - 1);
  return rest.slice(rest.indexOf(" ") + 1);
}

function middlePasses(rule: MiddleRule, key: string): boolean {
  const middle = middleOf(key, rule.firstAt);
  return "initial" in rule ? middle.startsWith(rule.initial) : rule.names.includes(middle);
}

/** Whether a stored key falls in `span`. */
function spanIncludes(span: KeySpan, key: string): boolean {
  if ("key" in span) return key === span.key;
  return key >= span.from && key < span.to && (!span.middle || middlePasses(span.middle, key));
}

/**
 * The keys of the individuals a search for `p` finds, following [TX (H)]
 * (also [NC], [MS], [UT]) and [CO]:
 * - the last name must be equal;
 * - a query without a first name finds only names without first and
 *   middle names [CO, IA, IN];
 * - a first name finds the same first name or its initial ("John" finds
 *   "J"); an initial finds every first name starting with it ("J" finds
 *   "John" and "J") [TX (H)];
 * - no middle name finds every middle name, and none [TX (H)]; a middle
 *   initial finds middle names starting with it; a full middle name finds
 *   itself or its initial; a query with a middle name does not find names
 *   without one, nor other middle names ("John A Smith" does not find
 *   "John Smith" or "John B Smith") [TX (H)].
 * Each variant is an exact key or one key range, at most four of them.
 */
function personSpans(p: PersonName): KeySpan[] {
  const { last: l, first: f, middle: m } = p;
  if (f === "") return [{ key: `${l}  ` }];
  const firstAt = l.length + 2;
  if (f.length === 1) {
    const range = { from: `${l} ${f}`, to: `${l} ${nextChar(f)}` };
    if (m === "") return [range];
    const middle: MiddleRule = m.length === 1 ? { firstAt, initial: m } : { firstAt, names: [m, m.charAt(0)] };
    return [{ ...range, middle }];
  }
  return [f, f.charAt(0)].flatMap((given): KeySpan[] => {
    const stem = `${l} ${given} `;
    const few = given.length === 1;
    if (m === "") return [{ from: stem, to: `${l} ${given}!`, few }];
    if (m.length === 1) return [{ from: `${stem}${m}`, to: `${stem}${nextChar(m)}`, few }];
    return [{ key: `${stem}${m}` }, { key: `${stem}${m[0]}` }];
  });
}

/** What a debtor-name query finds: one organization key, and the spans of its individual reading. */
export interface DebtorQuery {
  orgKey: string;
  personSpans: KeySpan[];
}

/**
 * What a debtor-name query means. The query has no type, so it is read both
 * ways: as an organization (one exact key) and as an individual (the spans
 * of each of its personReadings()), and a debtor matching any is found.
 */
export function debtorQuery(name: string): DebtorQuery {
  const [person, ...others] = personReadings(name);
  const spans = person ? personSpans(person) : [];
  // A last name of two words run together is rare, so its ranges are
  // marked as holding few debtors.
  for (const other of others) spans.push(...personSpans(other).map((s) => ("key" in s ? s : { ...s, few: true })));
  return { orgKey: debtorNameKey(name), personSpans: spans };
}

/** Whether a search for `query` finds a debtor filed as `name` of `type`: the rules above, in one place for tests and docs. */
export function findsDebtor(query: string, name: string, type: PartyType): boolean {
  const stored = debtorKey(name, type);
  if (stored === "") return false;
  const q = debtorQuery(query);
  return stored === q.orgKey || q.personSpans.some((s) => spanIncludes(s, stored));
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

/** Whether a search for the secured party `query` finds one named `name` (the rule of securedNameRange). */
export function findsSecuredParty(query: string, name: string): boolean {
  const { from, to } = securedNameRange(query);
  const stored = securedNameWords(name);
  return from !== "" && stored >= from && stored < to;
}
