/**
 * Where feed files and what a load writes beside them live in the feeds
 * bucket (R2 binding FEEDS), and how a put of a file names its load. Shared
 * by the Worker (queue consumer, Workflow) and the import CLI.
 *
 * - `incoming/…`: feed files; putting one there starts its load. A path
 *   segment that is a state code (`incoming/il/county.xml`) names the state
 *   of records that name none, as the CLI's `--state` does.
 * - `rejects/…`, `warnings/…`: each file's rejects and warnings (one JSON
 *   line each, as the CLI writes them), under the file's path after
 *   `incoming/`.
 * - `loads/ID/…`: each range's part of them while a load runs.
 * - `rejects/pulls/ID.ndjson`, `warnings/pulls/ID.ndjson`: a pull's
 *   (src/platform/pullSource.ts), by its Workflow instance.
 */
import { z } from "zod";
import { isStateCode } from "../domain/states.ts";
import { feedFormat } from "../feed/read.ts";

const INCOMING = "incoming/";

export type Problems = "rejects" | "warnings";

/** Whether `key` is a feed file the platform loads: under incoming/, in a format the readers know. */
export function isFeedKey(key: string): boolean {
  return key.startsWith(INCOMING) && key.length > INCOMING.length && feedFormat(key) !== null;
}

/**
 * A file's key under incoming/: its name, in the state's own folder when
 * records that name none are that state's (what stateOfKey reads back).
 */
export const keyFor = (name: string, state?: string) => `${INCOMING}${state ? `${state.toLowerCase()}/` : ""}${name}`;

/** The state a key's path names for records that name none (`incoming/il/…`), if any. */
export function stateOfKey(key: string): string | undefined {
  const dirs = key.slice(INCOMING.length).split("/").slice(0, -1);
  return dirs.map((d) => d.toUpperCase()).find(isStateCode);
}

/** The object holding a file's (or a pull's: pullKey) rejects or warnings once its load has run. */
export function problemsKey(kind: Problems, key: string): string {
  return `${kind}/${key.startsWith(INCOMING) ? key.slice(INCOMING.length) : key}.ndjson`;
}

/** What names a pull's rejects and warnings (problemsKey): never a feed key, which is under incoming/. */
export const pullKey = (id: string) => `pulls/${id}`;

/** A range's part of a load's rejects or warnings, by the range's first byte (parts list in file order). */
export function partKey(kind: Problems, id: string, start: number): string {
  return `${partsPrefix(kind, id)}${String(start).padStart(15, "0")}.ndjson`;
}

export const partsPrefix = (kind: Problems, id: string) => `loads/${id}/${kind}/`;

/**
 * An etag as R2 objects give it (`R2Object.etag`), from any of its forms:
 * `httpEtag`, S3 clients and notifications may quote it. The one place an
 * etag is normalised: every etag the platform takes in (a load's
 * parameters, a queue message) is parsed with it.
 */
export const etag = z
  .string()
  .min(1)
  .transform((value) => value.replace(/^(W\/)?"(.*)"$/, "$2"));

/**
 * The Workflow instance id of one put of a feed file: its key, etag and
 * upload time (`R2Object.uploaded`), hashed to fit an instance id (at most
 * 64 characters of [A-Za-z0-9_-]). Every notification of one put, and the
 * CLI that made it, name the same instance, which exists already after the
 * first: the put loads once. A new put is a new load, even of the same
 * bytes (A, then B, then A again must leave A; a put after a load failed
 * for good must load).
 */
export async function loadId(key: string, bare: string, uploaded: Date): Promise<string> {
  const text = `${key}\n${bare}\n${uploaded.getTime()}`;
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `load-${hex.slice(0, 40)}`;
}
