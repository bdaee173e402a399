/**
 * Worker entry point: the read-only HTTP API (the Hono app, src/app.ts);
 * the consumer of the feed-events queue and the LoadFeed Workflow
 * (src/platform/), which load feed files put in the feeds bucket; and the
 * daily Cron Trigger (wrangler.toml `[triggers]`), which starts the pull
 * of each office register the environment pulls (src/platform/pullSource.ts)
 * and runs the change feed's daily job on every shard (src/changes/daily.ts);
 * and the webhook queues' consumers (src/webhooks/worker.ts).
 */
import { drizzle } from "drizzle-orm/d1";
import { createApp } from "./app.ts";
import { retentionDays, runDaily } from "./changes/daily.ts";
import { shardsOf } from "./db/shards.ts";
import { logLine } from "./log.ts";
import { feedEvents } from "./platform/feedEvents.ts";
import { startDailyPulls } from "./platform/pullSource.ts";
import { isWebhookQueue, webhookQueue, webhooksDaily } from "./webhooks/worker.ts";

export { LoadFeed } from "./platform/loadFeed.ts";
export { PullSource } from "./platform/pullSource.ts";

const app = createApp();

/** The daily job on every shard, one after another; a shard that fails is logged and the others still run. */
async function daily(env: Env, now: Date): Promise<void> {
  const retention = retentionDays(env.CHANGE_RETENTION_DAYS);
  let failed = false;
  for (const [shard, d1] of shardsOf(env).databases) {
    try {
      const done = await runDaily(drizzle(d1, { casing: "snake_case" }), now, retention);
      logLine("info", { event: "daily_changes", shard, ...done });
    } catch (err) {
      failed = true;
      // The kind of failure only: D1 messages can quote SQL.
      logLine("error", { event: "daily_changes_failed", shard, error: (err as Error).name });
    }
  }
  // A failed run shows as failed in the Cron Trigger's history; the next run catches up.
  if (failed) throw new Error("the daily change-feed job failed on at least one shard");
}

export default {
  fetch: app.fetch,
  queue: (batch, env) => (isWebhookQueue(batch.queue) ? webhookQueue(batch, env) : feedEvents(batch, env)),
  async scheduled(controller, env, _ctx) {
    const now = new Date(controller.scheduledTime);
    // Each failure to start a pull is logged; none stops the others or the daily job.
    await startDailyPulls(env, now);
    try {
      await daily(env, now);
    } finally {
      // The lapses just recorded, and any change a lost nudge left behind, go to webhooks.
      await webhooksDaily(env, now);
    }
  },
} satisfies ExportedHandler<Env>;
