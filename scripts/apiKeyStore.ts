/**
 * The API_KEYS namespace as the operator's scripts use it (npm run keys,
 * npm run webhooks). Keys are written through wrangler, locally and
 * deployed alike. A deployed namespace is listed through wrangler too;
 * local state is listed by reading the file wrangler's local KV keeps,
 * where `wrangler kv key list` started wrangler and a local runtime for
 * each call (about 5 s of CPU, every `npm run webhooks -- add`).
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { DatabaseSync } from "node:sqlite";
import { isKeyMetadata, type KeyMetadata } from "../src/domain/apiKeys.ts";
import type { Target } from "./feedDb.ts";
import { localKvFile } from "./shardConfig.ts";

const BINDING = "API_KEYS";

/** A stored key: the SHA-256 digest of the key, and what it may do. */
export interface StoredKey {
  digest: string;
  metadata: KeyMetadata;
}

function wrangler(t: Target, args: string[]): string {
  const where = t.remote ? ["--remote", "--env", t.env ?? "production"] : ["--local"];
  const persist = !t.remote && t.persistTo ? ["--persist-to", t.persistTo] : [];
  return execFileSync("wrangler", ["kv", "key", ...args, "--binding", BINDING, ...where, ...persist], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
}

/** Stores `metadata` under `digest`, as the Worker reads it (the metadata, with the value the same). */
export function putKey(t: Target, digest: string, metadata: KeyMetadata): void {
  wrangler(t, ["put", digest, JSON.stringify(metadata), "--metadata", JSON.stringify(metadata)]);
}

/** The keys whose digest starts with `prefix` (every key without one), in digest order; entries that are not keys are left out. */
export async function listKeys(t: Target, prefix = ""): Promise<StoredKey[]> {
  const entries = t.remote ? listedByWrangler(t, prefix) : await listedLocally(t, prefix);
  return entries.flatMap((e) => (isKeyMetadata(e.metadata) ? [{ digest: e.name, metadata: e.metadata }] : []));
}

function listedByWrangler(t: Target, prefix: string): { name: string; metadata?: unknown }[] {
  const out = wrangler(t, ["list", ...(prefix ? ["--prefix", prefix] : [])]);
  return JSON.parse(out.slice(out.indexOf("["))) as { name: string; metadata?: unknown }[];
}

/** As `wrangler kv key list --local` answers: unexpired keys, sorted, with their metadata. */
async function listedLocally(t: Target, prefix: string): Promise<{ name: string; metadata?: unknown }[]> {
  const file = await localKvFile(BINDING, t.persistTo);
  // No file: nothing was ever put in the namespace locally.
  if (!file || !existsSync(file)) return [];
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const rows = db
      .prepare(
        "select key, metadata from _mf_entries where substr(key, 1, length(?1)) = ?1 and (expiration is null or expiration > ?2) order by key",
      )
      .all(prefix, Date.now()) as { key: string; metadata: string | null }[];
    return rows.map((r) => ({ name: r.key, metadata: r.metadata === null ? undefined : JSON.parse(r.metadata) }));
  } finally {
    db.close();
  }
}
