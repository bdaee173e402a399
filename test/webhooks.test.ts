/**
 * Webhooks (src/webhooks/, docs/webhooks.md): the dispatcher
 * matches each load's changes against subscriptions, and the consumer
 * POSTs them, signed, to a receiver that verifies every delivery with the
 * official `standardwebhooks` library. The queues are driven by hand:
 * dispatch() into a recording outbox, and its messages to the consumer in
 * batches (createMessageBatch), with the time of each attempt given.
 */
import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FilingRecord } from "../src/db/records.ts";
import { webhookDeliveries } from "../src/db/schema.ts";
import { hashKey } from "../src/domain/apiKeys.ts";
import type { ChangeType } from "../src/domain/kinds.ts";
import {
  type DeliverEnv,
  deadLetters,
  deliver,
  MAX_ATTEMPTS,
  RETRY_SCHEDULE,
  webhookId,
} from "../src/webhooks/deliver.ts";
import { type DeliveryMessage, dispatch } from "../src/webhooks/dispatch.ts";
import { newSecret, sealSecret } from "../src/webhooks/secrets.ts";
import {
  createSubscription,
  findSubscription,
  listDeliveries,
  newestChanges,
  newSubscriptionId,
  removeSubscription,
  reopenFailed,
  replaceWatchlist,
  rotateSecret,
  type Subscription,
  setStatus,
} from "../src/webhooks/store.ts";
import { parseWatchlist } from "../src/webhooks/watchlists.ts";
import { webhookEnv } from "../src/webhooks/worker.ts";
import {
  clearAllShards,
  daysAgo,
  envWithShards,
  filing,
  getJson,
  loadDelta,
  party,
  REVOKED_KEY,
  registerKeys,
  shardDatabases,
  TEST_KEY,
} from "./helpers.ts";

type Change = Awaited<ReturnType<typeof feedPage>>["changes"][number];

async function feedPage(query: string) {
  return getJson(`/filings/changes?${query}` as "/filings/changes");
}

/** Every change of the feed for `query`. */
async function feed(query = ""): Promise<Change[]> {
  const out: Change[] = [];
  let cursor: string | undefined;
  for (;;) {
    const params = new URLSearchParams(query);
    if (cursor) params.set("cursor", cursor);
    const body = await feedPage(params.toString());
    out.push(...body.changes);
    cursor = body.response_metadata.next_cursor;
    if (!body.response_metadata.has_more) return out;
  }
}

/** A receiver: verifies every delivery with the official library and answers as told (200 unless `answer` says). */
class Receiver {
  readonly got: {
    id: string;
    timestamp: number;
    signature: string;
    headers: Record<string, string>;
    text: string;
    body: { type: string; timestamp: string; data: Change };
  }[] = [];
  readonly secrets: string[];
  answer: (n: number, request: Request) => Response | Promise<Response> = () => new Response("ok");
  constructor(...secrets: string[]) {
    this.secrets = secrets;
  }
  send = async (request: Request): Promise<Response> => {
    const text = await request.text();
    const headers = Object.fromEntries(request.headers);
    // Every secret given must verify the message on its own, as a receiver holding only it would.
    for (const secret of this.secrets) new Webhook(secret).verify(text, headers);
    this.got.push({
      id: headers["webhook-id"] ?? "",
      timestamp: Number(headers["webhook-timestamp"]),
      signature: headers["webhook-signature"] ?? "",
      headers,
      text,
      body: JSON.parse(text),
    });
    return this.answer(this.got.length, request);
  };
}

/** Messages the dispatcher sent. */
class Outbox {
  readonly sent: DeliveryMessage[] = [];
  sendBatch = async (messages: Iterable<MessageSendRequest<DeliveryMessage>>) => {
    for (const m of messages) this.sent.push(m.body);
  };
}

/** A queue producer that records what is sent, with its delay. */
function recordingQueue() {
  const sent: { body: DeliveryMessage; delaySeconds: number | undefined }[] = [];
  const queue = {
    send: async (body: DeliveryMessage, options?: QueueSendOptions) => {
      sent.push({ body, delaySeconds: options?.delaySeconds });
    },
    sendBatch: async () => {},
  } as unknown as Queue<DeliveryMessage>;
  return { sent, queue };
}

let subscriber: DeliverEnv;
let requeued: ReturnType<typeof recordingQueue>;
let dead: ReturnType<typeof recordingQueue>;

beforeEach(async () => {
  await clearAllShards();
  await registerKeys();
  requeued = recordingQueue();
  dead = recordingQueue();
  subscriber = { ...webhookEnv(env), deliveries: requeued.queue, dead: dead.queue };
});

afterEach(() => {
  vi.useRealTimers();
});

/** A subscription of TEST_KEY to `url`, with a fresh secret (returned). */
async function subscribe(
  options: {
    types?: ChangeType[];
    states?: string[];
    debtors?: string[];
    securedParties?: string[];
    key?: string;
    url?: string;
  } = {},
): Promise<{ sub: Subscription; secret: string }> {
  const secret = newSecret();
  const publicId = newSubscriptionId();
  const lines = (names: string[] | undefined, kind: "debtor" | "secured_party") => {
    if (!names) return [];
    const parsed = parseWatchlist(new TextEncoder().encode(names.join("\n")), kind);
    if (!parsed.ok) throw new Error(parsed.problem);
    return parsed.value;
  };
  await createSubscription(subscriber.db, {
    publicId,
    keyDigest: await hashKey(options.key ?? TEST_KEY),
    url: options.url ?? "https://receiver.test/hooks",
    types: options.types ?? null,
    states: options.states ?? null,
    watch: [...lines(options.debtors, "debtor"), ...lines(options.securedParties, "secured_party")],
    sealedSecret: await sealSecret(secret, env.WEBHOOK_PUBLIC_KEY),
    starts: await newestChanges(shardDatabases.databases),
    now: new Date(),
  });
  const sub = await findSubscription(subscriber.db, publicId);
  if (!sub) throw new Error("not stored");
  return { sub, secret };
}

/**
 * Runs the consumer on `messages` (each its own queue message, delivered
 * `attempts` times before) at `now`: the queue's result, with the delay of
 * each message the consumer sent to hold one back (a wait is a fresh
 * message: `requeued`).
 */
/** Attempts' timeout where a test waits one out (15 s deployed). */
const SHORT_TIMEOUT_MS = 50;

async function consume(
  messages: DeliveryMessage[],
  receiver: Receiver,
  now = new Date(),
  attempts = 1,
  more: { timeoutMs?: number } = {},
) {
  const batch = createMessageBatch<DeliveryMessage>(
    "lien-webhook-deliveries",
    messages.map((body, i) => ({ id: `m-${body.change}-${i}`, timestamp: now, attempts, body })),
  );
  const before = requeued.sent.length;
  // The receiver's library checks the timestamp against its clock: the clock of the attempt.
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(now);
  const ctx = createExecutionContext();
  await deliver(batch, { ...subscriber, ...more, send: receiver.send }, now);
  const delays = requeued.sent.slice(before).map((sent) => sent.delaySeconds);
  return { ...(await getQueueResult(batch, ctx)), delays };
}

async function dispatched(): Promise<DeliveryMessage[]> {
  const outbox = new Outbox();
  await dispatch(subscriber, outbox);
  return outbox.sent;
}

/** The borrowers of the fixtures, in three states and three shards. */
function loans(): FilingRecord[] {
  return [
    filing({ number: "WH-A", debtors: [party("Smith, John A", { type: "Individual" })] }),
    filing({ number: "WH-B", state: "NY", debtors: [party("Acme Widgets LLC")] }),
    filing({ number: "WH-C", state: "TX", securedParties: [party("Harbor Point Capital LLC")] }),
    filing({ number: "WH-D", debtors: [party("Other Borrower Inc")] }),
    filing({ number: "WH-E", state: "TX", debtors: [party("Acme Widgets, Inc.")] }),
  ];
}

/** The next day: every fixture amended (terminated, continued...), and a new filing of a watched borrower. */
function nextDay(records: FilingRecord[]): FilingRecord[] {
  const amendment = (number: string, kind: FilingRecord["amendments"][number]["kind"], description: string) => ({
    number,
    filedAt: daysAgo(1),
    kind,
    description,
  });
  return [
    ...records.map((r, i) =>
      i % 2 === 0
        ? { ...r, amendments: [amendment(`${r.number}-T`, "termination", "Termination")] }
        : { ...r, amendments: [amendment(`${r.number}-C`, "continuation", "Continuation")] },
    ),
    filing({ number: "WH-F", state: "NY", debtors: [party("ACME WIDGETS L.L.C.")] }),
  ];
}

describe("matching", () => {
  it("sends a watchlist subscription exactly the changes of its borrowers and lenders, of its types", async () => {
    const records = loans();
    await loadDelta(records);
    // Before the subscription: not sent.
    const { sub, secret } = await subscribe({
      debtors: ["John Smith", "Acme Widgets"],
      securedParties: ["harbor point"],
      types: ["filing.created", "filing.terminated"],
    });
    const other = await subscribe({ debtors: ["Nobody Here LLC"] });
    const before = new Set((await feed()).map((c) => c.id));
    await loadDelta(nextDay(records));
    const messages = await dispatched();
    expect(messages.every((m) => m.subscription === sub.id)).toBe(true);
    expect(messages.some((m) => m.subscription === other.sub.id)).toBe(false);

    const receiver = new Receiver(secret);
    const result = await consume(messages, receiver);
    expect(result.explicitAcks).toHaveLength(messages.length);
    // What the feed's own filters give for the same names and types, after the subscription.
    const types = "types=filing.created,filing.terminated";
    const expected = new Map<string, Change>();
    for (const q of ["debtor_name=John%20Smith", "debtor_name=Acme%20Widgets", "secured_party=harbor%20point"]) {
      for (const c of await feed(`${types}&${q}`)) if (!before.has(c.id)) expected.set(c.id, c);
    }
    expect(expected.size).toBe(4);
    expect(receiver.got.map((g) => g.body.data.id).sort()).toEqual([...expected.keys()].sort());
    // The payload: the type, when it was recorded, and the change exactly as the feed gives it.
    for (const g of receiver.got) {
      expect(g.body.type).toBe(g.body.data.type);
      expect(g.body.timestamp).toBe(g.body.data.recorded_at);
      expect(g.body.data).toEqual(expected.get(g.body.data.id));
      expect(g.id).toBe(webhookId(sub, g.body.data.id));
    }
    // Each is logged delivered.
    const log = await listDeliveries(subscriber.db, sub);
    expect(log.map((d) => d.status)).toEqual(Array(4).fill("delivered"));
  });

  it("sends a state subscription every change of its states, and nothing to a revoked key's", async () => {
    const records = loans();
    await loadDelta(records);
    const { sub, secret } = await subscribe({ states: ["TX", "NY"] });
    const revoked = await subscribe({ key: REVOKED_KEY });
    const before = new Set((await feed()).map((c) => c.id));
    await loadDelta(nextDay(records));
    const messages = await dispatched();
    expect(messages.some((m) => m.subscription === revoked.sub.id)).toBe(false);
    const receiver = new Receiver(secret);
    await consume(messages, receiver);
    const expected = [...(await feed("state=TX")), ...(await feed("state=NY"))].filter((c) => !before.has(c.id));
    expect(receiver.got.map((g) => g.body.data.id).sort()).toEqual(expected.map((c) => c.id).sort());
    expect(receiver.got.length).toBe(4);
    // Dispatched once: a second run finds nothing new.
    expect(await dispatched()).toEqual([]);
    expect(sub.status).toBe("enabled");
  });

  it("sends a subscription made while the dispatcher runs every change recorded after it", async () => {
    await loadDelta([filing({ number: "WH-RUN-BASE" }), filing({ number: "WH-RUN-BASE-TX", state: "TX" })]);
    const early = await subscribe({ url: "https://early.test/hooks" });
    await loadDelta([filing({ number: "WH-RUN-CA" })]);
    let late: Subscription | undefined;
    const sent: DeliveryMessage[] = [];
    // While the run sends its first messages, a subscription is made and a Texas load commits.
    const outbox = {
      sendBatch: async (messages: Iterable<MessageSendRequest<DeliveryMessage>>) => {
        for (const m of messages) sent.push(m.body);
        if (late) return;
        late = (await subscribe({ url: "https://late.test/hooks" })).sub;
        await loadDelta([filing({ number: "WH-RUN-TX", state: "TX" })]);
      },
    };
    await dispatch(subscriber, outbox);
    const all = [...sent, ...(await dispatched())];
    const texas = (await feed("state=TX")).find((c) => c.initial_financing_number === "WH-RUN-TX");
    expect(all.filter((m) => m.subscription === late?.id).map((m) => m.change)).toEqual([texas?.id]);
    expect(all.filter((m) => m.subscription === early.sub.id)).toHaveLength(2);
  });

  it("holds a watchlist of 10,000 names, matches by index, and sends the new list's changes once it is replaced", async () => {
    await loadDelta([filing({ number: "WH-0" })]);
    const names = Array.from({ length: 10_000 }, (_, i) => `Portfolio Borrower ${i} LLC`);
    const { sub, secret } = await subscribe({ debtors: names });
    expect(sub.debtors).toBe(10_000);
    await loadDelta([
      filing({ number: "WH-IN", debtors: [party("PORTFOLIO BORROWER 9999, L.L.C.")] }),
      filing({ number: "WH-OUT", debtors: [party("Somebody Else LLC")] }),
    ]);
    const receiver = new Receiver(secret);
    await consume(await dispatched(), receiver);
    expect(receiver.got.map((g) => g.body.data.initial_financing_number)).toEqual(["WH-IN"]);
    // Replaced: the old names are gone, the new one is watched.
    const rows = parseWatchlist(new TextEncoder().encode("Somebody Else LLC"), "debtor");
    if (!rows.ok) throw new Error(rows.problem);
    await replaceWatchlist(subscriber.db, sub, ["debtor"], rows.value, new Date());
    expect((await findSubscription(subscriber.db, sub.publicId))?.debtors).toBe(1);
    await loadDelta([
      filing({ number: "WH-IN", debtors: [party("PORTFOLIO BORROWER 9999, L.L.C.")], collateral: "All assets" }),
      filing({ number: "WH-OUT", debtors: [party("Somebody Else LLC")], collateral: "All assets" }),
    ]);
    await consume(await dispatched(), receiver);
    expect(receiver.got.map((g) => [g.body.data.initial_financing_number, g.body.type])).toEqual([
      ["WH-IN", "filing.created"],
      ["WH-OUT", "filing.updated"],
    ]);
  });

  it("reads subscriptions, watchlists and positions only through indexes", async () => {
    await loadDelta([filing({ number: "WH-P0" })]);
    await subscribe({ debtors: ["Acme Widgets"], securedParties: ["harbor point"] });
    await subscribe({ states: ["CA"] });
    await loadDelta([filing({ number: "WH-P1", debtors: [party("Acme Widgets LLC")] })]);
    const statements: { sql: string; params: unknown[]; d1: D1Database }[] = [];
    const recorded = envWithShards(
      (d1) =>
        new Proxy(d1, {
          get(target, prop) {
            if (prop !== "prepare") return Reflect.get(target, prop).bind?.(target) ?? Reflect.get(target, prop);
            return (sql: string) => {
              const entry = { sql, params: [] as unknown[], d1: target };
              statements.push(entry);
              const stmt = target.prepare(sql);
              return new Proxy(stmt, {
                get(s, p) {
                  if (p === "bind") {
                    return (...params: unknown[]) => {
                      entry.params = params;
                      return s.bind(...params);
                    };
                  }
                  const v = Reflect.get(s, p);
                  return typeof v === "function" ? v.bind(s) : v;
                },
              });
            };
          },
        }),
    );
    const outbox = new Outbox();
    await dispatch(webhookEnv(recorded), outbox);
    expect(outbox.sent).toHaveLength(2);
    const tables =
      /\b(webhook_names|webhook_subscriptions|webhook_positions|webhook_deliveries|changes|change_names|filings)\b/;
    for (const { sql, params, d1 } of statements) {
      const plan = await d1
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .bind(...params)
        .all<{ detail: string }>();
      const scans = plan.results.map((r) => r.detail).filter((d) => d.startsWith("SCAN") && tables.test(d));
      expect(scans, sql).toEqual([]);
    }
  });

  it("matches the daily job's lapses like a load's changes", async () => {
    const lapse = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await loadDelta([
      filing({ number: "WH-LAPSE", officeLapseDate: lapse, filedAt: daysAgo(400), debtors: [party("Lapsing Co")] }),
    ]);
    const { secret } = await subscribe({ debtors: ["Lapsing Co"], types: ["filing.lapsed"] });
    const { runDaily } = await import("../src/changes/daily.ts");
    // The day after its lapse date, when it has lapsed.
    const after = new Date(Date.parse(`${lapse}T07:00:00Z`) + 86_400_000);
    for (const db of shardDatabases.databases.values()) await runDaily(db, after, 90);
    const receiver = new Receiver(secret);
    await consume(await dispatched(), receiver);
    expect(receiver.got.map((g) => [g.body.type, g.body.data.initial_financing_number])).toEqual([
      ["filing.lapsed", "WH-LAPSE"],
    ]);
  });
  it("sends the watchers of a debtor or lender the changes of the amendment that takes it off a filing, and none after", async () => {
    const borrower = filing({ number: "WH-OFF-D", debtors: [party("Quillon Tooling LLC")] });
    const lent = filing({ number: "WH-OFF-S", state: "TX", securedParties: [party("Harbor Point Capital LLC")] });
    await loadDelta([borrower, lent]);
    const debtor = await subscribe({ debtors: ["Quillon Tooling LLC"] });
    const lender = await subscribe({ securedParties: ["Harbor Point"] });
    const other = await subscribe({ debtors: ["Nobody Here LLC"] });
    const amendment = (number: string, kind: FilingRecord["amendments"][number]["kind"]) => ({
      number,
      filedAt: daysAgo(1),
      kind,
      description: kind,
    });
    // The debtor's name corrected to another, and the lien assigned to another lender: each party replaced.
    const corrected = {
      ...borrower,
      debtors: [party("Zeta Holdings LLC")],
      amendments: [amendment("WH-OFF-D-1", "party_change")],
    };
    const assigned = {
      ...lent,
      securedParties: [party("Meridian Lending Co")],
      amendments: [amendment("WH-OFF-S-1", "assignment")],
    };
    await loadDelta([corrected, assigned]);
    const messages = await dispatched();
    const sentTo = (id: number) =>
      messages
        .filter((m) => m.subscription === id)
        .map((m) => m.type)
        .sort();
    expect(sentTo(debtor.sub.id)).toEqual(["filing.amended", "filing.updated"]);
    expect(sentTo(lender.sub.id)).toEqual(["filing.assigned", "filing.updated"]);
    expect(sentTo(other.sub.id)).toEqual([]);
    // Delivered as the feed gives each change: its filing as it stands now, naming the new parties.
    const receiver = new Receiver(debtor.secret);
    await consume(
      messages.filter((m) => m.subscription === debtor.sub.id),
      receiver,
    );
    expect(receiver.got.map((g) => g.body.data.lien.involved_parties.debtor_parties.map((d) => d.name))).toEqual([
      ["Zeta Holdings LLC"],
      ["Zeta Holdings LLC"],
    ]);
    // Later changes of those filings no longer concern the parties taken off them.
    await loadDelta([
      { ...corrected, amendments: [...corrected.amendments, amendment("WH-OFF-D-2", "continuation")] },
      { ...assigned, amendments: [...assigned.amendments, amendment("WH-OFF-S-2", "continuation")] },
    ]);
    const later = await dispatched();
    expect(later.filter((m) => m.subscription === debtor.sub.id || m.subscription === lender.sub.id)).toEqual([]);
  });
});

describe("delivery", () => {
  /** One watched change, dispatched: its subscription, secret and message. */
  async function oneMessage(subscription: Parameters<typeof subscribe>[0] = {}) {
    await loadDelta([filing({ number: "WH-BASE" })]);
    const { sub, secret } = await subscribe(subscription);
    await loadDelta([filing({ number: "WH-ONE", debtors: [party("Watched Borrower LLC")] })]);
    const [message] = await dispatched();
    if (!message) throw new Error("nothing dispatched");
    return { sub, secret, message };
  }

  it("sends the same webhook-id again after failures, with a fresh timestamp, until it is delivered", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = (n) => (n <= 2 ? new Response("busy", { status: 500 }) : new Response(null, { status: 204 }));
    const start = Date.now();
    const first = await consume([message], receiver, new Date(start));
    // Held back about 5 s (±10%): a fresh message with that delay, this one acked.
    expect(first.explicitAcks).toHaveLength(1);
    expect(first.delays[0]).toBeGreaterThanOrEqual(4);
    expect(first.delays[0]).toBeLessThanOrEqual(6);
    // Arriving early (a copy sent twice) it waits again, without an attempt.
    const early = await consume([message], receiver, new Date(start + 1_000), 2);
    expect(early.delays).toHaveLength(1);
    expect(receiver.got).toHaveLength(1);
    const second = await consume([message], receiver, new Date(start + 6_000), 3);
    expect(second.delays[0]).toBeGreaterThanOrEqual(270);
    const third = await consume([message], receiver, new Date(start + 6_000 + 331_000), 4);
    expect(third.explicitAcks).toEqual([expect.any(String)]);
    expect(receiver.got.map((g) => g.id)).toEqual(Array(3).fill(webhookId(sub, message.change)));
    expect(new Set(receiver.got.map((g) => g.timestamp)).size).toBe(3);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({ status: "delivered", attempts: 3, lastStatus: 204, lastError: null });
  });

  it("honours Retry-After on 429 and 503, and holds a wait past 12 hours as a fresh message", async () => {
    const { secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response("slow down", { status: 429, headers: { "retry-after": "600" } });
    const now = Date.now();
    const result = await consume([message], receiver, new Date(now));
    expect(result.delays).toEqual([600]);
    receiver.answer = () => new Response("down", { status: 503, headers: { "retry-after": String(30 * 3600) } });
    const later = await consume([message], receiver, new Date(now + 601_000), 2);
    // A day at most; past 12 hours a fresh message of 12 hours, this one acked.
    expect(later.explicitAcks).toHaveLength(1);
    expect(later.delays).toEqual([43_200]);
    expect(requeued.sent.at(-1)?.body).toEqual(message);
    // That message arrives after 12 hours and waits the rest.
    const rest = await consume([message], receiver, new Date(now + 601_000 + 43_200_000), 1);
    expect(rest.delays[0]).toBeGreaterThan(40_000);
    expect(receiver.got).toHaveLength(2);
  });

  it("gives up after ten attempts over about three days: failed in the log, and into the dead-letter queue", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response("no", { status: 500 });
    let at = Date.now();
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      await consume([message], receiver, new Date(at), attempt);
      const [entry] = await listDeliveries(subscriber.db, sub);
      if (attempt < MAX_ATTEMPTS) {
        expect(entry?.status).toBe("pending");
        // Due when the schedule says, ±10%.
        const wait = (Date.parse(entry?.nextAt ?? "") - at) / 1000;
        const scheduled = RETRY_SCHEDULE[attempt - 1] ?? 0;
        expect(Math.abs(wait - scheduled)).toBeLessThanOrEqual(scheduled * 0.1 + 1);
        at = Date.parse(entry?.nextAt ?? "");
      } else expect(entry).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, lastStatus: 500 });
    }
    expect(receiver.got).toHaveLength(MAX_ATTEMPTS);
    expect(dead.sent.map((d) => d.body)).toEqual([message]);
    // Three days or so, and the subscription still enabled (not five days of failures).
    const days = (at - (receiver.got[0]?.timestamp ?? 0) * 1000) / 86_400_000;
    expect(days).toBeGreaterThan(2.5);
    expect(days).toBeLessThan(3.8);
    expect((await findSubscription(subscriber.db, sub.publicId))?.status).toBe("enabled");
    // The dead-letter queue's consumer leaves it failed, with the reason it had.
    const batch = createMessageBatch("lien-webhook-deliveries-dlq", [
      { id: "d-1", timestamp: new Date(), attempts: 1, body: message },
    ]);
    await deadLetters(batch, subscriber);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({ status: "failed", lastError: "answered 500: no" });
  });

  it("spends none of the queue's retries on waits: ten attempts, each after an early arrival, before the dead-letter queue", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response("no", { status: 500 });
    // The deliveries consumer's max_retries (wrangler.toml): a message retried past it goes to the dead-letter queue.
    const maxRetries = 10;
    // The queue's count of deliveries of the message in hand: retry() adds one; a fresh message starts at one.
    let delivered = 1;
    const arrive = async (at: number) => {
      const result = await consume([message], receiver, new Date(at), delivered);
      if (result.retryMessages.length > 0) delivered++;
      else delivered = 1;
      expect(delivered, "the queue would dead-letter the message").toBeLessThanOrEqual(maxRetries + 1);
    };
    let at = Date.now();
    await arrive(at);
    for (let attempt = 2; attempt <= MAX_ATTEMPTS; attempt++) {
      const [entry] = await listDeliveries(subscriber.db, sub);
      const due = Date.parse(entry?.nextAt ?? "");
      // A copy arrives early (sent twice, or a wait past 12 hours), then the one due.
      await arrive(Math.max(at + 1_000, due - 3_000));
      at = due;
      await arrive(at);
    }
    expect(receiver.got).toHaveLength(MAX_ATTEMPTS);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({ status: "failed", attempts: MAX_ATTEMPTS, lastError: "answered 500: no" });
    expect(dead.sent.map((d) => d.body)).toEqual([message]);
  });

  it("redelivers what failed, with the same webhook-id, when the operator asks", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response("gone for now", { status: 500 });
    await consume([message], receiver);
    // Failed for good, as ten failures leave it.
    await subscriber.db.update(webhookDeliveries).set({ status: "failed", nextAt: null });
    const reopened = await reopenFailed(subscriber.db, sub, null, new Date());
    expect(reopened.map((d) => d.change)).toEqual([message.change]);
    receiver.answer = () => new Response("ok");
    const again = reopened.map((d) => ({
      subscription: d.subscription,
      shard: d.shard,
      seq: d.seq,
      change: d.change,
      type: d.type,
    }));
    await consume(again, receiver);
    expect(receiver.got.map((g) => g.id)).toEqual([webhookId(sub, message.change), webhookId(sub, message.change)]);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({ status: "delivered", attempts: 1 });
    // A message delivered already is not sent again.
    await consume(again, receiver);
    expect(receiver.got).toHaveLength(2);
    // Nothing failed is left to reopen.
    expect(await reopenFailed(subscriber.db, sub, null, new Date())).toEqual([]);
  });

  it("disables a subscription whose receiver answers 410 Gone, and sends it nothing more", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response(null, { status: 410 });
    const result = await consume([message], receiver);
    expect(result.explicitAcks).toHaveLength(1);
    const after = await findSubscription(subscriber.db, sub.publicId);
    expect(after).toMatchObject({ status: "disabled", disabledReason: "the receiver answered 410 Gone" });
    await loadDelta([filing({ number: "WH-TWO" })]);
    expect(await dispatched()).toEqual([]);
  });

  it("disables a subscription after five days of nothing but failures", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response("down", { status: 502 });
    const start = Date.now();
    await consume([message], receiver, new Date(start));
    expect((await findSubscription(subscriber.db, sub.publicId))?.failingSince).not.toBeNull();
    // Another change's delivery fails five days later: the streak is long enough.
    await loadDelta([filing({ number: "WH-LATER" })]);
    const [later] = await dispatched();
    await consume([later as DeliveryMessage], receiver, new Date(start + 5 * 86_400_000));
    expect(await findSubscription(subscriber.db, sub.publicId)).toMatchObject({
      status: "disabled",
      disabledReason: "every delivery failed for 5 days",
    });
  });

  it("signs with the old and the new secret for a day after a rotation, then with the new one only", async () => {
    const { sub, secret, message } = await oneMessage();
    const fresh = newSecret();
    const now = Date.now();
    await rotateSecret(
      subscriber.db,
      sub,
      await sealSecret(fresh, env.WEBHOOK_PUBLIC_KEY),
      new Date(now + 86_400_000),
      new Date(now),
    );
    // Both verify it, each on its own.
    const both = new Receiver(secret, fresh);
    await consume([message], both, new Date(now));
    expect(both.got[0]?.signature.split(" ")).toHaveLength(2);
    // A day later, only the new one signs.
    await loadDelta([filing({ number: "WH-AFTER" })]);
    const [next] = await dispatched();
    const newOnly = new Receiver(fresh);
    await consume([next as DeliveryMessage], newOnly, new Date(now + 86_400_000 + 1_000));
    expect(newOnly.got[0]?.signature.split(" ")).toHaveLength(1);
    const got = newOnly.got[0];
    expect(() => new Webhook(secret).verify(got?.text ?? "", got?.headers ?? {})).toThrow(
      "No matching signature found",
    );
  });

  it("counts a redirect as a failure and does not follow it", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = () => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/" } });
    const result = await consume([message], receiver);
    expect(result.delays).toHaveLength(1);
    expect(receiver.got).toHaveLength(1);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({
      status: "pending",
      lastStatus: 302,
      lastError: "redirect (not followed) to http://169.254.169.254/",
    });
  });

  it("reads at most 4 KB of a receiver's answer, however large", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    let pulled = 0;
    receiver.answer = () =>
      new Response(
        new ReadableStream({
          pull(controller) {
            pulled += 1024;
            controller.enqueue(new Uint8Array(1024).fill(0x61));
          },
        }),
        { status: 500 },
      );
    await consume([message], receiver);
    expect(pulled).toBeLessThanOrEqual(8 * 1024);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry?.lastError).toBe(`answered 500: ${"a".repeat(200)}`);
  });

  // The attempt's timeout (15 s deployed) is injected short here: what is tested is that it
  // applies to the answer and to the part of its body read, not the length of a real wait.
  it("gives up on a receiver that does not answer within the attempt's timeout", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    receiver.answer = (_n, request) =>
      new Promise((_resolve, reject) => request.signal.addEventListener("abort", () => reject(request.signal.reason)));
    const started = performance.now();
    await consume([message], receiver, new Date(), 1, { timeoutMs: SHORT_TIMEOUT_MS });
    expect(performance.now() - started).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 5);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({
      status: "pending",
      lastStatus: null,
      lastError: `no answer within ${SHORT_TIMEOUT_MS} ms`,
    });
  });

  it("stops reading an answer whose body is still coming when the attempt's timeout passes", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    // The status and a few bytes at once, then nothing, never ending.
    receiver.answer = () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("busy"));
          },
          pull: () => new Promise(() => {}),
        }),
        { status: 503 },
      );
    const started = performance.now();
    await consume([message], receiver, new Date(), 1, { timeoutMs: SHORT_TIMEOUT_MS });
    expect(performance.now() - started).toBeGreaterThanOrEqual(SHORT_TIMEOUT_MS - 5);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({ status: "pending", lastStatus: 503, lastError: "answered 503: busy" });
  });

  it("refuses at delivery a receiver that is not allowed where it runs", async () => {
    const { sub, secret, message } = await oneMessage({ url: "http://127.0.0.1:9/hooks" });
    const receiver = new Receiver(secret);
    const deployed = { ...subscriber, rules: { localReceivers: false } };
    const batch = createMessageBatch<DeliveryMessage>("lien-webhook-deliveries", [
      { id: "m-1", timestamp: new Date(), attempts: 1, body: message },
    ]);
    await deliver(batch, { ...deployed, send: receiver.send });
    expect(receiver.got).toEqual([]);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry?.lastError).toBe("receiver refused: must be https, not http");
  });

  it("records failed, without sending, a message whose change the feed no longer keeps, and sends its neighbour", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    // Retention took the change before its message came (the next change's seq is another's).
    await loadDelta([filing({ number: "WH-TWO", debtors: [party("Watched Borrower LLC")] })]);
    const [next] = await dispatched();
    const shard = (env as unknown as Record<string, D1Database>)[message.shard]!;
    await shard.prepare("delete from changes where seq = ?").bind(message.seq).run();
    const result = await consume([message, next!], receiver);
    expect(result.explicitAcks).toHaveLength(2);
    expect(receiver.got.map((got) => got.body.data.id)).toEqual([next!.change]);
    const entries = await listDeliveries(subscriber.db, sub);
    expect(entries.find((e) => e.change === message.change)).toMatchObject({
      status: "failed",
      lastError: "not sent: the change is no longer kept",
    });
    expect(entries.find((e) => e.change === next!.change)).toMatchObject({ status: "delivered" });
  });

  it("sends a removed subscription's waiting retry to no one, though the next subscription made takes its id", async () => {
    await loadDelta([filing({ number: "WH-GONE-BASE" })]);
    const removed = await subscribe({ debtors: ["Confidential Borrower LLC"], url: "https://removed.test/hooks" });
    await loadDelta([filing({ number: "WH-GONE", debtors: [party("Confidential Borrower LLC")] })]);
    const messages = await dispatched();
    const down = new Receiver(removed.secret);
    down.answer = () => new Response("down", { status: 500 });
    expect((await consume(messages, down)).delays).toHaveLength(1);
    const retry = requeued.sent.at(-1)?.body as DeliveryMessage;
    await removeSubscription(subscriber.db, removed.sub);
    const next = await subscribe({ url: "https://next.test/hooks" });
    expect(next.sub.id).toBe(removed.sub.id);
    const receiver = new Receiver(next.secret);
    await consume([retry], receiver, new Date(Date.now() + 3_600_000));
    expect(receiver.got).toEqual([]);
    expect(await listDeliveries(subscriber.db, next.sub)).toEqual([]);
    // So is one sent before messages named their subscription's public id.
    const { publicId: _, ...unnamed } = retry;
    await consume([unnamed], receiver, new Date(Date.now() + 3_600_000));
    expect(receiver.got).toEqual([]);
  });

  it("sends a subscription enabled again the changes recorded from then on, not those while it was disabled", async () => {
    await loadDelta([filing({ number: "WH-BASE" })]);
    const { sub } = await subscribe({});
    await setStatus(subscriber.db, sub.id, false, "by the operator", new Date());
    await loadDelta([filing({ number: "WH-WHILE-OFF" })]);
    // Enabled before the dispatcher ran (its nudge not handled yet): as `npm run webhooks -- enable` does.
    await setStatus(subscriber.db, sub.id, true, null, new Date(), await newestChanges(shardDatabases.databases));
    expect(await dispatched()).toEqual([]);
    await loadDelta([filing({ number: "WH-AFTER-ON" })]);
    const sent = await dispatched();
    expect(sent.map((m) => m.subscription)).toEqual([sub.id]);
  });

  it("records failed, without sending, a message of a subscription disabled or whose key was revoked since", async () => {
    const { sub, secret, message } = await oneMessage();
    const receiver = new Receiver(secret);
    await env.API_KEYS.put(await hashKey(TEST_KEY), "", {
      metadata: { label: "test active", created: daysAgo(1), status: "revoked" },
    });
    await consume([message], receiver);
    expect(receiver.got).toEqual([]);
    const [entry] = await listDeliveries(subscriber.db, sub);
    expect(entry).toMatchObject({
      status: "failed",
      lastError: "not sent: the subscription's API key is revoked or expired",
    });
    await registerKeys();
    await setStatus(subscriber.db, sub.id, false, null, new Date());
    await loadDelta([filing({ number: "WH-OFF" })]);
    // Nothing is dispatched to a disabled subscription; a message sent before is not delivered.
    expect(await dispatched()).toEqual([]);
    await subscriber.db.update(webhookDeliveries).set({ status: "pending" });
    await consume([message], receiver);
    expect(receiver.got).toEqual([]);
    const [disabled] = await listDeliveries(subscriber.db, sub);
    expect(disabled?.lastError).toBe("not sent: the subscription is disabled (by the operator)");
  });
});
