/**
 * The D1 databases (shards, src/db/shards.ts) of `npm run import` and
 * `npm run export`, as Drizzle handles:
 * - local (default): the local D1 state `wrangler dev` uses, under
 *   .wrangler/state (or --persist-to DIR, as wrangler's own option), with
 *   migrations applied first to every shard (scripts/migrate.ts). Each
 *   shard's file is opened in-process with node:sqlite (seed/localD1.ts),
 *   so the loader's batches cost no round trip: thousands of filings a
 *   second instead of a few hundred through wrangler's binding proxy;
 * - remote (--remote): a deployed environment's database (production, or
 *   preview with --env preview; wrangler.toml's top level is local only),
 *   through wrangler's remote bindings. The environment's shard bindings are
 *   copied, marked `remote: true`, into a config under .wrangler/tmp that
 *   getPlatformProxy reads. Needs Cloudflare credentials (`wrangler login`,
 *   or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID); migrations are the
 *   deployment's job (npm run deploy applies them).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import type { ParseArgsOptionsConfig } from "node:util";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "../src/db/schema.ts";
import type { ShardDatabases } from "../src/db/shards.ts";
import { commandLine, usageError } from "./commandLine.ts";
import { localD1Database, openLocalD1File } from "./localD1.ts";
import { CONFIG, localFiles, migrateAll, type ShardConfig, type ShardDatabase, shardConfig } from "./shardConfig.ts";

export interface Target {
  remote: boolean;
  /** The deployed environment of a remote target: production (default) or preview. */
  env?: string;
  /** Local state directory, as `wrangler --persist-to` (default .wrangler/state). */
  persistTo?: string;
}

export const ENVIRONMENTS = ["production", "preview"];

/**
 * The command line of a feed script: `options` plus the target options
 * (--remote, --env, --persist-to), and `fail`, which prints a problem with
 * the usage and exits 2.
 */
export function feedCommandLine<O extends ParseArgsOptionsConfig>(usage: string, options: O, allowPositionals = false) {
  const fail = (problem: string): never => usageError(usage, problem);
  type Values = { [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : string } & {
    remote: boolean;
    env?: string;
    "persist-to"?: string;
  };
  const parsed = commandLine(usage, {
    allowPositionals,
    options: {
      ...options,
      remote: { type: "boolean", default: false },
      env: { type: "string" },
      "persist-to": { type: "string" },
    },
    // parseArgs cannot infer its values through a generic `O`; Values says them.
  }) as unknown as { values: Values; positionals: string[] };
  const { values, positionals } = parsed;
  const target = targetOf({ remote: values.remote, env: values.env, persistTo: values["persist-to"] });
  if (typeof target === "string") return fail(target);
  return { values, positionals, target, fail };
}

/** The target named by --remote, --env and --persist-to, or why they do not fit together. */
export function targetOf(options: { remote: boolean; env?: string; persistTo?: string }): Target | string {
  if (options.env !== undefined && !options.remote)
    return "--env needs --remote (local state is the top level of wrangler.toml)";
  if (options.env !== undefined && !ENVIRONMENTS.includes(options.env)) {
    return `--env must be one of ${ENVIRONMENTS.join(", ")}`;
  }
  if (options.remote && options.persistTo !== undefined) return "--persist-to is for local state only";
  return options.remote
    ? { remote: true, env: options.env ?? "production" }
    : { remote: false, persistTo: options.persistTo };
}

export function describeTarget(target: Target): string {
  if (target.remote) return `remote D1 database of ${target.env}`;
  return `local D1 database in ${target.persistTo ?? ".wrangler/state"}`;
}

/**
 * Applies pending migrations to every local shard (remote ones are left to
 * deployment), first finishing any load that was stopped part-way; says so
 * on stderr.
 */
export async function migrateLocal(target: Target): Promise<void> {
  await migrateAll(
    await shardConfig(),
    target,
    () => {},
    (line) => console.error(line),
  );
}

/** A copy of the shards' D1 bindings of wrangler.toml marked remote, for getPlatformProxy. */
function remoteConfig(config: ShardConfig, shards: ShardDatabase[], env: string): string {
  for (const d1 of shards) {
    if (!d1.databaseId || d1.databaseId.startsWith("REPLACE_WITH")) {
      throw new Error(`${CONFIG} has no database id for ${d1.binding} in env ${env} yet (docs/deploying.md)`);
    }
  }
  const dir = resolve(".wrangler/tmp/feed-remote");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "wrangler.json");
  writeFileSync(
    path,
    JSON.stringify(
      {
        name: config.name,
        compatibility_date: config.compatibilityDate,
        d1_databases: shards.map((d1) => ({
          binding: d1.binding,
          database_name: d1.databaseName,
          database_id: d1.databaseId,
          remote: true,
        })),
      },
      null,
      2,
    ),
  );
  return path;
}

export type FeedDatabase = DrizzleD1Database<typeof schema>;

export interface OpenShards {
  config: ShardConfig;
  /** The shards opened, by binding: ShardDatabases for importSharded. */
  shards: ShardDatabases;
  /** Locally, each opened shard's SQLite file (bulk loads write it directly). */
  sqlite: Map<string, DatabaseSync> | undefined;
  dispose: () => Promise<void>;
}

/** The local shards of `target` (or those in `only`), with each one's SQLite file (bulk loads write it directly). */
export async function openLocalShards(
  target: { persistTo?: string },
  only?: string[],
): Promise<OpenShards & { sqlite: Map<string, DatabaseSync> }> {
  const config = await shardConfig(undefined);
  const wanted = config.databases.filter((d) => !only || only.includes(d.binding));
  const sqlite = new Map<string, DatabaseSync>();
  const databases = new Map<string, FeedDatabase>();
  try {
    for (const { shard, file } of localFiles(config, target.persistTo)) {
      if (!wanted.includes(shard)) continue;
      const db = openLocalD1File(file);
      sqlite.set(shard.binding, db);
      // The proxy database builds the same SQL as the D1 one and runs the same
      // calls (select, insert, delete, batch); only the driver underneath differs.
      databases.set(shard.binding, localD1Database(db) as unknown as FeedDatabase);
    }
  } catch (err) {
    for (const db of sqlite.values()) db.close();
    throw new Error(
      `the ${describeTarget({ remote: false, ...target })} has no filings table (${(err as Error).message})`,
    );
  }
  return {
    config,
    shards: { layout: config.layout, databases },
    sqlite,
    dispose: async () => {
      for (const db of sqlite.values()) db.close();
    },
  };
}

/**
 * The shards of the target (wrangler.toml's layout, src/db/shards.ts), or
 * only the bindings in `only` (an export reads its state's shard alone).
 */
export async function openShards(target: Target, only?: string[]): Promise<OpenShards> {
  if (!target.remote) return openLocalShards(target, only);
  const config = await shardConfig(target.env ?? "production");
  const wanted = config.databases.filter((d) => !only || only.includes(d.binding));
  // Loaded here, not on start: wrangler takes a second to load, and usage errors need none of it.
  const { getPlatformProxy } = await import("wrangler");
  const env = target.env ?? "production";
  const proxy = await getPlatformProxy<Record<string, D1Database>>({
    configPath: remoteConfig(config, wanted, env),
    remoteBindings: true,
  });
  const databases = new Map<string, FeedDatabase>();
  for (const d1 of wanted) {
    const binding = proxy.env[d1.binding]!;
    try {
      await binding.prepare("select 1 from filings limit 1").all();
    } catch (err) {
      await proxy.dispose();
      const hint = `apply the migrations first: node scripts/migrate.ts --remote --env ${env}`;
      throw new Error(
        `${d1.binding} of the ${describeTarget(target)} has no filings table (${(err as Error).message}); ${hint}`,
      );
    }
    databases.set(d1.binding, drizzle(binding, { schema, casing: "snake_case" }));
  }
  return { config, shards: { layout: config.layout, databases }, sqlite: undefined, dispose: () => proxy.dispose() };
}
