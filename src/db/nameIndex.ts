/**
 * The name keys of the change feed's index (schema.ts, changeNames) and of
 * webhook watchlists (webhookNames): integers (hashKey, 6 bytes stored)
 * under which a change is found by the parties its filing names.
 *
 * A key is coarser than the rule it serves, so one equality on it finds
 * every name the rule may match, and the rule itself (findsDebtor,
 * findsSecuredParty, or the SQL of src/queries/nameMatch.ts) is checked
 * after, on the filing's own rows:
 * - a debtor organization: its whole match key (debtorNameKey);
 * - a debtor individual: its last name and first initial ("smith j"): a
 *   query's spans (debtorQuery) all keep the last name and the first
 *   initial of one reading, whatever they allow of the rest;
 * - a secured party: its first word, and its first two (the rule matches
 *   whole leading words, so a query of one or two words is one key, and a
 *   longer one is found under its first two).
 *
 * Watchlists are kept finer, as their keys cost no stored row per change: a
 * watched individual under its last and exact first name ("smith john",
 * and "smith j" for those filed with the initial only), or under last
 * name and initial when only an initial is watched; a watched lender under
 * all its words. A change's parties are looked up under each of those forms
 * (partyLookupKeys), so a common last name does not bring every watcher of
 * a namesake with the same initial.
 */
import { sql } from "drizzle-orm";
import { debtorQuery, securedNameWords } from "../domain/names.ts";
import type { Db } from "./database.ts";
import { hashKey } from "./encodings.ts";
import { debtorParties, lenderNames, securedParties } from "./schema.ts";

/** Leading words of a secured-party name a change is indexed under, at most. */
const SECURED_PREFIX_WORDS = 2;

/**
 * Index rows one change may have: a row's id is seq × NAME_SLOTS + slot,
 * so a change's rows are one range of the table. A filing naming more
 * parties than this is indexed under its first NAME_SLOTS keys.
 */
export const NAME_SLOTS = 4096;

/**
 * NAME_SLOTS written into SQL as an integer literal: D1 may bind a number
 * as a real, and `/` over a real divides exactly rather than to the seq.
 */
export const NAME_SLOTS_SQL = sql.raw(String(NAME_SLOTS));

/** A stored debtor match key as the index files it: an organization's whole, an individual's last name and first initial. */
function debtorText(stored: string): string {
  const space = stored.indexOf(" ");
  return space < 0 ? stored : stored.slice(0, space + 2);
}

const debtorIndexKey = (stored: string) => hashKey(`d:${debtorText(stored)}`);
const securedIndexKey = (words: string) => hashKey(`s:${words}`);

/** The first one, two, ... `most` words of a secured-party match form (securedNameWords). */
function leadingRuns(words: string, most: number): string[] {
  const parts = words.split(" ").filter((w) => w.length > 0);
  return parts.slice(0, most).map((_, i) => parts.slice(0, i + 1).join(" "));
}

function distinct(keys: number[]): number[] {
  return [...new Set(keys)].slice(0, NAME_SLOTS);
}

/** What a filing's changes are indexed under: its debtors' stored keys (name_key) and lenders' words (name_words). */
export function changeKeys(debtorKeys: readonly string[], securedWords: readonly string[]): number[] {
  return distinct([
    ...debtorKeys.filter((k) => k !== "").map(debtorIndexKey),
    ...securedWords.flatMap((w) => leadingRuns(w, SECURED_PREFIX_WORDS).map(securedIndexKey)),
  ]);
}

/** An individual's stored key ("last first middle") up to its first name: "last first". */
function lastAndFirst(stored: string): string {
  const first = stored.indexOf(" ");
  const second = stored.indexOf(" ", first + 1);
  return second < 0 ? stored : stored.slice(0, second);
}

/**
 * The keys a filing's parties are looked up under in watchlists: an
 * organization's match key; an individual's last and first name, and last
 * name and first initial; every leading run of each lender's words.
 */
export function partyLookupKeys(debtorKeys: readonly string[], securedWords: readonly string[]): number[] {
  const debtors = debtorKeys
    .filter((k) => k !== "")
    .flatMap((k) => (k.includes(" ") ? [`p:${lastAndFirst(k)}`, `c:${debtorText(k)}`] : [`d:${k}`]));
  return [
    ...new Set([
      ...debtors.map(hashKey),
      ...securedWords.flatMap((w) => leadingRuns(w, Number.POSITIVE_INFINITY).map(securedIndexKey)),
    ]),
  ];
}

/**
 * The keys a watched debtor name is kept under (one per form its search
 * takes: debtorQuery), for partyLookupKeys to find: its organization key;
 * for each reading as an individual, the last and exact first name each
 * span allows, or last name and initial where it allows any first name of
 * that initial. None for a name without letters or digits.
 */
export function watchedDebtorKeys(name: string): number[] {
  const query = debtorQuery(name);
  const texts = query.personSpans.map((span) => {
    const text = "key" in span ? span.key : span.from;
    const first = text.indexOf(" ");
    // A span whose first name is followed by its space holds that first name exactly; else it is an initial's range.
    return text.indexOf(" ", first + 1) < 0 ? `c:${text}` : `p:${lastAndFirst(text)}`;
  });
  if (query.orgKey !== "") texts.unshift(`d:${query.orgKey}`);
  return [...new Set(texts.map(hashKey))];
}

/** The keys under which every debtor a search for `name` finds is indexed (none for a name without letters or digits). */
export function debtorNameKeys(name: string): number[] {
  const query = debtorQuery(name);
  const texts = query.personSpans.map((s) => debtorText("key" in s ? s.key : s.from));
  if (query.orgKey !== "") texts.unshift(query.orgKey);
  return [...new Set(texts.map((t) => hashKey(`d:${t}`)))];
}

/** The key a secured-party search for `name` reads in the change index (its first two words), if it has words. */
export function securedNameKey(name: string): number | undefined {
  const runs = leadingRuns(securedNameWords(name), SECURED_PREFIX_WORDS);
  const last = runs.at(-1);
  return last === undefined ? undefined : securedIndexKey(last);
}

/** The key a watched secured party is kept under: all its words (a filing's lenders are looked up under every leading run). */
export function watchedSecuredKey(name: string): number | undefined {
  const words = securedNameWords(name);
  return words === "" ? undefined : securedIndexKey(words);
}

/** The change keys of the filings `ids` from their parties as stored, by filing id (two statements, one batch). */
export async function storedKeys(db: Db, ids: readonly number[]): Promise<Map<number, number[]>> {
  const list = sql`(select value from json_each(${JSON.stringify(ids)}))`;
  const [debtors, lenders] = await db.batch([
    db
      .select({ filingId: debtorParties.filingId, key: debtorParties.nameKey })
      .from(debtorParties)
      .where(sql`${debtorParties.filingId} in ${list}`),
    db
      .select({ filingId: securedParties.filingId, words: lenderNames.words })
      .from(securedParties)
      .innerJoin(lenderNames, sql`${lenderNames.id} = ${securedParties.nameId}`)
      .where(sql`${securedParties.filingId} in ${list}`),
  ]);
  return new Map(
    ids.map((id) => [
      id,
      changeKeys(
        debtors.filter((d) => d.filingId === id).map((d) => d.key),
        lenders.filter((l) => l.filingId === id).map((l) => l.words),
      ),
    ]),
  );
}
