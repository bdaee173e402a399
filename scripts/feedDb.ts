/**
 * The D1 database of `npm run import` and `npm run export`, as a Drizzle
 * handle over a binding from wrangler's getPlatformProxy:
 * - local (default): the local D1 state `wrangler dev` uses, under
 *   .wrangler/state (or --persist-to DIR, as wrangler's own option), with
 *   migrations applied first by `wrangler d1 migrations apply DB --local`.
 *   The database file is opened in-process with node:sqlite (seed/localD1.ts),
 *   so the loader's batches cost no round trip: thousands of filings a
 *   second instead of a few hundred through wrangler's binding proxy;
 * - remote (--remote): a deployed environment's database (production, or
 *   preview with --env preview; wrangler.toml's top level is local only),
 *   through wrangler's remote bindings. The environment's D1 binding is
 *   copied, marked `remote: true`, into a config under .wrangler/tmp that
 *   getPlatformProxy reads. Needs Cloudflare credentials (`wrangler login`,
 *   or CLOUDFLARE_API_TOKEN and CLOUDFLARE_ACCOUNT_ID); migrations are the
 *   deployment's job (npm run deploy applies them).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";
import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import { localD1Database, openLocalD1 } from "../seed/localD1.ts";
import * as schema from "../src/db/schema.ts";

export interface Target {
  remote: boolean;
  /** The deployed environment of a remote target: production (default) or preview. */
  env?: string;
  /** Local state directory, as `wrangler --persist-to` (default .wrangler/state). */
  persistTo?: string;
}

const CONFIG = "wrangler.toml";
export const ENVIRONMENTS = ["production", "preview"];

/**
 * The command line of a feed script: `options` plus the target options
 * (--remote, --env, --persist-to), and `fail`, which prints a problem with
 * the usage and exits 2.
 */
export function feedCommandLine<O extends ParseArgsOptionsConfig>(usage: string, options: O, allowPositionals = false) {
  const fail = (problem: string): never => {
    console.error(`${problem}\n${usage}`);
    process.exit(2);
  };
  type Values = { [K in keyof O]?: O[K]["type"] extends "boolean" ? boolean : string } & {
    remote: boolean;
    env?: string;
    "persist-to"?: string;
  };
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      allowPositionals,
      options: {
        ...options,
        remote: { type: "boolean", default: false },
        env: { type: "string" },
        "persist-to": { type: "string" },
      },
      // parseArgs cannot infer its values through a generic `O`; Values says them.
    }) as unknown as { values: Values; positionals: string[] };
  } catch (err) {
    return fail((err as Error).message);
  }
  const { values, positionals } = parsed;
  const target = targetOf({ remote: values.remote, env: values.env, persistTo: values["persist-to"] });
  if (typeof target === "string") return fail(target);
  return { values, positionals, target, fail };
}

/** The target named by --remote, --env and --persist-to, or why they do not fit together. */
export function targetOf(options: { remote: boolean; env?: string; persistTo?: string }): Target | string {
  if (options.env !== undefined && !options.remote) return "--env needs --remote (local state has one database)";
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

/** Applies pending migrations to the local database (the remote one is left to deployment). */
export function migrateLocal(target: Target): void {
  const args = ["d1", "migrations", "apply", "DB", "--local", "--config", CONFIG];
  if (target.persistTo) args.push("--persist-to", target.persistTo);
  try {
    execFileSync("wrangler", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    throw new Error(`wrangler ${args.join(" ")} failed:\n${stdout ?? ""}${stderr ?? ""}`);
  }
}

/** A copy of the D1 binding of wrangler.toml marked remote, for getPlatformProxy. */
async function remoteConfig(env: string): Promise<string> {
  const { unstable_readConfig } = await import("wrangler");
  const config = unstable_readConfig({ config: CONFIG, env });
  const bindings = config.d1_databases as { binding: string; database_name?: string; database_id?: string }[];
  const d1 = bindings.find((d) => d.binding === "DB");
  if (!d1) throw new Error(`${CONFIG} has no D1 binding DB for env ${env}`);
  if (!d1.database_id || d1.database_id.startsWith("REPLACE_WITH")) {
    throw new Error(`${CONFIG} has no database id for env ${env} yet (docs/deploying.md)`);
  }
  const dir = resolve(".wrangler/tmp/feed-remote");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "wrangler.json");
  writeFileSync(
    path,
    JSON.stringify(
      {
        name: config.name,
        compatibility_date: config.compatibility_date,
        d1_databases: [
          {
            binding: "DB",
            database_name: d1.database_name,
            database_id: d1.database_id,
            remote: true,
          },
        ],
      },
      null,
      2,
    ),
  );
  return path;
}

export async function openDatabase(target: Target) {
  if (!target.remote) {
    let sqlite: ReturnType<typeof openLocalD1>;
    try {
      sqlite = openLocalD1(target.persistTo);
    } catch (err) {
      throw new Error(`the ${describeTarget(target)} has no filings table (${(err as Error).message})`);
    }
    // The proxy database builds the same SQL as the D1 one and runs the same
    // calls (select, insert, delete, batch); only the driver underneath differs.
    const db = localD1Database(sqlite) as unknown as DrizzleD1Database<typeof schema>;
    return { db, sqlite, dispose: async () => sqlite.close() };
  }
  // Loaded here, not on start: wrangler takes a second to load, and usage errors need none of it.
  const { getPlatformProxy } = await import("wrangler");
  const proxy = await getPlatformProxy<{ DB: D1Database }>({
    configPath: await remoteConfig(target.env ?? "production"),
    remoteBindings: true,
  });
  const db = drizzle(proxy.env.DB, { schema, casing: "snake_case" });
  try {
    await proxy.env.DB.prepare("select 1 from filings limit 1").all();
  } catch (err) {
    await proxy.dispose();
    const hint = `apply the migrations to it first: wrangler d1 migrations apply DB --remote --env ${target.env}`;
    throw new Error(`the ${describeTarget(target)} has no filings table (${(err as Error).message}); ${hint}`);
  }
  return { db, sqlite: undefined, dispose: () => proxy.dispose() };
}
