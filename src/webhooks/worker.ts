/**
 * Webhooks in the Worker (src/index.ts): the env as the dispatcher and the
 * consumer take it, the three queues' consumers (by queue name: dispatch,
 * deliveries, and the deliveries' dead-letter queue), the nudge loads send,
 * and the daily job's part (a nudge, as a backstop for any lost, and the
 * delivery log's retention).
 */
import { drizzle } from "drizzle-orm/d1";
import { retentionDays } from "../changes/daily.ts";
import * as schema from "../db/schema.ts";
import { DEFAULT_SHARD, partsOf, shardsOf } from "../db/shards.ts";
import { logLine } from "../log.ts";
import { database } from "../queries/db.ts";
import { type DeliverEnv, deadLetters, deliver } from "./deliver.ts";
import { dispatch } from "./dispatch.ts";
import { purgeDeliveries } from "./store.ts";

/** What a nudge says (only for the log: any message makes the dispatcher run). */
interface Nudge {
  from: string;
}

export function webhookEnv(env: Env): DeliverEnv {
  const { databases, layout } = shardsOf(env);
  const shards = new Map(
    [...databases].map(([shard, d1]) => [
      shard,
      { feed: database(d1), db: drizzle(d1, { schema, casing: "snake_case" }) },
    ]),
  );
  const home = shards.get(DEFAULT_SHARD);
  if (!home) throw new Error("no default shard");
  return {
    db: home.db,
    shards,
    partsOf: (state) => partsOf(layout, state),
    keys: env.API_KEYS,
    privateKey: env.WEBHOOK_PRIVATE_KEY,
    rules: { localReceivers: env.WEBHOOK_LOCAL_RECEIVERS === "true" },
    deliveries: env.WEBHOOK_DELIVERIES,
    dead: env.WEBHOOK_DEAD,
  };
}

/**
 * Asks the dispatcher to match new changes. A load calls it after it
 * commits changes; a nudge that fails is logged, never fails the load (the
 * next nudge, or the daily one, covers it).
 */
export async function nudgeDispatcher(queue: Queue, from: string): Promise<void> {
  try {
    await queue.send({ from } satisfies Nudge, { contentType: "json" });
  } catch (err) {
    logLine("warn", { event: "webhook_nudge_failed", from, error: (err as Error).name });
  }
}

/** Whether `queue` is one of the webhook queues (wrangler.toml), whatever its environment's suffix. */
export function isWebhookQueue(queue: string): boolean {
  return queue.startsWith("lien-webhook-");
}

/** The consumer of the webhook queues, by which one the batch is from. */
export async function webhookQueue(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const wh = webhookEnv(env);
  if (batch.queue.endsWith("-dlq")) return deadLetters(batch, wh);
  if (batch.queue.startsWith("lien-webhook-deliveries")) return deliver(batch, wh);
  // A batch of nudges is one run: they all ask for the same thing.
  const done = await dispatch(wh, env.WEBHOOK_DELIVERIES);
  logLine("info", { event: "webhook_dispatch", nudges: batch.messages.length, ...done });
  if (done.more) await nudgeDispatcher(env.WEBHOOK_DISPATCH, "dispatch");
  batch.ackAll();
}

/** The daily job's part: a nudge, and the delivery log kept as long as the changes it refers to. */
export async function webhooksDaily(env: Env, now: Date): Promise<void> {
  await nudgeDispatcher(env.WEBHOOK_DISPATCH, "daily");
  const retention = retentionDays(env.CHANGE_RETENTION_DAYS);
  await purgeDeliveries(webhookEnv(env).db, new Date(now.getTime() - retention * 86_400_000));
}
