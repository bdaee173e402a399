/**
 * The shards of wrangler.toml for Node scripts (seed, import, export,
 * backfill, migrations): the layout src/db/shards.ts reads in the Worker,
 * here from wrangler's own reading of the config, with each shard's D1
 * database and, locally, its SQLite file.
 */
import { execFileSync } from "node:child_process";
import { createHash, createHmac } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { layoutOf, type ShardLayout, statesOf } from "../src/db/shards.ts";
import { describeFinished, type Finished, finishInterruptedLoad, rebuildDroppedIndexes } from "./bulk/load.ts";
import { openSqlite } from "./localD1.ts";

export const CONFIG = "wrangler.toml";

export interface ShardDatabase {
  binding: string;
  databaseName: string;
  databaseId: string;
  /** The states it holds; undefined for the default shard (every state not named). */
  states: string[] | undefined;
}

export interface ShardConfig {
  /** The Worker's name and compatibility date in that environment. */
  name: string;
  compatibilityDate: string;
  layout: ShardLayout;
  /** In layout order, the default shard first. */
  databases: ShardDatabase[];
}

/**
 * The shards of the top level (local development, `env` undefined) or of a
 * deployed environment. Throws, naming the problem, when the layout is
 * invalid or names a binding the environment does not declare.
 */
export async function shardConfig(env?: string): Promise<ShardConfig> {
  const config = await wranglerConfig(env);
  const layout = layoutOf(config.vars?.SHARD_STATES);
  const declared = config.d1_databases;
  const databases = layout.shards.map((binding) => {
    const d1 = declared.find((d) => d.binding === binding);
    if (!d1)
      throw new Error(
        `${CONFIG}${env ? ` [env.${env}]` : ""}: SHARD_STATES names ${binding}, which has no [[d1_databases]] entry`,
      );
    return {
      binding,
      databaseName: d1.database_name ?? binding,
      databaseId: d1.database_id ?? "",
      states: statesOf(layout, binding),
    };
  });
  return {
    name: config.name ?? "worker",
    compatibilityDate: config.compatibility_date ?? "2026-11-01",
    layout,
    databases,
  };
}

/** What the scripts read of wrangler's reading of the configuration. */
interface ReadConfig {
  name?: string | undefined;
  compatibility_date?: string | undefined;
  vars?: Record<string, unknown> | undefined;
  d1_databases: { binding: string; database_name?: string | undefined; database_id?: string | undefined }[];
  kv_namespaces: { binding: string; id?: string | undefined }[];
  r2_buckets: { binding: string; bucket_name?: string | undefined }[];
  queues: { producers?: { binding: string; queue: string }[]; consumers?: { queue: string }[] };
  workflows: { binding: string; name: string }[];
}

/** Where wrangler's reading of wrangler.toml is kept between scripts (.wrangler is git-ignored). */
const READ_CACHE = ".wrangler/tmp/shard-config";

/**
 * Wrangler's reading of wrangler.toml for `env`, kept beside it keyed by the
 * file's content: loading wrangler takes a second and a half of CPU, which
 * every import, export, migration and status paid before reading a few fields.
 */
export async function wranglerConfig(env?: string): Promise<ReadConfig> {
  const digest = createHash("sha256")
    .update(readFileSync(CONFIG))
    // The fields kept (ReadConfig): a reading that kept fewer is not reused.
    .update(`\u0000${env ?? ""}\u0000d1,kv,r2,queues,workflows`)
    .digest("hex")
    .slice(0, 24);
  const cached = join(READ_CACHE, `${digest}.json`);
  try {
    return JSON.parse(readFileSync(cached, "utf8")) as ReadConfig;
  } catch {
    // Not read yet under this content: read by wrangler below.
  }
  const { unstable_readConfig } = await import("wrangler");
  const read = unstable_readConfig({ config: CONFIG, env });
  const kept: ReadConfig = {
    name: read.name,
    compatibility_date: read.compatibility_date,
    vars: read.vars as Record<string, unknown> | undefined,
    d1_databases: read.d1_databases,
    kv_namespaces: read.kv_namespaces,
    r2_buckets: read.r2_buckets.map(({ binding, bucket_name }: { binding: string; bucket_name?: string }) => ({
      binding,
      bucket_name,
    })),
    queues: {
      producers: read.queues.producers?.map(({ binding, queue }: { binding: string; queue: string }) => ({
        binding,
        queue,
      })),
      consumers: read.queues.consumers?.map(({ queue }: { queue: string }) => ({ queue })),
    },
    workflows: read.workflows.map(({ binding, name }: { binding: string; name: string }) => ({ binding, name })),
  };
  try {
    mkdirSync(READ_CACHE, { recursive: true });
    // Written whole, then renamed: a script starting meanwhile reads the old file or the new, never half.
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, JSON.stringify(kept));
    renameSync(partial, cached);
  } catch {
    // A read-only checkout reads wrangler.toml again next time.
  }
  return kept;
}

/** Where local D1 files live under a wrangler state directory (`--persist-to`, default .wrangler/state). */
const D1_DIR = "v3/d1/miniflare-D1DatabaseObject";

/**
 * The local SQLite file Miniflare keeps the object `id` of class `objectClass`
 * in (a D1 database or a KV namespace, each a Durable Object named by its
 * id): a file named by the object's id, workerd's idFromName (two truncated
 * HMAC-SHA256s keyed by the object class's unique key).
 */
function localObjectFile(dir: string, objectClass: string, id: string): string {
  const key = createHash("sha256").update(objectClass).digest();
  const name = createHmac("sha256", key).update(id).digest().subarray(0, 16);
  const check = createHmac("sha256", key).update(name).digest().subarray(0, 16);
  return join(dir, `${Buffer.concat([name, check]).toString("hex")}.sqlite`);
}

/** The local SQLite file of the D1 database with id `databaseId`. */
export function localD1File(databaseId: string, stateDir = ".wrangler/state"): string {
  return localObjectFile(join(stateDir, D1_DIR), "miniflare-D1DatabaseObject", databaseId);
}

/**
 * The local SQLite file of the top level's KV namespace bound as `binding`
 * (its keys, expiry times and metadata; values are kept beside it), or
 * undefined when wrangler.toml binds no namespace so.
 */
export async function localKvFile(binding: string, stateDir = ".wrangler/state"): Promise<string | undefined> {
  const id = (await wranglerConfig()).kv_namespaces?.find((k) => k.binding === binding)?.id;
  return id && localObjectFile(join(stateDir, "v3/kv/miniflare-KVNamespaceObject"), "miniflare-KVNamespaceObject", id);
}

/** The top level's vars (local development) or a deployed environment's, as wrangler reads wrangler.toml. */
export async function configVars(env?: string): Promise<Record<string, unknown>> {
  return (await wranglerConfig(env)).vars ?? {};
}

/** The local files of every shard, in layout order; missing files mean unapplied migrations. */
export function localFiles(config: ShardConfig, stateDir?: string): { shard: ShardDatabase; file: string }[] {
  return config.databases.map((shard) => ({ shard, file: localD1File(shard.databaseId, stateDir) }));
}

/**
 * What migrateAll reports of each shard, as a line "  BINDING (name): STATUS"
 * (scripts/start.ts reads the lines to summarize them).
 */
export const MIGRATE_STATUS = {
  applying: "applying migrations...",
  applied: "migrations applied",
  upToDate: "up to date",
} as const;

/**
 * Applies pending migrations to every shard: local state (default) or a
 * deployed environment's databases. Locally it first finishes any load
 * that was stopped part-way (scripts/bulk/load.ts): indexes a bulk load
 * dropped are built before the migrations, aggregates it or an ordinary
 * load left undone after them, with one line each in the report.
 */
export async function migrateAll(
  config: ShardConfig,
  target: { remote: boolean; env?: string; persistTo?: string },
  report: (line: string) => void = () => {},
  /** Where the line about a finished load goes (default: with the others). */
  finished: (line: string) => void = report,
): Promise<void> {
  const local = target.remote
    ? []
    : config.databases.map((shard) => ({ shard, file: localD1File(shard.databaseId, target.persistTo) }));
  for (const { file } of local) await withLocalFile(file, rebuildDroppedIndexes);
  /** A local shard wrangler just migrated from nothing: empty, the template of the other new ones. */
  let template: string | undefined;
  for (const shard of config.databases) {
    const file = localD1File(shard.databaseId, target.persistTo);
    // A local shard already at the last migration needs no wrangler run (a few seconds each).
    if (!target.remote && isMigrated(file)) {
      report(`  ${shard.binding} (${shard.databaseName}): ${MIGRATE_STATUS.upToDate}`);
      continue;
    }
    // A new local shard is a copy of one just migrated, schema and journal, without its free pages.
    if (!target.remote && template && !existsSync(file)) {
      const source = openSqlite(template);
      try {
        source.prepare("vacuum into ?").run(file);
      } finally {
        source.close();
      }
      report(`  ${shard.binding} (${shard.databaseName}): ${MIGRATE_STATUS.applied}`);
      continue;
    }
    const fresh = !target.remote && !existsSync(file);
    const args = ["d1", "migrations", "apply", shard.binding, "--config", CONFIG];
    if (target.remote) args.push("--remote", "--env", target.env ?? "production");
    else args.push("--local");
    if (target.persistTo) args.push("--persist-to", target.persistTo);
    // Said before wrangler runs: a new local shard takes it about 20 s, a remote one longer.
    report(`  ${shard.binding} (${shard.databaseName}): ${MIGRATE_STATUS.applying}`);
    try {
      const out = execFileSync("wrangler", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
      const applied = /No migrations to apply/.test(out) ? MIGRATE_STATUS.upToDate : MIGRATE_STATUS.applied;
      report(`  ${shard.binding} (${shard.databaseName}): ${applied}`);
      if (fresh && isMigrated(file)) template = file;
    } catch (err) {
      const { stdout, stderr, code } = err as { stdout?: string; stderr?: string; code?: string };
      // Not started at all (run as `node scripts/...` rather than through npm, which puts wrangler on the PATH).
      const said = code === "ENOENT" ? "wrangler not found: run this through npm (npm run ...)" : "";
      throw new Error(`wrangler ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}${said}`);
    }
  }
  const started = Date.now();
  const done: [string, Finished][] = [];
  for (const { shard, file } of local) {
    const what = await withLocalFile(file, finishInterruptedLoad);
    if (what) done.push([shard.binding, what]);
  }
  if (done.length > 0) finished(describeFinished(done, Date.now() - started));
}

/** `work` on a local D1 file that exists and is migrated; undefined otherwise (nothing to finish). */
async function withLocalFile<T>(file: string, work: (db: DatabaseSync) => T | Promise<T>): Promise<T | undefined> {
  if (!existsSync(file)) return undefined;
  const db = openSqlite(file);
  try {
    const migrated = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'filings'").get();
    return migrated ? await work(db) : undefined;
  } finally {
    db.close();
  }
}

/** Whether the local D1 file exists and has applied every migration in migrations/ (wrangler's d1_migrations journal). */
function isMigrated(file: string): boolean {
  if (!existsSync(file)) return false;
  const wanted = readdirSync("migrations").filter((f) => f.endsWith(".sql"));
  const db = openSqlite(file, { readOnly: true });
  try {
    const journal = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'd1_migrations'").get();
    if (!journal) return false;
    const applied = new Set(
      (db.prepare("select name from d1_migrations").all() as { name: string }[]).map((r) => r.name),
    );
    return wanted.every((f) => applied.has(f));
  } finally {
    db.close();
  }
}
