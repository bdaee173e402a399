/**
 * The webhook queues from Node (src/webhooks/): the dispatch queue, which
 * a load outside the Worker nudges after committing changes (the import
 * CLI's in-process load; `npm run webhooks -- nudge`), and the deliveries
 * queue, which `npm run webhooks -- redeliver` sends messages to.
 *
 * Through wrangler's getPlatformProxy, as scripts/platformLoad.ts reaches
 * the feed-events queue: locally the messages go, through wrangler's dev
 * registry, to the consumer of the `npm start` session (which must be
 * running: its port is checked first); remotely (--remote) to the
 * environment's queues, as remote bindings (wrangler login or an API
 * token).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Target } from "./feedDb.ts";
import { CONFIG, wranglerConfig } from "./shardConfig.ts";

export interface WebhookQueues {
  dispatch: Queue;
  deliveries: Queue;
  dispose(): Promise<void>;
}

/** The environment's webhook queue names (the top level: local). */
async function queueNames(env: string | undefined) {
  const config = await wranglerConfig(env);
  const producers = config.queues.producers ?? [];
  const named = (binding: string) => {
    const queue = producers.find((p) => p.binding === binding)?.queue;
    if (!queue) throw new Error(`${CONFIG}${env ? ` [env.${env}]` : ""} has no queue producer ${binding}`);
    return queue;
  };
  return {
    name: config.name ?? "worker",
    compatibilityDate: config.compatibility_date,
    dispatch: named("WEBHOOK_DISPATCH"),
    deliveries: named("WEBHOOK_DELIVERIES"),
  };
}

/** Whether a local session answers on `port`. */
async function sessionUp(port: number): Promise<boolean> {
  const res = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2_000) }).catch(() => null);
  await res?.body?.cancel();
  return res !== null;
}

/**
 * The webhook queues of `target`: remote, or the local session's on `port`
 * (null when none answers there).
 */
export async function openWebhookQueues(target: Target, port: number): Promise<WebhookQueues | null> {
  const env = target.remote ? (target.env ?? "production") : undefined;
  if (!env && !(await sessionUp(port))) return null;
  const names = await queueNames(env);
  const dir = resolve(".wrangler/tmp/webhook-queues");
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, `${env ?? "local"}.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      // Not the Worker's name: the proxy must not stand in for the session in the dev registry.
      name: "lien-webhooks-cli",
      compatibility_date: names.compatibilityDate,
      queues: {
        producers: [
          { binding: "WEBHOOK_DISPATCH", queue: names.dispatch, ...(env ? { remote: true } : {}) },
          { binding: "WEBHOOK_DELIVERIES", queue: names.deliveries, ...(env ? { remote: true } : {}) },
        ],
      },
    }),
  );
  const { getPlatformProxy } = await import("wrangler");
  const proxy = await getPlatformProxy<{ WEBHOOK_DISPATCH: Queue; WEBHOOK_DELIVERIES: Queue }>({
    configPath,
    ...(env ? { remoteBindings: true } : { persist: { path: join(target.persistTo ?? ".wrangler/state", "v3") } }),
  });
  return {
    dispatch: proxy.env.WEBHOOK_DISPATCH,
    deliveries: proxy.env.WEBHOOK_DELIVERIES,
    dispose: () => proxy.dispose(),
  };
}

/**
 * After a load that committed changes outside the Worker: nudges the
 * dispatcher, so the changes are sent to webhooks now rather than at the
 * next nudge. Returns what happened, for the command to print.
 */
export async function nudgeWebhooks(target: Target, port: number, from: string): Promise<string> {
  const queues = await openWebhookQueues(target, port);
  if (!queues) {
    return `no local session on port ${port}: webhooks for these changes are sent at the next nudge (npm start, then npm run webhooks -- nudge)`;
  }
  try {
    await queues.dispatch.send({ from }, { contentType: "json" });
    return "webhooks: the dispatcher was nudged";
  } finally {
    await queues.dispose();
  }
}
