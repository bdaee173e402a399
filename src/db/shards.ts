/**
 * Which D1 database (shard) holds which filing state (docs/sharding.md).
 *
 * Each filing state's data lives in exactly one D1 database. The layout is
 * configuration, in one place: wrangler.toml's `SHARD_STATES` var maps
 * extra D1 bindings to the states they hold, and every state not named
 * there lives in the default binding `DB`. No `SHARD_STATES` (or `{}`) is
 * one database, as before sharding.
 *
 *   [vars]
 *   SHARD_STATES = { DB_2 = ["CA", "NY"], DB_3 = ["TX", "FL"] }
 *
 * The Worker reads the layout from its env (shardsOf); Node scripts read it
 * from wrangler's config (scripts/shardConfig.ts), both through layoutOf,
 * so a bad layout fails the same way everywhere: at the first request, and
 * before any migration or deploy.
 */
import { z } from "zod";
import { STATE_CODES } from "../domain/states.ts";
import type { Db } from "./database.ts";

/** The binding of every state the configuration does not name. */
export const DEFAULT_SHARD = "DB";

/**
 * Most shards a layout may have. A cross-state request reads every shard at
 * once, each in one batch of at most 5 statements: 6 shards keep it within
 * the 6 simultaneous outgoing connections a Worker invocation may hold, and
 * 30 statements within the smallest plan's 50 D1 queries per invocation.
 */
export const MAX_SHARDS = 6;

/** An extra shard's binding; DB, the default shard, holds the states not named. */
const BINDING = /^DB_[A-Z0-9_]{1,29}$/;

const stateMap = z
  .record(z.string(), z.array(z.enum(STATE_CODES)).min(1, "a shard holds at least one state"))
  .superRefine((map, ctx) => {
    const seen = new Map<string, string>();
    for (const [shard, states] of Object.entries(map)) {
      if (!BINDING.test(shard)) {
        ctx.addIssue({
          code: "custom",
          message: `${shard}: a shard's binding is DB_ and capital letters, digits or _ (at most 32 characters); DB holds the states not named`,
        });
      }
      for (const state of states) {
        const other = seen.get(state);
        if (other) ctx.addIssue({ code: "custom", message: `${state} is mapped to both ${other} and ${shard}` });
        seen.set(state, shard);
      }
    }
    if (Object.keys(map).length + 1 > MAX_SHARDS) {
      ctx.addIssue({ code: "custom", message: `at most ${MAX_SHARDS} shards (DB and ${MAX_SHARDS - 1} more)` });
    }
  });

export interface ShardLayout {
  /** Every shard's binding, DEFAULT_SHARD first, then in configuration order. */
  shards: string[];
  /** The shard of each state the configuration names (the others: DEFAULT_SHARD). */
  byState: ReadonlyMap<string, string>;
}

export class ShardConfigError extends Error {
  override name = "ShardConfigError";
}

/** The layout of a `SHARD_STATES` value (an object, its JSON text, or undefined for one database). */
export function layoutOf(config: unknown): ShardLayout {
  let value = config ?? {};
  if (typeof value === "string") {
    try {
      value = JSON.parse(value);
    } catch {
      throw new ShardConfigError("SHARD_STATES is not JSON");
    }
  }
  const parsed = stateMap.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ShardConfigError(`SHARD_STATES: ${issue?.path.join(".") || "value"}: ${issue?.message}`);
  }
  const byState = new Map<string, string>();
  for (const [shard, states] of Object.entries(parsed.data)) for (const s of states) byState.set(s, shard);
  return { shards: [DEFAULT_SHARD, ...Object.keys(parsed.data)], byState };
}

/** The binding of the shard that holds `state`. */
export function shardOf(layout: ShardLayout, state: string): string {
  return layout.byState.get(state) ?? DEFAULT_SHARD;
}

/** The states `shard` holds; undefined for the default shard (every state not named). */
export function statesOf(layout: ShardLayout, shard: string): string[] | undefined {
  if (shard === DEFAULT_SHARD) return undefined;
  return [...layout.byState].filter(([, s]) => s === shard).map(([state]) => state);
}

function isD1(value: unknown): value is D1Database {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "withSession") === "function";
}

export interface Shards {
  layout: ShardLayout;
  /** The D1 binding of each shard. */
  databases: ReadonlyMap<string, D1Database>;
}

const checked = new WeakMap<object, Shards>();

/**
 * The Worker's shards: the layout of env.SHARD_STATES, each shard's D1
 * binding checked to exist. Validated once per env object; a bad layout
 * throws ShardConfigError (the request answers 503 and the log says why).
 */
export function shardsOf(env: Env): Shards {
  const known = checked.get(env);
  if (known) return known;
  const layout = layoutOf(Reflect.get(env, "SHARD_STATES"));
  const databases = new Map<string, D1Database>();
  for (const shard of layout.shards) {
    const d1 = Reflect.get(env, shard);
    if (!isD1(d1)) throw new ShardConfigError(`SHARD_STATES names ${shard}, which is not a D1 binding`);
    databases.set(shard, d1);
  }
  const shards = { layout, databases };
  checked.set(env, shards);
  return shards;
}

/** A Drizzle handle over each shard of a layout (the loaders write through them). */
export interface ShardDatabases {
  layout: ShardLayout;
  /** The database of each shard of the layout. */
  databases: ReadonlyMap<string, Db>;
}

/** The database of `shard` (default: the default shard, which holds load records), or an error naming it. */
export function shardDb(shards: ShardDatabases, shard: string = DEFAULT_SHARD): Db {
  const db = shards.databases.get(shard);
  if (!db) throw new Error(`no database for shard ${shard}`);
  return db;
}
