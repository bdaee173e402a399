/**
 * The consumer of the feed-events queue: each message says a file was put
 * in the feeds bucket, as R2's event notification sends it in production
 * and the import CLI sends it in local development (where R2 sends none).
 * A file under incoming/ in a known format starts its load: the LoadFeed
 * instance of that file version. A message delivered again, or the same
 * bytes put again, finds that instance and starts nothing. A message that
 * cannot start its load is retried, then goes to the dead-letter queue.
 */
import { z } from "zod";
import { logLine } from "../log.ts";
import { etag, isFeedKey, loadId } from "./feedFiles.ts";
import { release } from "./instances.ts";
import type { LoadParams } from "./loadFeed.ts";

/** The part of an R2 event notification's body the consumer reads. */
const feedEvent = z.object({
  action: z.string(),
  object: z.object({ key: z.string(), size: z.number().int().nonnegative().optional(), eTag: etag.optional() }),
});

/** Actions that leave a new version of an object (R2's object-create events). */
const CREATED = new Set(["PutObject", "CopyObject", "CompleteMultipartUpload"]);

/**
 * The LoadFeed instance the event starts or finds, or null when the event
 * is not a feed file put under incoming/ (ignored).
 */
async function startLoad(env: Env, body: unknown): Promise<string | null> {
  const parsed = feedEvent.safeParse(body);
  if (!parsed.success || !CREATED.has(parsed.data.action) || !isFeedKey(parsed.data.object.key)) return null;
  const { key } = parsed.data.object;
  // Notifications carry the size and etag; a message without them reads the object's.
  let { size, eTag } = parsed.data.object;
  if (size === undefined || eTag === undefined) {
    const head = await env.FEEDS.head(key);
    if (!head) return null;
    size = head.size;
    eTag = head.etag;
  }
  const id = await loadId(key, eTag);
  const params: LoadParams = { key, etag: eTag, size };
  try {
    release(await env.LOAD_FEED.create({ id, params }));
  } catch (err) {
    // The instance of this file version exists already: a message
    // delivered again, or the same bytes put again.
    const existing = await env.LOAD_FEED.get(id).catch(() => null);
    if (!existing) throw err;
    release(existing);
  }
  return id;
}

export async function feedEvents(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  for (const message of batch.messages) {
    try {
      const id = await startLoad(env, message.body);
      if (id) logLine("info", { event: "feed_load_started", load: id, message: message.id });
      else logLine("warn", { event: "feed_event_ignored", message: message.id, body: message.body });
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
