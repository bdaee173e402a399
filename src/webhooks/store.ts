/**
 * Webhook subscriptions, their watchlists, the dispatch positions and the
 * delivery log, as stored in the default shard (schema.ts; with feed_loads,
 * the other operator records): what the CLI (scripts/webhooks.ts) writes
 * and the Worker's dispatcher and consumer read and update.
 */
import { and, desc, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Db } from "../db/database.ts";
import {
  changes,
  WATCH_KINDS,
  webhookDeliveries,
  webhookNames,
  webhookPositions,
  webhookSubscriptions,
} from "../db/schema.ts";
import type { ChangeType } from "../domain/kinds.ts";
import { isoSeconds } from "../domain/time.ts";
import type { WatchKind, WatchRow } from "./watchlists.ts";

export type Subscription = typeof webhookSubscriptions.$inferSelect;
export type Delivery = typeof webhookDeliveries.$inferSelect;

/** Watchlist rows inserted per statement (one JSON parameter each). */
const NAMES_PER_STATEMENT = 2_000;

/** A new subscription's public id: `wh_` and 20 random characters (about 100 bits). */
export function newSubscriptionId(): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  const bytes = crypto.getRandomValues(new Uint8Array(20));
  return `wh_${[...bytes].map((b) => alphabet[b % 32]).join("")}`;
}

/** Statements inserting `rows` for the subscription with public id `publicId`. */
function nameStatements(db: Db, publicId: string, rows: readonly WatchRow[]) {
  const owner = sql`(select ${webhookSubscriptions.id} from ${webhookSubscriptions} where ${webhookSubscriptions.publicId} = ${publicId})`;
  const out = [];
  for (let i = 0; i < rows.length; i += NAMES_PER_STATEMENT) {
    const part = rows.slice(i, i + NAMES_PER_STATEMENT).map((r) => [WATCH_KINDS.indexOf(r.kind), r.name, r.key]);
    out.push(
      db
        .insert(webhookNames)
        .select(
          sql`select null, ${owner}, json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]') from json_each(${JSON.stringify(part)})`,
        ),
    );
  }
  return out;
}

/** Each shard's newest change (0: none yet), read from the shards' own databases. */
export async function newestChanges(shards: ReadonlyMap<string, Db>): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [shard, db] of shards) {
    const [top] = await db.select({ seq: sql<number | null>`max(${changes.seq})` }).from(changes);
    out[shard] = Number(top?.seq ?? 0);
  }
  return out;
}

export interface NewSubscription {
  publicId: string;
  keyDigest: string;
  url: string;
  types: ChangeType[] | null;
  states: string[] | null;
  watch: WatchRow[];
  sealedSecret: string;
  /** Each shard's newest change now: the subscription gets the changes after these. */
  starts: Record<string, number>;
  now: Date;
}

/**
 * Stores a subscription with its watchlist, and a dispatch position for
 * every shard that has none yet (at its newest change), in one batch: all
 * of it or nothing.
 */
export async function createSubscription(db: Db, s: NewSubscription): Promise<void> {
  const at = isoSeconds(s.now);
  const count = (kind: WatchKind) => new Set(s.watch.filter((r) => r.kind === kind).map((r) => r.name)).size;
  await db.batch([
    db.insert(webhookSubscriptions).values({
      publicId: s.publicId,
      keyDigest: s.keyDigest,
      url: s.url,
      types: s.types === null ? null : s.types.join("|"),
      states: s.states === null ? null : s.states.join("|"),
      debtors: count("debtor"),
      securedParties: count("secured_party"),
      secret: s.sealedSecret,
      status: "enabled",
      starts: JSON.stringify(s.starts),
      createdAt: at,
      updatedAt: at,
    }),
    ...nameStatements(db, s.publicId, s.watch),
    ...Object.entries(s.starts).map(([shard, seq]) =>
      db.insert(webhookPositions).values({ shard, seq, updatedAt: at }).onConflictDoNothing(),
    ),
  ]);
}

export async function findSubscription(db: Db, publicId: string): Promise<Subscription | undefined> {
  const [found] = await db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.publicId, publicId));
  return found;
}

export function listSubscriptions(db: Db): Promise<Subscription[]> {
  return db.select().from(webhookSubscriptions).orderBy(webhookSubscriptions.createdAt, webhookSubscriptions.id);
}

/** Replaces the subscription's lists of the kinds in `rows` (a kind absent from `kinds` is kept). */
export async function replaceWatchlist(
  db: Db,
  sub: Subscription,
  kinds: WatchKind[],
  rows: WatchRow[],
  now: Date,
): Promise<void> {
  const count = (kind: WatchKind) => new Set(rows.filter((r) => r.kind === kind).map((r) => r.name)).size;
  await db.batch([
    db.delete(webhookNames).where(and(eq(webhookNames.subscription, sub.id), inArray(webhookNames.kind, kinds))),
    ...nameStatements(db, sub.publicId, rows),
    db
      .update(webhookSubscriptions)
      .set({
        ...(kinds.includes("debtor") ? { debtors: count("debtor") } : {}),
        ...(kinds.includes("secured_party") ? { securedParties: count("secured_party") } : {}),
        updatedAt: isoSeconds(now),
      })
      .where(eq(webhookSubscriptions.id, sub.id)),
  ]);
}

/** The names of a subscription's watchlist of `kind`, in the order given. */
export async function watchedNames(db: Db, sub: Subscription, kind: WatchKind): Promise<string[]> {
  const rows = await db
    .select({ name: webhookNames.name })
    .from(webhookNames)
    .where(and(eq(webhookNames.subscription, sub.id), eq(webhookNames.kind, kind)))
    .groupBy(webhookNames.name)
    .orderBy(sql`min(${webhookNames.id})`);
  return rows.map((r) => r.name);
}

/** A new secret, the current one signing too until `until`. */
export async function rotateSecret(db: Db, sub: Subscription, sealed: string, until: Date, now: Date) {
  await db
    .update(webhookSubscriptions)
    .set({ secret: sealed, previousSecret: sub.secret, previousUntil: isoSeconds(until), updatedAt: isoSeconds(now) })
    .where(eq(webhookSubscriptions.id, sub.id));
}

/**
 * Enables (clearing the failure streak) or disables a subscription, saying
 * why. Enabled, it starts at `newest` (each shard's newest change, as
 * newestChanges reads it): it is sent changes recorded from then on, not
 * those recorded while it was disabled, which the dispatcher has not
 * matched yet when the enabling comes before it runs.
 */
export async function setStatus(
  db: Db,
  id: number,
  enabled: boolean,
  reason: string | null,
  now: Date,
  newest?: Record<string, number>,
) {
  const starts = newest
    ? sql`(select json_group_object(key, max(value, coalesce(${webhookSubscriptions.starts} ->> ('$."' || key || '"'), 0))) from json_each(${JSON.stringify(newest)}))`
    : undefined;
  await db
    .update(webhookSubscriptions)
    .set({
      status: enabled ? "enabled" : "disabled",
      disabledReason: enabled ? null : reason,
      ...(enabled ? { failingSince: null } : {}),
      ...(enabled && starts ? { starts } : {}),
      updatedAt: isoSeconds(now),
    })
    .where(eq(webhookSubscriptions.id, id));
}

/** Deletes a subscription, its watchlist and its delivery log. */
export async function removeSubscription(db: Db, sub: Subscription): Promise<void> {
  await db.batch([
    db.delete(webhookNames).where(eq(webhookNames.subscription, sub.id)),
    db.delete(webhookDeliveries).where(eq(webhookDeliveries.subscription, sub.id)),
    db.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, sub.id)),
  ]);
}

/** The subscription's deliveries, newest first: all, or the failed ones. */
export function listDeliveries(db: Db, sub: Subscription, options: { failed?: boolean; limit?: number } = {}) {
  return db
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.subscription, sub.id),
        options.failed ? sql`${webhookDeliveries.status} = 'failed'` : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(options.limit ?? 100);
}

/**
 * The failed deliveries of a subscription first tried at or after `since`,
 * set pending again with no attempt made (their next try is the first of a
 * new schedule), and returned: the caller sends their messages again.
 */
export async function reopenFailed(db: Db, sub: Subscription, since: Date | null, now: Date): Promise<Delivery[]> {
  const where = and(
    eq(webhookDeliveries.subscription, sub.id),
    sql`${webhookDeliveries.status} = 'failed'`,
    since ? gte(webhookDeliveries.createdAt, isoSeconds(since)) : undefined,
  );
  return db
    .update(webhookDeliveries)
    .set({ status: "pending", attempts: 0, nextAt: null, updatedAt: isoSeconds(now) })
    .where(where)
    .returning();
}

/** Deletes delivery log rows first tried before `before` (the change feed's retention). */
export async function purgeDeliveries(db: Db, before: Date): Promise<void> {
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.createdAt, isoSeconds(before)));
}
