/**
 * The consumer of the deliveries queue: each message is one change for one
 * subscription (dispatch.ts), POSTed to the subscription's URL as the
 * Standard Webhooks specification says (docs/webhooks.md):
 *
 *   {"type": "filing.terminated", "timestamp": RECORDED_AT, "data": CHANGE}
 *
 * `data` is the change exactly as GET /filings/changes gives it (the feed's
 * presenter), read at each attempt, so its `lien` is the filing as it
 * stands then. Headers: `webhook-id` (the same on every attempt and on a
 * redelivery), `webhook-timestamp` (this attempt, Unix seconds) and
 * `webhook-signature` (secrets.ts: the current secret's, and for a day
 * after a rotation the previous one's too).
 *
 * An attempt waits 15 s at most, for the answer and the first READ_BYTES
 * of its body (the rest is not read, nor what has not come by then). Only a 2xx is delivered; a redirect
 * is a failure and is not followed. After a failure the next attempt is
 * due RETRY_SCHEDULE later (about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 14 h, 20 h, 24 h, each ±10%), or later if a 429 or 503 says so in
 * Retry-After. The Queue holds the message meanwhile as a fresh message
 * sent with that delay (at most 12 hours: a longer wait arrives early and
 * waits the rest), the one that came acked. The log row
 * (webhook_deliveries) counts attempts and holds when the next is due, so
 * a message that arrives early (a wait past 12 hours, a copy sent twice)
 * waits again, and only attempts count towards the ten. After the tenth
 * failed attempt the delivery is recorded failed and the message goes to
 * the dead-letter queue. A 410 Gone disables the subscription; so do five
 * days of nothing but failures. Only a consumer fault (D1 failing) uses
 * the queue's own retries (`retry()`, after its retry_delay), so its
 * max_retries counts faults, never waits: messages that keep faulting
 * reach the dead-letter queue, whose consumer records them failed
 * (deadLetters).
 */
import { and, eq, isNull, sql } from "drizzle-orm";
import { partOf, shardChange } from "../changes/read.ts";
import { webhookDeliveries, webhookSubscriptions } from "../db/schema.ts";
import { isKeyMetadata, isUsable } from "../domain/apiKeys.ts";
import { isoSeconds } from "../domain/time.ts";
import { change } from "../http/present.ts";
import { logLine } from "../log.ts";
import { type DeliveryMessage, deliveryMessage, sentTo, type WebhookEnv } from "./dispatch.ts";
import { type ReceiverRules, receiverProblem } from "./receivers.ts";
import { openSecret, signatures } from "./secrets.ts";
import { type Subscription, setStatus } from "./store.ts";

/** Seconds from a failed attempt to the next, by how many have failed: ten attempts over about three days. */
export const RETRY_SCHEDULE = [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE.length + 1;
/** The longest delay Queues gives a message (12 hours). */
const MAX_QUEUE_DELAY = 43_200;
/** The longest Retry-After honoured (a day). */
const MAX_RETRY_AFTER = 86_400;
const TIMEOUT_MS = 15_000;
/** Bytes of a receiver's answer read, at most; the first SHOWN_CHARS characters go into the log. */
const READ_BYTES = 4_096;
const SHOWN_CHARS = 200;
/** Days of nothing but failures after which a subscription is disabled. */
const FAILING_DAYS = 5;
/** How long the previous secret signs after a rotation. */
export const ROTATION_OVERLAP_MS = 86_400_000;

export interface DeliverEnv extends WebhookEnv {
  /** The Worker's key that opens stored secrets (secrets.ts). */
  privateKey: string | undefined;
  rules: ReceiverRules;
  /** The deliveries queue (a wait is a fresh message on it) and its dead-letter queue. */
  deliveries: Queue<DeliveryMessage>;
  dead: Queue<DeliveryMessage>;
  /** How a request reaches the receiver (fetch; tests pass a receiver). */
  send?: (request: Request) => Promise<Response>;
  /** How long an attempt waits for its answer, in milliseconds (TIMEOUT_MS; tests pass a short one). */
  timeoutMs?: number;
}

/** The `webhook-id` of a subscription's message for a change: the same on every attempt. */
export function webhookId(subscription: Subscription, change: string): string {
  return `msg_${subscription.publicId.replace(/^wh_/, "")}_${change}`;
}

/** A delay of about `seconds`: ±10%, so retries of many messages do not arrive together. */
function jittered(seconds: number): number {
  return Math.round(seconds * (0.9 + Math.random() * 0.2));
}

/** Seconds a Retry-After header asks to wait (seconds or an HTTP date), if it says. */
function retryAfter(header: string | null, now: Date): number | null {
  if (header === null) return null;
  const seconds = /^\s*\d+\s*$/.test(header) ? Number(header) : (Date.parse(header) - now.getTime()) / 1000;
  return Number.isFinite(seconds) ? Math.max(0, Math.ceil(seconds)) : null;
}

interface Outcome {
  status: number | null;
  /** What went wrong, for the log (never the request). */
  error: string | null;
  retryAfter: string | null;
}

/**
 * The first `limit` bytes of a body, as text; the rest is cancelled unread.
 * When `signal` aborts (the attempt's time is up) reading stops with what
 * came: a receiver that sends its status and then a body slowly, or never
 * ends it, holds the consumer no longer than one that never answers.
 */
async function readSome(body: ReadableStream<Uint8Array> | null, limit: number, signal: AbortSignal): Promise<string> {
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  // Cancelling the reader ends a pending read as done.
  const stop = () => void reader.cancel().catch(() => {});
  if (signal.aborted) stop();
  else signal.addEventListener("abort", stop, { once: true });
  try {
    while (total < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      total += value.length;
    }
  } finally {
    signal.removeEventListener("abort", stop);
    await reader.cancel().catch(() => {});
  }
  const bytes = new Uint8Array(Math.min(total, limit));
  let at = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - at);
    bytes.set(part, at);
    at += part.length;
    if (at === bytes.length) break;
  }
  return new TextDecoder().decode(bytes);
}

/** A wait as the delivery log says it: "15 s", or "50 ms" under a second. */
const waited = (ms: number) => (ms < 1000 ? `${ms} ms` : `${ms / 1000} s`);

/** One attempt: the POST, within TIMEOUT_MS for the answer and the part of its body read. */
async function attempt(env: DeliverEnv, request: Request): Promise<Outcome> {
  const send = env.send ?? ((r: Request) => fetch(r));
  try {
    const res = await send(request);
    const text = (await readSome(res.body, READ_BYTES, request.signal)).replace(/\p{Cc}+/gu, " ").trim();
    const said = text === "" ? "" : `: ${text.slice(0, SHOWN_CHARS)}`;
    if (res.status >= 200 && res.status < 300) return { status: res.status, error: null, retryAfter: null };
    if (res.status >= 300 && res.status < 400) {
      return {
        status: res.status,
        error: `redirect (not followed) to ${res.headers.get("location") ?? "nowhere"}`,
        retryAfter: null,
      };
    }
    return { status: res.status, error: `answered ${res.status}${said}`, retryAfter: res.headers.get("retry-after") };
  } catch (err) {
    const name = err instanceof Error ? err.name : "Error";
    const said = err instanceof Error ? err.message.slice(0, SHOWN_CHARS) : String(err);
    const error =
      name === "TimeoutError" || name === "AbortError"
        ? `no answer within ${waited(env.timeoutMs ?? TIMEOUT_MS)}`
        : `request failed: ${said}`;
    return { status: null, error, retryAfter: null };
  }
}

/** Writes the log row of message `m` (its id `id`): created by the first attempt, updated by each. */
async function record(
  env: DeliverEnv,
  id: string,
  m: DeliveryMessage,
  row: {
    status: "pending" | "delivered" | "failed";
    attempts: number;
    lastStatus: number | null;
    lastError: string | null;
    nextAt: string | null;
  },
  now: Date,
) {
  const at = isoSeconds(now);
  await env.db
    .insert(webhookDeliveries)
    .values({
      id,
      subscription: m.subscription,
      shard: m.shard,
      seq: m.seq,
      change: m.change,
      type: m.type,
      ...row,
      createdAt: at,
      updatedAt: at,
    })
    .onConflictDoUpdate({ target: webhookDeliveries.id, set: { ...row, updatedAt: at } });
}

/**
 * Holds `message` back `seconds` (12 hours at most: a longer wait arrives
 * early and waits again): a fresh message with that delay, this one acked.
 * Not `retry()`, which the queue counts towards max_retries: waits would
 * spend the budget meant for consumer faults, and a message arriving early
 * more than once could reach the dead-letter queue before its tenth attempt.
 */
async function wait(env: DeliverEnv, message: Message<unknown>, m: DeliveryMessage, seconds: number) {
  const delaySeconds = Math.min(MAX_QUEUE_DELAY, Math.max(1, Math.ceil(seconds)));
  await env.deliveries.send(m, { contentType: "json", delaySeconds });
  message.ack();
}

/** Whether the API key with this digest may be used now. */
async function keyUsable(env: DeliverEnv, digest: string, now: Date): Promise<boolean> {
  const { metadata } = await env.keys.getWithMetadata(digest);
  return isKeyMetadata(metadata) && isUsable(metadata, now);
}

/** The secrets that sign now: the current one, and the previous one within a day of a rotation. */
async function signingSecrets(env: DeliverEnv, sub: Subscription, now: Date): Promise<string[]> {
  if (!env.privateKey) throw new Error("WEBHOOK_PRIVATE_KEY is not set: stored secrets cannot be opened");
  const secrets = [await openSecret(sub.secret, env.privateKey)];
  if (sub.previousSecret && sub.previousUntil && Date.parse(sub.previousUntil) > now.getTime()) {
    secrets.push(await openSecret(sub.previousSecret, env.privateKey));
  }
  return secrets;
}

/** One message of the deliveries queue, to its end: acked, or held back for the next attempt. */
async function deliverOne(
  env: DeliverEnv,
  message: Message<unknown>,
  now: Date,
  checked: Map<string, Promise<string | null>>,
): Promise<void> {
  const parsed = deliveryMessage.safeParse(message.body);
  if (!parsed.success) {
    logLine("warn", { event: "webhook_message_ignored", message: message.id });
    message.ack();
    return;
  }
  const m = parsed.data;
  const [sub] = await env.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, m.subscription));
  // Removed (its log went with it), or its id now another's.
  if (!sub || !sentTo(sub, m)) return message.ack();
  const id = webhookId(sub, m.change);
  const [entry] = await env.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
  // Done already (a message sent twice), or given up (a redelivery sets it pending first).
  if (entry && entry.status !== "pending") return message.ack();
  if (entry?.nextAt) {
    const early = (Date.parse(entry.nextAt) - now.getTime()) / 1000;
    if (early > 1) return wait(env, message, m, early);
  }
  const attempts = (entry?.attempts ?? 0) + 1;
  const give = async (error: string) => {
    await record(
      env,
      id,
      m,
      { status: "failed", attempts: entry?.attempts ?? 0, lastStatus: null, lastError: error, nextAt: null },
      now,
    );
    message.ack();
  };
  if (sub.status !== "enabled")
    return give(`not sent: the subscription is disabled (${sub.disabledReason ?? "by the operator"})`);
  if (!(await keyUsable(env, sub.keyDigest, now)))
    return give("not sent: the subscription's API key is revoked or expired");
  const feed = env.shards.get(m.shard)?.feed;
  const read = feed ? await shardChange(feed, m.seq) : undefined;
  if (!read) return give("not sent: the change is no longer kept");
  const item = { ...read, part: partOf(read.state, m.shard, env.partsOf) };

  // Checked once a batch per URL: a batch of one receiver's messages resolves its name once.
  let check = checked.get(sub.url);
  if (!check) {
    check = receiverProblem(sub.url, env.rules);
    checked.set(sub.url, check);
  }
  const refused = await check;
  let outcome: Outcome;
  if (refused) outcome = { status: null, error: `receiver refused: ${refused}`, retryAfter: null };
  else {
    const body = JSON.stringify({
      type: item.type,
      timestamp: item.recordedAt,
      data: change(item, now.toISOString().slice(0, 10)),
    });
    const timestamp = Math.floor(now.getTime() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "lien-filing-lookup-webhooks/1",
      "webhook-id": id,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": await signatures(await signingSecrets(env, sub, now), id, timestamp, body),
    };
    outcome = await attempt(
      env,
      new Request(sub.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(env.timeoutMs ?? TIMEOUT_MS),
      }),
    );
  }
  const done = { attempts, lastStatus: outcome.status, lastError: outcome.error };

  if (outcome.error === null) {
    await record(env, id, m, { status: "delivered", ...done, nextAt: null }, now);
    if (sub.failingSince !== null) {
      await env.db.update(webhookSubscriptions).set({ failingSince: null }).where(eq(webhookSubscriptions.id, sub.id));
    }
    return message.ack();
  }
  if (outcome.status === 410) {
    await setStatus(env.db, sub.id, false, "the receiver answered 410 Gone", now);
    await record(env, id, m, { status: "failed", ...done, nextAt: null }, now);
    logLine("warn", { event: "webhook_disabled", subscription: sub.publicId, reason: "410" });
    return message.ack();
  }
  // Nothing but failures since failing_since: five days of them disable the subscription.
  if (sub.failingSince === null) {
    await env.db
      .update(webhookSubscriptions)
      .set({ failingSince: isoSeconds(now) })
      .where(and(eq(webhookSubscriptions.id, sub.id), isNull(webhookSubscriptions.failingSince)));
  } else if (now.getTime() - Date.parse(sub.failingSince) >= FAILING_DAYS * 86_400_000) {
    await setStatus(env.db, sub.id, false, `every delivery failed for ${FAILING_DAYS} days`, now);
    await record(env, id, m, { status: "failed", ...done, nextAt: null }, now);
    logLine("warn", { event: "webhook_disabled", subscription: sub.publicId, reason: "failing" });
    return message.ack();
  }
  if (attempts >= MAX_ATTEMPTS) {
    await record(env, id, m, { status: "failed", ...done, nextAt: null }, now);
    await env.dead.send(m, { contentType: "json" });
    return message.ack();
  }
  let delay = jittered(RETRY_SCHEDULE[attempts - 1] ?? MAX_QUEUE_DELAY);
  if (outcome.status === 429 || outcome.status === 503) {
    const asked = retryAfter(outcome.retryAfter, now);
    if (asked !== null) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER));
  }
  await record(env, id, m, { status: "pending", ...done, nextAt: isoSeconds(now.getTime() + delay * 1000) }, now);
  await wait(env, message, m, delay);
}

/** The deliveries queue's consumer: each message on its own, at once; a fault retries it after the queue's retry_delay. */
export async function deliver(batch: MessageBatch<unknown>, env: DeliverEnv, now = new Date()): Promise<void> {
  const checked = new Map<string, Promise<string | null>>();
  await Promise.all(
    batch.messages.map(async (message) => {
      try {
        await deliverOne(env, message, now, checked);
      } catch (err) {
        // The kind of failure only: a D1 message can quote SQL.
        logLine("error", {
          event: "webhook_delivery_failed",
          message: message.id,
          attempts: message.attempts,
          error: (err as Error).name,
        });
        message.retry();
      }
    }),
  );
}

/**
 * The dead-letter queue's consumer: a message there gave up, after its
 * attempts (already recorded failed) or after the consumer faulted on it
 * every time; either way its delivery is recorded failed.
 */
export async function deadLetters(batch: MessageBatch<unknown>, env: WebhookEnv, now = new Date()): Promise<void> {
  for (const message of batch.messages) {
    const parsed = deliveryMessage.safeParse(message.body);
    if (parsed.success) {
      const m = parsed.data;
      const [sub] = await env.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, m.subscription));
      if (sub && sentTo(sub, m)) {
        const at = isoSeconds(now);
        await env.db
          .insert(webhookDeliveries)
          .values({
            id: webhookId(sub, m.change),
            subscription: m.subscription,
            shard: m.shard,
            seq: m.seq,
            change: m.change,
            type: m.type,
            status: "failed",
            attempts: 0,
            lastError: "the consumer failed on every retry",
            createdAt: at,
            updatedAt: at,
          })
          .onConflictDoUpdate({
            target: webhookDeliveries.id,
            set: { status: "failed", nextAt: null, updatedAt: at },
            setWhere: sql`${webhookDeliveries.status} <> 'failed'`,
          });
      }
    }
    message.ack();
  }
}
