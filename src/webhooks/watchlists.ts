/**
 * A subscription's filters as the operator gives them, checked before
 * anything is stored: change types, states, and watchlist files (one name a
 * line, as the lender's loan system writes it), each to the keys it is
 * looked up by (src/db/nameIndex.ts).
 */
import { watchedDebtorKeys, watchedSecuredKey } from "../db/nameIndex.ts";
import { CHANGE_TYPES, type ChangeType } from "../domain/kinds.ts";
import { MAX_NAME_LENGTH } from "../domain/limits.ts";
import { isStateCode } from "../domain/states.ts";

/** Names one watchlist may hold (10,000 is ordinary). */
const MAX_WATCHLIST = 100_000;

export type WatchKind = "debtor" | "secured_party";

/** One watched name under one of its keys (a debtor name has one key per reading). */
export interface WatchRow {
  kind: WatchKind;
  name: string;
  key: number;
}

/** A list's entries, or what is wrong with it (a sentence naming the line). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; problem: string };

/**
 * A watchlist file's names: UTF-8 text, one name a line (CR LF or LF),
 * blank lines skipped, spaces around a name trimmed, repeats kept once.
 * Refused: a file that is not UTF-8 text, holds no name or more than
 * MAX_WATCHLIST, or a line too long or with no letter or digit (it could
 * never match).
 */
export function parseWatchlist(bytes: Uint8Array, kind: WatchKind): Parsed<WatchRow[]> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return { ok: false, problem: "is not UTF-8 text" };
  }
  if (text.includes("\u0000")) return { ok: false, problem: "is not text (it holds NUL bytes)" };
  const rows: WatchRow[] = [];
  const seen = new Set<string>();
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (const [i, line] of lines.entries()) {
    const name = line.trim();
    if (name === "") continue;
    const where = `line ${i + 1}`;
    if (name.length > MAX_NAME_LENGTH)
      return { ok: false, problem: `${where}: longer than ${MAX_NAME_LENGTH} characters` };
    if (/\p{Cc}/u.test(name)) return { ok: false, problem: `${where}: holds a control character` };
    if (seen.has(name)) continue;
    const keys = kind === "debtor" ? watchedDebtorKeys(name) : [watchedSecuredKey(name)].filter((k) => k !== undefined);
    if (keys.length === 0) return { ok: false, problem: `${where}: "${name}" has no letter or digit to match` };
    seen.add(name);
    if (seen.size > MAX_WATCHLIST) return { ok: false, problem: `holds more than ${MAX_WATCHLIST} names` };
    for (const key of keys) rows.push({ kind, name, key });
  }
  if (seen.size === 0) return { ok: false, problem: "holds no name (one name a line)" };
  return { ok: true, value: rows };
}

/** `--types T,...`: change types, each one of CHANGE_TYPES. */
export function parseTypes(text: string): Parsed<ChangeType[]> {
  const types = [...new Set(text.split(",").map((t) => t.trim()))];
  const unknown = types.filter((t) => !(CHANGE_TYPES as readonly string[]).includes(t));
  if (types.length === 0 || unknown.length > 0) {
    return { ok: false, problem: `unknown type ${unknown[0] ?? "(none)"}: one of ${CHANGE_TYPES.join(", ")}` };
  }
  return { ok: true, value: types as ChangeType[] };
}

/** `--states XX,...`: US state and territory codes, any case. */
export function parseStates(text: string): Parsed<string[]> {
  const states = [...new Set(text.split(",").map((s) => s.trim().toUpperCase()))];
  const unknown = states.filter((s) => !isStateCode(s));
  if (states.length === 0 || unknown.length > 0) {
    return { ok: false, problem: `${unknown[0] || "(none)"} is not a US state or territory code` };
  }
  return { ok: true, value: states.sort() };
}
