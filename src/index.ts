/**
 * Worker entry point: the read-only HTTP API (the Hono app), the consumer of
 * the feed-events queue, and the LoadFeed Workflow (src/platform/), which
 * loads feed files put in the feeds bucket.
 */
import { createApp } from "./app.ts";
import { feedEvents } from "./platform/feedEvents.ts";

export { LoadFeed } from "./platform/loadFeed.ts";

const app = createApp();

export default {
  fetch: app.fetch,
  queue: feedEvents,
} satisfies ExportedHandler<Env>;
