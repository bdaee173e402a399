/**
 * The offices whose open registers the importer reads (docs/sources/):
 * `npm run import -- --source ct|co|or|nyc-acris`, and the offices whose bulk
 * files it reads: `--source tx|fl-flr`.
 */
import { colorado } from "./co.ts";
import { connecticut } from "./ct.ts";
import { florida } from "./fl.ts";
import { nyc } from "./nyc.ts";
import { oregon } from "./or.ts";
import { type AnySourceId, FILE_SOURCE_IDS, SOURCE_IDS, type Source } from "./source.ts";
import { texas } from "./tx.ts";

export const SOURCES: Readonly<Record<AnySourceId, Source>> = {
  ct: connecticut,
  co: colorado,
  or: oregon,
  "nyc-acris": nyc,
  tx: texas,
  "fl-flr": florida,
};

/** The source named `id` (any case), or null. */
export function sourceOf(id: string): Source | null {
  const key = id.trim().toLowerCase();
  return ([...SOURCE_IDS, ...FILE_SOURCE_IDS] as readonly string[]).includes(key) ? SOURCES[key as AnySourceId] : null;
}
