/**
 * The consumer of the feed-events queue: each message says a file was put
 * in the feeds bucket, as R2's event notification sends it in production
 * and the import CLI sends it in local development (where R2 sends none).
 * A file under incoming/ in a known format starts its load: the LoadFeed
 * instance of that put (feedFiles.ts, loadId: key, etag and upload time). A
 * message delivered again finds that instance and starts nothing; a new
 * put, even of the same bytes, is a new load. A message that cannot start
 * its load is retried, then goes to the dead-letter queue.
 */
import { z } from "zod";
import { logLine } from "../log.ts";
import { etag, isFeedKey, loadId } from "./feedFiles.ts";
import { release } from "./instances.ts";
import type { LoadParams } from "./loadFeed.ts";

/** The part of an R2 event notification's body the consumer reads. */
const feedEvent = z.object({
  action: z.string(),
  object: z.object({ key: z.string(), eTag: etag.optional() }),
});

/** Actions that leave a new version of an object (R2's object-create events). */
const CREATED = new Set(["PutObject", "CopyObject", "CompleteMultipartUpload"]);

/** What a message did: started or found a load, or nothing (and why). */
type Outcome = { load: string; found: boolean } | { ignored: string };

/**
 * The LoadFeed instance the event starts or finds, or why it starts none:
 * not a feed file put under incoming/, or a version no longer in the bucket.
 */
async function startLoad(env: Env, body: unknown): Promise<Outcome> {
  const parsed = feedEvent.safeParse(body);
  if (!parsed.success || !CREATED.has(parsed.data.action) || !isFeedKey(parsed.data.object.key)) {
    return { ignored: "not a feed file put under incoming/" };
  }
  const { key, eTag } = parsed.data.object;
  // The object's upload time names the put (loadId): the notification's
  // eventTime is not it, and the CLI, which may start the same load itself,
  // knows only the object.
  const head = await env.FEEDS.head(key);
  if (!head) return { ignored: "no longer in the bucket" };
  // Replaced since: that put's own notification starts the newer version's load.
  if (eTag !== undefined && eTag !== head.etag) return { ignored: "replaced since" };
  const id = await loadId(key, head.etag, head.uploaded);
  const params: LoadParams = { key, etag: head.etag, size: head.size };
  try {
    release(await env.LOAD_FEED.create({ id, params }));
    return { load: id, found: false };
  } catch (err) {
    // The instance of this put exists already: a message delivered again.
    const existing = await env.LOAD_FEED.get(id).catch(() => null);
    if (!existing) throw err;
    release(existing);
    return { load: id, found: true };
  }
}

export async function feedEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      const outcome = await startLoad(env, message.body);
      if ("load" in outcome) {
        const event = outcome.found ? "feed_load_found" : "feed_load_started";
        logLine("info", { event, load: outcome.load, message: message.id });
      } else {
        logLine("warn", { event: "feed_event_ignored", why: outcome.ignored, message: message.id, body: message.body });
      }
      message.ack();
    } catch (err) {
      logLine("error", {
        event: "feed_event_failed",
        message: message.id,
        attempts: message.attempts,
        error: err instanceof Error ? err.message : String(err),
      });
      message.retry();
    }
  }
}
