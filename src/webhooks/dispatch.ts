/**
 * The dispatcher: matches each shard's new changes against the webhook
 * subscriptions, once, and sends one message per subscription and change
 * to the deliveries queue (deliver.ts).
 *
 * Each shard has a dispatch position in the default shard
 * (webhook_positions): the last change matched. A step reads the changes
 * after it, in order, as the change feed reads them (read.ts), matches
 * them by index, sends their messages, and then moves the position to the
 * last change read, only if no other dispatcher moved it meanwhile. A load
 * that commits changes, wherever it runs (the CLI writing local files or a
 * remote database, the LoadFeed Workflow, the daily lapse job), only has to
 * nudge the dispatch queue (nudge.ts); a nudge lost is made up by the next
 * one or by the daily job's. The consumer of that queue runs one at a time
 * (wrangler.toml, max_concurrency 1).
 *
 * Matching a change costs a few index lookups, whatever the number of
 * subscriptions or the length of the watchlists:
 * - its filing's parties' keys (src/db/nameIndex.ts), and those of the
 *   parties the change took off it (changes.removed_parties), in webhook_names,
 *   one statement for the page's changes; each name found is checked with
 *   the name rule itself (the exact-name rule of debtorQuery, whole
 *   leading words of securedNameRange), each watched name read once a run;
 * - the subscriptions without a watchlist (read after each page of changes,
 *   so one made while the dispatcher runs is matched with them);
 * - then each candidate's types, states, its start (a subscription gets
 *   only changes recorded after it was made) and its API key (a revoked or
 *   expired key gets nothing).
 *
 * At least once: a dispatcher stopped between sending and moving the
 * position sends that step's messages again, with the same ids; order is
 * not kept (the queue delivers and retries messages independently).
 */
import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type ChangeItem, changeId, partOf, shardChanges } from "../changes/read.ts";
import { readRemoved } from "../db/changeRows.ts";
import type { Db } from "../db/database.ts";
import { partyLookupKeys } from "../db/nameIndex.ts";
import { webhookNames, webhookPositions, webhookSubscriptions } from "../db/schema.ts";
import { isKeyMetadata, isUsable } from "../domain/apiKeys.ts";
import { CHANGE_TYPES } from "../domain/kinds.ts";
import {
  type DebtorQuery,
  debtorKey,
  debtorQuery,
  queryFindsKey,
  securedNameRange,
  securedNameWords,
} from "../domain/names.ts";
import { isoSeconds } from "../domain/time.ts";
import type { Db as FeedDb } from "../queries/db.ts";
import { newestChanges, type Subscription } from "./store.ts";

/** A message of the deliveries queue: one change for one subscription. */
export const deliveryMessage = z.object({
  subscription: z.number().int(),
  /**
   * The subscription's public id: SQLite gives a removed subscription's id
   * to the next one made, which must not take its messages. Absent from
   * messages sent before it was added (their changes predate any new
   * subscription's start, which sentTo checks too).
   */
  publicId: z.string().optional(),
  shard: z.string(),
  seq: z.number().int().positive(),
  /** The change's id as the feed gives it (`CA-10423`). */
  change: z.string(),
  type: z.enum(CHANGE_TYPES),
});
export type DeliveryMessage = z.infer<typeof deliveryMessage>;

/** Where messages are sent: the deliveries queue (tests pass a recorder). */
export interface Outbox {
  sendBatch(messages: Iterable<MessageSendRequest<DeliveryMessage>>): Promise<unknown>;
}

/** What the dispatcher and the consumer work with, built from the Worker's env (webhookEnv in index.ts). */
export interface WebhookEnv {
  /** The default shard's database: subscriptions, positions, the delivery log. */
  db: Db;
  /** Every shard's database, in layout order: as the change feed reads it, and as a loader writes it. */
  shards: ReadonlyMap<string, { feed: FeedDb; db: Db }>;
  /** A split state's shards, in part order, which name its changes (changeId); none: every state whole. */
  partsOf?: (state: string) => readonly string[];
  keys: KVNamespace;
}

/** Changes read and matched per step, and steps per shard per run (more left: the run asks for another). */
const PAGE = 100;
const STEPS = 20;
/** Messages per sendBatch (the Queues limit). */
const SEND_BATCH = 100;

export interface DispatchResult {
  /** Changes matched. */
  changes: number;
  /** Messages sent. */
  messages: number;
  /** Changes are left after this run's steps. */
  more: boolean;
}

/** Whether each subscription's API key may be used now, read once a run. */
class KeyCheck {
  private readonly known = new Map<string, Promise<boolean>>();
  private readonly keys: KVNamespace;
  private readonly now: Date;
  constructor(keys: KVNamespace, now: Date) {
    this.keys = keys;
    this.now = now;
  }
  usable(digest: string): Promise<boolean> {
    let found = this.known.get(digest);
    if (!found) {
      found = this.keys
        .getWithMetadata(digest)
        .then(({ metadata }) => isKeyMetadata(metadata) && isUsable(metadata, this.now));
      this.known.set(digest, found);
    }
    return found;
  }
}

const startsOf = new WeakMap<Subscription, Record<string, number>>();

/** Whether change `seq` of `shard` was recorded after `sub` was made (its start there). */
function afterStart(sub: Subscription, shard: string, seq: number): boolean {
  let starts = startsOf.get(sub);
  if (!starts) {
    starts = JSON.parse(sub.starts) as Record<string, number>;
    startsOf.set(sub, starts);
  }
  return seq > (starts[shard] ?? 0);
}

/** Whether `sub` wants `item` of shard `shard`, its watchlist aside. */
function wants(sub: Subscription, shard: string, item: ChangeItem): boolean {
  if (sub.types !== null && !sub.types.split("|").includes(item.type)) return false;
  if (sub.states !== null && !sub.states.split("|").includes(item.state)) return false;
  return afterStart(sub, shard, item.seq);
}

/** Whether message `m` was sent to `sub`, and not to a removed subscription whose id it has taken. */
export function sentTo(sub: Subscription, m: DeliveryMessage): boolean {
  return (m.publicId ?? sub.publicId) === sub.publicId && afterStart(sub, m.shard, m.seq);
}

type NameRow = { subscription: number; kind: "debtor" | "secured_party"; name: string; key: number };

/** A watched name as the rule reads it, read once a run (a name is checked against many parties). */
class WatchedNames {
  private readonly debtors = new Map<string, DebtorQuery>();
  private readonly lenders = new Map<string, { from: string; to: string }>();
  /** Whether the watched `row` names one of the parties (their stored keys and words). */
  finds(row: NameRow, debtorKeys: string[], lenderWords: string[]): boolean {
    if (row.kind === "debtor") {
      let q = this.debtors.get(row.name);
      if (!q) {
        q = debtorQuery(row.name);
        this.debtors.set(row.name, q);
      }
      const query = q;
      return debtorKeys.some((k) => queryFindsKey(query, k));
    }
    let range = this.lenders.get(row.name);
    if (!range) {
      range = securedNameRange(row.name);
      this.lenders.set(row.name, range);
    }
    const { from, to } = range;
    return from !== "" && lenderWords.some((w) => w >= from && w < to);
  }
}

/** The messages of `items` (one shard's changes, in order): every subscription that wants each. */
async function match(
  env: WebhookEnv,
  shard: string,
  items: ChangeItem[],
  broad: Subscription[],
  keyCheck: KeyCheck,
  watched: WatchedNames,
): Promise<DeliveryMessage[]> {
  // The parties each change's filing names now, and those the change took off it (changes.removed_parties).
  const parties = items.map((item) => {
    const removed = readRemoved(item.removedParties);
    const debtorKeys = [...item.filing.debtors.map((d) => debtorKey(d.name, d.type)), ...removed.debtorKeys];
    const lenderWords = [...item.filing.securedParties.map((s) => securedNameWords(s.name)), ...removed.lenderWords];
    return { debtorKeys, lenderWords, keys: partyLookupKeys(debtorKeys, lenderWords) };
  });
  const allKeys = [...new Set(parties.flatMap((p) => p.keys))];
  const named: NameRow[] =
    allKeys.length === 0
      ? []
      : await env.db
          .select({
            subscription: webhookNames.subscription,
            kind: webhookNames.kind,
            name: webhookNames.name,
            key: webhookNames.key,
          })
          .from(webhookNames)
          .where(sql`${webhookNames.key} in (select value from json_each(${JSON.stringify(allKeys)}))`);
  const ids = [...new Set(named.map((n) => n.subscription))];
  const watching = new Map(
    (ids.length === 0
      ? []
      : await env.db
          .select()
          .from(webhookSubscriptions)
          .where(
            and(
              eq(webhookSubscriptions.status, "enabled"),
              sql`${webhookSubscriptions.id} in (select value from json_each(${JSON.stringify(ids)}))`,
            ),
          )
    ).map((s) => [s.id, s]),
  );
  const byKey = new Map<number, NameRow[]>();
  for (const n of named) byKey.set(n.key, [...(byKey.get(n.key) ?? []), n]);
  const out: DeliveryMessage[] = [];
  for (const [i, item] of items.entries()) {
    const { debtorKeys, lenderWords, keys } = parties[i] ?? { debtorKeys: [], lenderWords: [], keys: [] };
    const subs = new Map(broad.map((s) => [s.id, s]));
    const change = changeId({ ...item, part: partOf(item.state, shard, env.partsOf) });
    for (const n of keys.flatMap((k) => byKey.get(k) ?? [])) {
      const sub = watching.get(n.subscription);
      if (sub && !subs.has(sub.id) && watched.finds(n, debtorKeys, lenderWords)) subs.set(sub.id, sub);
    }
    for (const sub of subs.values()) {
      if (!wants(sub, shard, item) || !(await keyCheck.usable(sub.keyDigest))) continue;
      out.push({ subscription: sub.id, publicId: sub.publicId, shard, seq: item.seq, change, type: item.type });
    }
  }
  return out;
}

/**
 * Matches every shard's changes after its position (at most STEPS pages of
 * PAGE a shard), sending their messages to `outbox`. A shard without a
 * position starts at its newest change: it has no subscriber yet (adding
 * one sets every shard's position first).
 */
export async function dispatch(env: WebhookEnv, outbox: Outbox, now = new Date()): Promise<DispatchResult> {
  const result: DispatchResult = { changes: 0, messages: 0, more: false };
  const keyCheck = new KeyCheck(env.keys, now);
  const watched = new WatchedNames();
  for (const [shard, { feed, db }] of env.shards) {
    for (let step = 0; ; step++) {
      const [position] = await env.db.select().from(webhookPositions).where(eq(webhookPositions.shard, shard));
      if (!position) {
        const newest = (await newestChanges(new Map([[shard, db]])))[shard] ?? 0;
        await env.db
          .insert(webhookPositions)
          .values({ shard, seq: newest, updatedAt: isoSeconds(now) })
          .onConflictDoNothing();
        break;
      }
      if (step === STEPS) {
        result.more = true;
        break;
      }
      const { items, more } = await shardChanges(feed, {}, { after: position.seq }, PAGE);
      const last = items.at(-1);
      if (!last) break;
      // Read after the page: a subscription made before the page's changes is in it (one made after starts past them).
      const broad = await env.db
        .select()
        .from(webhookSubscriptions)
        .where(
          // Written as the partial index's own condition (constants, not bound values), so it is used.
          and(eq(webhookSubscriptions.status, "enabled"), sql`debtors = 0 and secured_parties = 0`),
        );
      const messages = await match(env, shard, items, broad, keyCheck, watched);
      for (let i = 0; i < messages.length; i += SEND_BATCH) {
        await outbox.sendBatch(messages.slice(i, i + SEND_BATCH).map((body) => ({ body, contentType: "json" })));
      }
      result.changes += items.length;
      result.messages += messages.length;
      const moved = await env.db
        .update(webhookPositions)
        .set({ seq: last.seq, updatedAt: isoSeconds(now) })
        .where(and(eq(webhookPositions.shard, shard), eq(webhookPositions.seq, position.seq)))
        .returning({ seq: webhookPositions.seq });
      // Another dispatcher moved it first: it has this shard. Or none follow: the shard is done.
      if (moved.length === 0 || !more) break;
    }
  }
  return result;
}
