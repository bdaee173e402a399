/**
 * Which D1 database (shard) holds which filing state (docs/sharding.md).
 *
 * Each filing state's data lives in one D1 database, or, for a state too
 * large for one, in parts over several: a filing's part is a hash of its
 * number. The layout is configuration, in one place: wrangler.toml's
 * `SHARD_STATES` var maps extra D1 bindings to the states (and parts of
 * states) they hold, and every state not named there lives in the default
 * binding `DB`. No `SHARD_STATES` (or `{}`) is one database, as before
 * sharding.
 *
 *   [vars]
 *   SHARD_STATES = { DB_2 = ["CA/1", "NY"], DB_3 = ["CA/2", "TX"] }
 *
 * The Worker reads the layout from its env (shardsOf); Node scripts read it
 * from wrangler's config (scripts/shardConfig.ts), both through layoutOf,
 * so a bad layout fails the same way everywhere: at the first request, and
 * before any migration or deploy.
 */
import { z } from "zod";
import { hash32 } from "../domain/hash64.ts";
import { STATE_CODES } from "../domain/states.ts";
import type { Db } from "./database.ts";

/** The binding of every state the configuration does not name. */
export const DEFAULT_SHARD = "DB";

/**
 * Most shards a layout may have: docs/sharding.md's production layout has
 * 15 (and room for one more). A cross-state request reads every shard at
 * once, each in one batch of at most 2 statements (3 batches on a deep page
 * by number): at 16, 32 statements on a direct page, 96 on a deep one,
 * within the 1,000 D1 queries a Workers Paid invocation may make (not the
 * Free plan's 50), and in three waves of the 6 connections a Worker holds
 * at once. A cursor names a shard by its index (src/http/paging.ts) and a
 * bookmark header holds one entry per shard (src/http/bookmark.ts).
 */
export const MAX_SHARDS = 16;

/** Most parts a split state may have. */
const MAX_PARTS = 9;

/** An extra shard's binding; DB, the default shard, holds the states not named. */
const BINDING = /^DB_[A-Z0-9_]{1,29}$/;

/** A state, or a part of a split state: "CA", or "CA/1" and "CA/2". */
const ENTRY = /^([A-Z]{2})(?:\/([1-9]))?$/;

const entry = z.string().refine(
  (value) => {
    const state = ENTRY.exec(value)?.[1];
    return state !== undefined && (STATE_CODES as readonly string[]).includes(state);
  },
  { message: `a state code, or a state's part as "CA/1" (parts 1 to ${MAX_PARTS})` },
);

const stateMap = z
  .record(z.string(), z.array(entry).min(1, "a shard holds at least one state"))
  .superRefine((map, ctx) => {
    const issue = (message: string) => ctx.addIssue({ code: "custom", message });
    const seen = new Map<string, string>();
    // A split state's parts: part number -> binding.
    const split = new Map<string, Map<number, string>>();
    for (const [shard, entries] of Object.entries(map)) {
      if (!BINDING.test(shard)) {
        issue(
          `${shard}: a shard's binding is DB_ and capital letters, digits or _ (at most 32 characters); DB holds the states not named`,
        );
      }
      for (const value of entries) {
        const other = seen.get(value);
        if (other) issue(`${value} is mapped to both ${other} and ${shard}`);
        seen.set(value, shard);
        const [, state = "", part] = ENTRY.exec(value) ?? [];
        if (part === undefined) continue;
        const parts = split.get(state) ?? new Map<number, string>();
        parts.set(Number(part), shard);
        split.set(state, parts);
      }
    }
    for (const [state, parts] of split) {
      const whole = seen.get(state);
      if (whole) issue(`${state} is both whole (in ${whole}) and split in parts: name it one way`);
      const count = Math.max(...parts.keys());
      if (count < 2) issue(`${state}/1 is the only part of ${state}: a split state has parts 1 to n, n at least 2`);
      for (let part = 1; part <= count; part++) {
        if (!parts.has(part)) issue(`${state} is split in ${count} parts, but ${state}/${part} is in no shard`);
      }
      const bindings = [...parts.values()];
      if (new Set(bindings).size < bindings.length) {
        issue(`${state}'s parts must each be in a different shard (${bindings.join(", ")})`);
      }
    }
    if (Object.keys(map).length + 1 > MAX_SHARDS) {
      issue(`at most ${MAX_SHARDS} shards (DB and ${MAX_SHARDS - 1} more)`);
    }
  });

export interface ShardLayout {
  /** Every shard's binding, DEFAULT_SHARD first, then in configuration order. */
  shards: string[];
  /** The shard of each whole state the configuration names (the others: DEFAULT_SHARD). */
  byState: ReadonlyMap<string, string>;
  /** The shards of each split state's parts, part 1 first. */
  parts: ReadonlyMap<string, readonly string[]>;
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
  const placed = new Map<string, [number, string][]>();
  for (const [shard, entries] of Object.entries(parsed.data)) {
    for (const value of entries) {
      const [, state = "", part] = ENTRY.exec(value) ?? [];
      if (part === undefined) byState.set(state, shard);
      else placed.set(state, [...(placed.get(state) ?? []), [Number(part), shard]]);
    }
  }
  const parts = new Map([...placed].map(([state, list]) => [state, list.sort(([a], [b]) => a - b).map(([, s]) => s)]));
  return { shards: [DEFAULT_SHARD, ...Object.keys(parsed.data)], byState, parts };
}

/**
 * The binding of the shard that holds filing `number` of `state`: the
 * state's shard, or for a split state the part a hash of the number names
 * (hash32 modulo the parts), so every record of a filing, an amendment
 * included, goes to one part without reading anything.
 */
export function shardOf(layout: ShardLayout, state: string, number: string): string {
  const parts = layout.parts.get(state);
  if (!parts) return layout.byState.get(state) ?? DEFAULT_SHARD;
  return parts[hash32(number) % parts.length] as string;
}

/** The shards that hold `state`'s filings: its shard, or each of its parts' (part 1 first). */
export function partsOf(layout: ShardLayout, state: string): readonly string[] {
  return layout.parts.get(state) ?? [layout.byState.get(state) ?? DEFAULT_SHARD];
}

/**
 * The states `shard` holds, a split state's part as "CA/1"; undefined for
 * the default shard (every state not named).
 */
export function statesOf(layout: ShardLayout, shard: string): string[] | undefined {
  if (shard === DEFAULT_SHARD) return undefined;
  const whole = [...layout.byState].filter(([, s]) => s === shard).map(([state]) => state);
  const parts = [...layout.parts].flatMap(([state, shards]) =>
    shards.flatMap((s, i) => (s === shard ? [`${state}/${i + 1}`] : [])),
  );
  return [...whole, ...parts];
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
