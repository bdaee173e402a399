/**
 * Feed-loading fixtures shared by the import tests (test/import.test.ts,
 * test/office-data.test.ts): a feed file's text imported into every shard,
 * with its rejects and warnings, and reads that the edge cache never answers.
 */
import { emptySummary } from "../src/feed/import.ts";
import type { Reject, Warning } from "../src/feed/read.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { clearAllShards, shardDatabases } from "./helpers.ts";

/** `text` as the byte stream an import reads. */
export function stream(text: string | Uint8Array): ReadableStream<Uint8Array> {
  const body = new Response(text).body;
  if (!body) throw new Error("a Response of text has a body");
  return body;
}

/** Imports `text` as the feed file `file`, collecting its rejects and warnings. */
export async function importText(file: string, text: string | Uint8Array) {
  const rejects: Reject[] = [];
  const warnings: Warning[] = [];
  const summary = await importSharded(shardDatabases, file, stream(text), {
    onReject: (r) => void rejects.push(r),
    onWarning: (w) => void warnings.push(w),
  });
  return { summary, rejects, warnings };
}

/** An import summary: these counts, the others zero. */
export const counts = (c: Partial<ReturnType<typeof emptySummary>>) => ({ ...emptySummary(), ...c });

export const emptyDatabase = clearAllShards;

// Responses are cached at the edge for a minute by URL, and a runtime serves
// file after file (vitest.config.ts, isolate: false): each read adds an
// ignored parameter of its own, unique in the runtime, so it always reads the database.
let reads = 0;
const run = crypto.randomUUID().slice(0, 8);
export const fresh = <P extends string>(path: P) =>
  `${path}${path.includes("?") ? "&" : "?"}_read=${run}-${++reads}` as const;

/** How many fresh reads were made so far (a varying client address for the public limit). */
export const readCount = () => reads;
