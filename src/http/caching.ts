/**
 * HTTP caching of successful lookups.
 *
 * - ETag: a digest of the body with its per-response metadata (request id
 *   and timestamp) left empty, so the same data gives the same tag; an
 *   `If-None-Match` that matches it (RFC 9110: `*`, or a list of tags
 *   compared weakly) gets a 304 and no body. The body is serialized once:
 *   that unstamped text is hashed and stored, and the request's id and time
 *   are written into it for the response (`stamp`).
 * - Edge cache: 200 responses are kept in the Workers Cache API for
 *   CACHE_SECONDS under a key made of the caller's key digest (or "public")
 *   and the normalized URL, so one client never receives a response made
 *   for another key or another request. An answer is stored the second time
 *   this isolate reads it from D1 within CACHE_SECONDS, not the first: most
 *   lookups are asked once, and writing each of those cost more than the
 *   rest of the miss (docs/api/requests.md). For the same reason the cache is
 *   looked in only for a lookup this isolate answered within CACHE_SECONDS:
 *   a first request (almost never stored by another isolate either) costs
 *   no cache read. A repeated lookup is a miss twice, then a hit, as an
 *   isolate sees it. It runs after authentication: a
 *   refused key never reaches the cache. A hit is re-stamped with this
 *   request's id and time before it is sent, and says
 *   `Server-Timing: cache;dur=…;desc="hit"` (a miss carries the D1 metric).
 * - Bookmarks: an entry keeps the D1 bookmarks of the states it was read
 *   from (one per shard it touched), and a hit sends them on, merged with
 *   any newer ones the client sent for other shards. A request carrying
 *   x-d1-bookmark is served from the cache only if the entry's bookmark is
 *   at least as new on every shard the entry read; else it reads D1 from
 *   the client's bookmarks, and that answer is not stored (its bookmarks
 *   came partly from the client). The ETag stays a digest of the data alone.
 * - Cache-Control: `private, max-age=60` for keyed lookups and
 *   `public, max-age=60` for the public one. Data loads are batch jobs, but
 *   the "recent" windows move continuously; a minute bounds how far an answer
 *   may trail the clock.
 */
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { setMetric } from "hono/timing";
import { shardsOf } from "../db/shards.ts";
import { isoSeconds } from "../domain/time.ts";
import {
  BOOKMARK_HEADER,
  formatBookmarks,
  isAtLeast,
  knownShards,
  newest,
  parseBookmarks,
  requestedBookmarks,
} from "./bookmark.ts";
import type { AppEnv } from "./context.ts";

export const CACHE_SECONDS = 60;
/** The request headers every keyed answer depends on: whose it is, and how fresh a state it must be read from. */
export const ANSWER_VARY = `x-api-key, ${BOOKMARK_HEADER}`;
interface Body {
  response_metadata: Record<string, unknown>;
}

const encoder = new TextEncoder();

async function digest(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
  let hex = "";
  for (let i = 0; i < 16; i++) hex += (bytes[i] ?? 0).toString(16).padStart(2, "0");
  return hex;
}

/**
 * The body as JSON with its request id and timestamp empty (`""`): what its
 * ETag hashes and the edge cache keeps. The two fields keep their places.
 */
function unstamped(body: Body): string {
  const metadata = body.response_metadata;
  const { request_id, timestamp } = metadata;
  if (request_id === undefined || timestamp === undefined) return JSON.stringify(body);
  metadata.request_id = "";
  metadata.timestamp = "";
  try {
    return JSON.stringify(body);
  } finally {
    metadata.request_id = request_id;
    metadata.timestamp = timestamp;
  }
}

/**
 * An unstamped body's text with the request id and timestamp written in.
 * They are looked for after the last `"response_metadata":{`, where only the
 * metadata's own keys can follow (a string value holding those characters
 * would show its quotes escaped).
 */
function stamp(text: string, requestId: string, timestamp: string): string {
  const metadata = text.lastIndexOf('"response_metadata":{');
  if (metadata < 0) return text;
  const tail = text
    .slice(metadata)
    .replace('"request_id":""', `"request_id":${JSON.stringify(requestId)}`)
    .replace('"timestamp":""', `"timestamp":${JSON.stringify(timestamp)}`);
  return text.slice(0, metadata) + tail;
}

/** The tag of an unstamped body's text. */
async function etagOf(unstampedText: string): Promise<string> {
  return `W/"${await digest(unstampedText)}"`;
}

/**
 * The entry's URL: the caller (key digest or "public"), the path without
 * trailing slashes, and the query's pairs sorted as sent, so parameter order
 * does not split entries. Pairs are compared as raw text: two spellings of
 * one value are two entries, never one entry for two questions (and a
 * repeated parameter is refused before anything is stored).
 */
function cacheKey(c: Context<AppEnv>): string {
  const url = c.req.url;
  const query = url.indexOf("?");
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  const path = url.slice(pathStart, query < 0 ? undefined : query).replace(/\/+$/, "") || "/";
  const pairs =
    query < 0
      ? []
      : url
          .slice(query + 1)
          .split("&")
          .filter(Boolean)
          .sort();
  return `https://lookup-cache.internal/${c.get("keyDigest") ?? "public"}${path}?${pairs.join("&")}`;
}

/** One member of an entity-tag list: optional `W/`, a quoted opaque tag, then a comma or the end (RFC 9110 §8.8.3). */
const LIST_MEMBER = /[ \t]*(?:W\/)?("[\x21\x23-\x7e\x80-\xff]*")[ \t]*(?:,|$)/y;

/**
 * Whether an If-None-Match field matches the current representation's tag,
 * per RFC 9110 §13.1.2: `*` matches any; otherwise a comma-separated list of
 * entity tags, compared weakly (the opaque tags are equal, with or without
 * `W/` on either side). A malformed member matches nothing.
 */
export function ifNoneMatchMatches(field: string | undefined, etag: string): boolean {
  if (field === undefined) return false;
  if (field.trim() === "*") return true;
  const opaque = etag.replace(/^W\//, "");
  let at = 0;
  while (at < field.length) {
    LIST_MEMBER.lastIndex = at;
    const member = LIST_MEMBER.exec(field);
    if (member) {
      if (member[1] === opaque) return true;
      at = LIST_MEMBER.lastIndex;
    } else {
      // Skip the malformed member.
      const comma = field.indexOf(",", at);
      if (comma < 0) break;
      at = comma + 1;
    }
  }
  return false;
}

/** Headers that describe a body. */
const CONTENT_HEADERS = ["content-type", "content-length", "content-encoding", "content-language", "content-range"];

/** Takes off the headers that describe a body, for an answer that has none. */
export function dropContentHeaders(headers: Headers): void {
  for (const name of CONTENT_HEADERS) headers.delete(name);
}

/**
 * Answers 304 with the headers a 200 would carry for caching and none that
 * describe a body: RFC 9110 §15.4.5, and a validating proxy would otherwise
 * try to parse an empty JSON body. On a miss the route's response (with its
 * Content-Type) is already made, so its headers are copied without those.
 */
export function notModified(c: Context): void {
  const headers = new Headers(c.res.headers);
  dropContentHeaders(headers);
  // Unset first, so Hono does not copy the old response's headers back in.
  c.res = undefined;
  c.res = new Response(null, { status: 304, headers });
}

async function store(c: Context<AppEnv>, key: string, text: string, etag: string): Promise<void> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    "Cache-Control": `max-age=${CACHE_SECONDS}`,
    ETag: etag,
  };
  const bookmark = c.res.headers.get(BOOKMARK_HEADER);
  if (bookmark) headers[BOOKMARK_HEADER] = bookmark;
  const storing = caches.default.put(key, new Response(text, { headers })).catch(() => undefined);
  // After the response when the runtime allows (always in production).
  try {
    c.executionCtx.waitUntil(storing);
  } catch {
    await storing;
  }
}

/** Most cache keys remembered (about 150 bytes each). */
const RECENT_MAX = 10_000;
/**
 * Cache keys this isolate answered from D1 within CACHE_SECONDS, with when
 * that stops counting, in two generations of up to half of RECENT_MAX: a
 * key goes into the current one, and when it is full it becomes the
 * previous one and the one before is forgotten whole. A single map that
 * dropped its oldest key on each new one made every admission step over
 * the slots its deletions left at the map's head (about 4 µs a request at
 * 10,000 keys in Node, 0.3 µs this way).
 */
let currentKeys = new Map<string, number>();
let previousKeys = new Map<string, number>();

/** Whether this isolate answered `key` within CACHE_SECONDS: only then is the edge cache worth a look. */
function readRecently(key: string, now: number): boolean {
  return (currentKeys.get(key) ?? previousKeys.get(key) ?? 0) > now;
}

/**
 * Records that `key` was just answered from D1; whether to store the answer:
 * yes if it had been answered within CACHE_SECONDS already (a lookup that is
 * asked again), not the first time.
 */
function admit(key: string, now: number): boolean {
  const again = readRecently(key, now);
  if (currentKeys.size >= RECENT_MAX / 2 && !currentKeys.has(key)) {
    previousKeys = currentKeys;
    currentKeys = new Map();
  }
  currentKeys.set(key, now + CACHE_SECONDS * 1000);
  return again;
}

/** The isolate's memory of answered keys, for tests: admit, whether remembered, how many held. */
export const answeredKeys = {
  admit,
  remembered: readRecently,
  size: () => currentKeys.size + previousKeys.size,
  max: RECENT_MAX,
};

/** The layout's shards (a layout that does not fit fails later, at the first D1 read). */
function layoutShards(c: Context<AppEnv>): readonly string[] {
  try {
    return shardsOf(c.env).layout.shards;
  } catch {
    return [];
  }
}

/**
 * The route's `c.json`, serializing once: the body's unstamped text (kept
 * for the tag and the stored entry) with the request's id and time written
 * in, where Hono's own would serialize the body and this middleware would
 * serialize it again for its tag.
 */
function keepAnswer(c: Context<AppEnv>): { text?: string } {
  const answered: { text?: string } = {};
  const body = c.body as (data: string, ...rest: unknown[]) => Response;
  c.json = ((object: Body, ...rest: unknown[]) => {
    const metadata = object.response_metadata;
    const text = unstamped(object);
    answered.text = text;
    c.header("Content-Type", "application/json");
    return body(stamp(text, String(metadata.request_id ?? ""), String(metadata.timestamp ?? "")), ...rest);
  }) as typeof c.json;
  return answered;
}

/**
 * The caching of a lookup: the ETag and 304 contract always; with `edge`,
 * the edge cache too. A feed that must show what was just loaded (the
 * change feed) revalidates only: its clients poll with If-None-Match.
 */
const caching = (edge: boolean) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const cache = caches.default;
    const key = cacheKey(c);
    const visibility = c.get("keyDigest") ? "private" : "public";
    // Checked first: a malformed bookmark is a 400, cached entry or not.
    const wanted = requestedBookmarks(c);

    /** The answer's unstamped text, and its tag. */
    let text: string;
    let etag: string;
    let hit = false;
    const started = Date.now();
    // A lookup the isolate has not answered within the minute is not looked
    // up: it is stored only when asked again, so it is almost never there.
    const cached = edge && readRecently(key, started) ? await cache.match(key).catch(() => undefined) : undefined;
    // An entry older than the client's bookmark would take the client back in time.
    const stored = cached?.headers.get(BOOKMARK_HEADER);
    const entryBookmarks = stored ? parseBookmarks(stored) : undefined;
    if (cached && (!wanted || isAtLeast(entryBookmarks, wanted))) {
      // Stored unstamped with its tag, so a hit neither parses nor hashes it.
      text = await cached.text();
      etag = cached.headers.get("ETag") ?? (await etagOf(text));
      if (entryBookmarks) {
        // With the client's newer bookmarks of other shards, as a D1 read sends them.
        const shards = layoutShards(c);
        const bookmark = wanted
          ? formatBookmarks(newest(entryBookmarks, knownShards(wanted, shards)), shards.length === 1)
          : stored;
        if (bookmark) c.header(BOOKMARK_HEADER, bookmark);
      }
      hit = true;
      setMetric(c, "cache", Date.now() - started, "hit", 0);
    } else {
      const answered = keepAnswer(c);
      await next();
      if (c.res.status !== 200) return;
      text = answered.text ?? unstamped(await c.res.clone().json<Body>());
      etag = await etagOf(text);
      // Only answers read without a client's bookmark are stored: a session
      // reports the bookmark it was opened at when no newer one comes back, so
      // a made-up (future) bookmark must not label an entry others are served.
      if (edge && !wanted && admit(key, started)) await store(c, key, text, etag);
    }

    // On a miss the route's response is already made: its headers are set in
    // place (c.header would copy the whole response for each one).
    const headers = hit ? undefined : c.res.headers;
    const set = (name: string, value: string) => (headers ? headers.set(name, value) : c.header(name, value));
    set("ETag", etag);
    set("Cache-Control", edge ? `${visibility}, max-age=${CACHE_SECONDS}` : `${visibility}, no-cache`);
    set("Vary", ANSWER_VARY);
    set("x-cache", hit ? "hit" : "miss");
    if (ifNoneMatchMatches(c.req.header("if-none-match"), etag)) {
      notModified(c);
      return;
    }
    if (hit) {
      c.header("Content-Type", "application/json");
      c.res = c.body(stamp(text, c.get("requestId"), isoSeconds(c.get("now"))), 200);
    }
  });

/** Lookups: ETag, 304 and the edge cache. */
export const httpCache = caching(true);

/** The change feed: ETag and 304, always read fresh. */
export const revalidateOnly = caching(false);
