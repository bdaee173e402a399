/**
 * The offices whose open registers the importer reads (docs/sources/):
 * `npm run import -- --source ct|co|or`.
 */
import { colorado } from "./co.ts";
import { connecticut } from "./ct.ts";
import { oregon } from "./or.ts";
import { SOURCE_IDS, type Source, type SourceId } from "./source.ts";

export const SOURCES: Readonly<Record<SourceId, Source>> = { ct: connecticut, co: colorado, or: oregon };

/** The source named `id` (any case), or null. */
export function sourceOf(id: string): Source | null {
  const key = id.trim().toLowerCase();
  return (SOURCE_IDS as readonly string[]).includes(key) ? SOURCES[key as SourceId] : null;
}
