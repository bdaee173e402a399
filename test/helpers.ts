/**
 * Test fixtures: small hand-made filings loaded through the same insert path
 * as the seed, each into its state's shard (the tests run with one shard and
 * with four: vitest.config.ts), API keys registered in the local KV, and a
 * client for the Worker under test.
 */
import { env, exports } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { createApp } from "../src/app.ts";
import { insertFilings, recordLoad, upsertFilings } from "../src/db/load.ts";
import type { FilingRecord, PartyRecord } from "../src/db/records.ts";
import * as schema from "../src/db/schema.ts";
import type { ShardDatabases } from "../src/db/shards.ts";
import { partsOf, shardOf, shardsOf } from "../src/db/shards.ts";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { isoSeconds } from "../src/domain/time.ts";
import type { Body, ItemOf, ListOf } from "./bodies.ts";

/**
 * The test keys and the address the tests call from, new for each test
 * file (test/setup.ts calls newTestCaller): a runtime serves file after
 * file (vitest.config.ts, isolate: false), and what the Worker keeps per
 * key and per address (cached answers, request rates, failed key checks)
 * must not carry over from one file to the next.
 */
export let TEST_KEY = "";
export let REVOKED_KEY = "";
let addressPrefix = "";
/** Sent as cf-connecting-ip by `get` unless a test sends its own. */
let CLIENT_ADDRESS = "";
/**
 * This file's client address `n` (0 to 65,534): an IPv6 /64 of the
 * documentation range, which the Worker counts as one client, that no
 * other file uses.
 */
export function testAddress(n: number): string {
  return `2001:db8:${addressPrefix}:${(n % 65_535).toString(16)}::1`;
}
export function newTestCaller(): void {
  const id = crypto.randomUUID().replaceAll("-", "");
  TEST_KEY = `test-key-${id}`;
  REVOKED_KEY = `revoked-key-${id}`;
  addressPrefix = id.slice(0, 4);
  CLIENT_ADDRESS = testAddress(65_534);
}
newTestCaller();

/** The layout under test and each shard's D1 binding. */
export const shards = shardsOf(env);

/** A Drizzle handle over `d1`, as the app makes one. */
export const drizzleOf = (d1: D1Database) => drizzle(d1, { schema, casing: "snake_case" });

/** Drizzle handles over every shard, for sharded imports (src/feed/shardedImport.ts). */
export const shardDatabases: ShardDatabases = {
  layout: shards.layout,
  databases: new Map([...shards.databases].map(([name, d1]) => [name, drizzleOf(d1)])),
};

/** The D1 binding of the shard that holds `state` (wrangler.toml's layout splits no state). */
export function d1Of(state: string): D1Database {
  return shards.databases.get(partsOf(shards.layout, state)[0]!)!;
}

/** The Drizzle handle of the shard that holds `state`. */
export function dbOf(state: string) {
  return shardDatabases.databases.get(partsOf(shards.layout, state)[0]!)!;
}

/** Every shard's D1 binding. */
export const allD1 = [...shards.databases.values()];

/**
 * `env` with every shard's binding replaced by `wrap(binding)`: a failing,
 * hanging or recording database wherever the request reads.
 */
export function envWithShards(wrap: (d1: D1Database, name: string) => D1Database): Env {
  const replaced: Record<string, D1Database> = {};
  for (const [name, d1] of shards.databases) replaced[name] = wrap(d1, name);
  return { ...env, ...replaced };
}

/** Empties every table of every shard (D1's own tables and the migrations journal aside). */
export async function clearAllShards(): Promise<void> {
  for (const d1 of allD1) {
    const { results } = await d1
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_cf\\_%' escape '\\' and name <> 'd1_migrations'",
      )
      .all<{ name: string }>();
    await d1.batch([
      d1.prepare("pragma defer_foreign_keys = on"),
      ...results.map(({ name }) => d1.prepare(`delete from "${name}"`)),
    ]);
  }
}

const DAY = 86_400_000;

/** ISO timestamp `days` before now (negative: in the future). */
export function daysAgo(days: number, now = Date.now()): string {
  return isoSeconds(now - days * DAY);
}

/** A party; address fields default to 1 Main St, Springfield, CA 94107. */
export function party(
  name: string,
  over: Partial<Omit<PartyRecord, "address">> & { street1?: string; zip?: string; state?: string } = {},
): PartyRecord {
  const { street1, zip, state, ...rest } = over;
  return {
    name,
    type: "Organization",
    label: null,
    address: { street1: street1 ?? "1 Main St", city: "Springfield", state: state ?? "CA", zipCode: zip ?? "94107" },
    ...rest,
  };
}

let counter = 0;

/** A filing with sensible defaults: one debtor, one lender, filed 10 days ago in CA. */
export function filing(over: Partial<FilingRecord> = {}): FilingRecord {
  counter += 1;
  return {
    state: "CA",
    number: `T${String(counter).padStart(8, "0")}`,
    filedAt: daysAgo(10),
    kind: "standard",
    debtors: [party("Acme Widgets LLC", { label: "Manufacturing" })],
    securedParties: [party("First Test Bank, N.A.", { label: "Bank" })],
    amendments: [],
    ...over,
  };
}

let nextId = 1;

/** Inserts `records` (ids continue across calls within a test file). */
export async function load(records: FilingRecord[]): Promise<void> {
  for (const [shard, db] of shardDatabases.databases) {
    const mine = records.filter((r) => shardOf(shards.layout, r.state, r.number) === shard);
    if (mine.length > 0) await insertFilings(db, mine, nextId);
    nextId += mine.length;
    // Every shard records the load, as a sharded import does, and the currency of its states.
    await recordLoad(db, "test", records.length, new Date(), new Map(mine.map((r) => [r.state, null])));
  }
}

/** Loads `records` as an import does (upsert: new, changed or unchanged), each into its state's shard. */
export async function loadDelta(records: FilingRecord[], now = new Date()): Promise<void> {
  for (const [shard, db] of shardDatabases.databases) {
    const mine = records.filter((r) => shardOf(shards.layout, r.state, r.number) === shard);
    if (mine.length > 0) await upsertFilings(db, mine, { source: "test delta", now });
  }
}

export async function registerKeys(): Promise<void> {
  const put = async (key: string, status: KeyMetadata["status"]) => {
    const metadata: KeyMetadata = { label: `test ${status}`, created: daysAgo(1), status };
    await env.API_KEYS.put(await hashKey(key), "", { metadata });
  };
  await put(TEST_KEY, "active");
  await put(REVOKED_KEY, "revoked");
}

/** Calls the Worker with the test key (or `key`, or none when null). */
export async function get(path: string, key: string | null = TEST_KEY, init: RequestInit = {}) {
  const headers = new Headers(init.headers);
  if (key !== null) headers.set("x-api-key", key);
  if (!headers.has("cf-connecting-ip")) headers.set("cf-connecting-ip", CLIENT_ADDRESS);
  return exports.default.fetch(new Request(`https://lien.test${path}`, { ...init, headers }));
}

/** GET and parse JSON, asserting the status. */
async function readJson(path: string, status: number, key: string | null): Promise<unknown> {
  const res = await get(path, key);
  const body = await res.text();
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${body}`);
  return JSON.parse(body);
}

/** GET and parse JSON, asserting the status; typed as the route's response schema says (bodies.ts). */
export async function getJson<P extends string, S extends number = 200>(
  path: P,
  status?: S,
  key: string | null = TEST_KEY,
): Promise<Body<P, S>> {
  return (await readJson(path, status ?? 200, key)) as Body<P, S>;
}

/** Walks every page of an envelope-A list and returns all items. */
export async function allPagesA<P extends string, L extends ListOf<Body<P>> & string>(
  path: P,
  list: L,
): Promise<ItemOf<Body<P>, L>[]> {
  type Page = { pagination: { total_pages: number } } & Record<L & string, ItemOf<Body<P>, L>[]>;
  const first = (await readJson(path, 200, TEST_KEY)) as Page;
  const items = [...first[list]];
  for (let p = 2; p <= first.pagination.total_pages; p++) {
    const sep = path.includes("?") ? "&" : "?";
    items.push(...((await readJson(`${path}${sep}page=${p}`, 200, TEST_KEY)) as Page)[list]);
  }
  return items;
}

let answered = 0;
/**
 * The body of `path` served with the bindings `layout` (a shard layout under
 * test), without its per-response metadata, with the next page's cursor
 * and the Server-Timing header; a fresh URL each time keeps the edge cache out.
 */
export async function answerIn(layout: Env, path: string) {
  answered += 1;
  const sep = path.includes("?") ? "&" : "?";
  const res = await createApp().request(
    `${path}${sep}_layout=${answered}`,
    // A new address every 50 requests: the public lookup's per-address limit is not what a layout comparison tests.
    { headers: { "x-api-key": TEST_KEY, "cf-connecting-ip": testAddress(60_000 + Math.floor(answered / 50)) } },
    layout,
  );
  const body = (await res.json()) as Record<string, unknown> & {
    response_metadata?: { next_cursor?: string };
    pagination?: { next_cursor?: string };
  };
  const { response_metadata: metadata, ...rest } = body;
  const cursor = rest.pagination?.next_cursor ?? metadata?.next_cursor;
  return { status: res.status, body: rest, cursor, timing: res.headers.get("server-timing") ?? "" };
}
