/**
 * D1 read replication through the Sessions API: bookmarks in and out of the
 * x-d1-bookmark header, one per shard read, and the edge cache never
 * answering from a state older than the client's bookmark on any shard.
 * Local D1 has no replicas, but it runs the same session calls and issues
 * real bookmarks, which advance with every write. The suite runs with one
 * shard (plain D1 bookmarks, as before sharding) and with four
 * (SHARD=BOOKMARK lists).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { DEFAULT_SHARD, MAX_SHARDS, partsOf } from "../src/db/shards.ts";
import { isAtLeast, parseBookmarks } from "../src/http/bookmark.ts";
import type { ErrorBody } from "./bodies.ts";
import { allD1, envWithShards, get, registerKeys, shards, TEST_KEY } from "./helpers.ts";

const HEADER = "x-d1-bookmark";
const D1_BOOKMARK = "[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}";
const SHARDED = shards.layout.shards.length > 1;
/** One shard: a plain D1 bookmark; several: SHARD=BOOKMARK entries. */
const BOOKMARK = SHARDED
  ? new RegExp(`^DB[A-Z0-9_]*=${D1_BOOKMARK}(,DB[A-Z0-9_]*=${D1_BOOKMARK})*$`)
  : new RegExp(`^${D1_BOOKMARK}$`);
const CA_SHARD = partsOf(shards.layout, "CA")[0]!;

let unique = 0;
/** A keyed lookup with a URL no earlier request used, so the edge cache misses. */
const fresh = () => `/filings/recent-by-state?state=CA&s=${++unique}`;
/** A cross-state lookup (every shard) no earlier request used. */
const freshAcross = () => `/filings/recent-by-postal-code?postal_code=94107&s=${++unique}`;

/** Moves every shard (or only `only`) to a newer state (the API itself never writes). */
async function write(only?: D1Database): Promise<void> {
  for (const d1 of only ? [only] : allD1) {
    await d1.batch([
      d1.prepare("CREATE TABLE IF NOT EXISTS session_test_writes (n INTEGER)"),
      d1.prepare("INSERT INTO session_test_writes VALUES (1)"),
    ]);
  }
}

async function bookmarkOf(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(200);
  const bookmark = res.headers.get(HEADER);
  expect(bookmark).toMatch(BOOKMARK);
  return bookmark!;
}

/** Whether header `have` is at least as new as header `want` on every shard both name. */
const atLeast = (have: string, want: string) => isAtLeast(parseBookmarks(have), parseBookmarks(want));
/** Whether `have` is newer than `want` on some shard. */
const newer = (have: string, want: string) =>
  [...parseBookmarks(have)].some(([shard, b]) => b > (parseBookmarks(want).get(shard) ?? ""));

beforeAll(async () => {
  await registerKeys();
  await write();
});

describe("D1 session bookmarks", () => {
  it("sends the bookmark of the database state a response was read from", async () => {
    await bookmarkOf(await get(fresh()));
    await bookmarkOf(await get("/filings?initial_financing_number=00000001", null));
  });

  it("honours a bookmark sent back, answering from a state at least as new", async () => {
    const first = await bookmarkOf(await get(fresh()));
    await write();
    const next = await bookmarkOf(await get(fresh(), undefined, { headers: { [HEADER]: first } }));
    expect(atLeast(next, first)).toBe(true);
  });

  it("opens the session at the client's bookmark, else at the nearest replica", async () => {
    const opened: [string, unknown][] = [];
    const recorded = envWithShards(
      (d1, name) =>
        new Proxy(d1, {
          get: (target, prop) =>
            prop === "withSession"
              ? (arg: string) => {
                  opened.push([name, arg]);
                  return target.withSession(arg);
                }
              : Reflect.get(target, prop, target),
        }),
    );
    const bookmark = await bookmarkOf(await get(fresh()));
    const app = createApp();
    const call = (headers: Record<string, string>) =>
      app.request(fresh(), { headers: { "x-api-key": TEST_KEY, ...headers } }, recorded);
    expect((await call({})).status).toBe(200);
    expect((await call({ [HEADER]: bookmark })).status).toBe(200);
    // A state's request opens a session on its shard only.
    expect(opened).toEqual([
      [CA_SHARD, "first-unconstrained"],
      [CA_SHARD, parseBookmarks(bookmark).get(CA_SHARD)],
    ]);
  });

  it("orders bookmarks by time, so a write yields a newer one", async () => {
    const before = await bookmarkOf(await get(fresh()));
    await write();
    const after = await bookmarkOf(await get(fresh()));
    expect(newer(after, before)).toBe(true);
  });

  it("treats an empty bookmark header as absent", async () => {
    await bookmarkOf(await get(fresh(), undefined, { headers: { [HEADER]: "" } }));
  });

  it.each([
    ["a word", "latest"],
    ["a constraint name", "first-primary"],
    ["upper-case hex", "00000001-00000002-00004E2F-0A83EA2FCEEBC654DE0640C422BE4653"],
    ["a short last group", "00000001-00000002-00004e2f-0a83ea2f"],
    ["an oversized value", `00000001-00000002-00004e2f-${"0".repeat(4000)}`],
    [
      "a shard named twice",
      `DB=${"0".repeat(8)}-${"0".repeat(8)}-${"0".repeat(8)}-${"0".repeat(32)},DB=${"1".repeat(8)}-${"0".repeat(8)}-${"0".repeat(8)}-${"0".repeat(32)}`,
    ],
    ["a binding that is not a shard's name", `KV=00000001-00000002-00004e2f-${"0".repeat(32)}`],
    ["an entry without a bookmark", "DB="],
    [
      "more entries than shards may be",
      Array.from({ length: MAX_SHARDS + 1 }, (_, i) => `DB_${i}=00000001-00000002-00004e2f-${"0".repeat(32)}`).join(
        ",",
      ),
    ],
    [
      "a plain bookmark beside an entry",
      `00000001-00000002-00004e2f-${"0".repeat(32)},DB_2=00000001-00000002-00004e2f-${"0".repeat(32)}`,
    ],
  ])("refuses %s as a bookmark with a 400 naming the header", async (_, value) => {
    const res = await get(fresh(), undefined, { headers: { [HEADER]: value } });
    expect(res.status).toBe(400);
    expect(res.headers.get(HEADER)).toBeNull();
    const body = await res.json<ErrorBody>();
    expect(body.error.code).toBe("invalid_parameter");
    expect(body.error.message).toContain(HEADER);
    expect(body.error.details).toEqual([{ parameter: HEADER, message: expect.any(String) }]);
  });

  it("refuses a malformed bookmark even where a cached answer exists", async () => {
    const url = fresh();
    await get(url);
    await get(url);
    expect((await get(url)).headers.get("x-cache")).toBe("hit");
    expect((await get(url, undefined, { headers: { [HEADER]: "nope" } })).status).toBe(400);
  });
});

describe("bookmarks over several shards", () => {
  it("sends one entry per shard a cross-state request read", async () => {
    const bookmark = await bookmarkOf(await get(freshAcross()));
    expect([...parseBookmarks(bookmark).keys()].sort()).toEqual([...shards.layout.shards].sort());
  });

  it("keeps the client's bookmarks of shards a request did not touch", async () => {
    const across = await bookmarkOf(await get(freshAcross()));
    const one = await bookmarkOf(await get(fresh(), undefined, { headers: { [HEADER]: across } }));
    expect(atLeast(one, across)).toBe(true);
    expect(new Set(parseBookmarks(one).keys())).toEqual(new Set(parseBookmarks(across).keys()));
  });

  it("reads every shard at least as new as the bookmarks sent back", async () => {
    const before = await bookmarkOf(await get(freshAcross()));
    await write();
    const after = await bookmarkOf(await get(freshAcross()));
    const again = await bookmarkOf(await get(freshAcross(), undefined, { headers: { [HEADER]: after } }));
    expect(atLeast(again, after)).toBe(true);
    expect(atLeast(again, before)).toBe(true);
  });

  it("takes a plain D1 bookmark as the default shard's", async () => {
    const bookmark = await bookmarkOf(await get(freshAcross()));
    const plain = parseBookmarks(bookmark).get(DEFAULT_SHARD)!;
    const res = await get(freshAcross(), undefined, { headers: { [HEADER]: plain } });
    expect(atLeast(await bookmarkOf(res), `${DEFAULT_SHARD}=${plain}`)).toBe(true);
  });

  it("ignores the entry of a shard the layout does not have", async () => {
    const res = await get(fresh(), undefined, {
      headers: { [HEADER]: `DB_GONE=00000001-00000002-00004e2f-${"0".repeat(32)}` },
    });
    expect(res.status).toBe(200);
  });

  it("serves a cached cross-state answer only while it is at least as new on every shard", async () => {
    const url = freshAcross();
    await get(url);
    const stored = await bookmarkOf(await get(url));
    expect((await get(url, undefined, { headers: { [HEADER]: stored } })).headers.get("x-cache")).toBe("hit");
    // One shard moves on; a client that read it there must not get the entry.
    const moved = shards.databases.get(CA_SHARD)!;
    await write(moved);
    const later = await bookmarkOf(await get(fresh()));
    expect(newer(later, stored)).toBe(true);
    const res = await get(url, undefined, { headers: { [HEADER]: later } });
    expect(res.headers.get("x-cache")).toBe("miss");
    expect(atLeast(await bookmarkOf(res), later)).toBe(true);
  });
});

describe("edge cache and bookmarks", () => {
  it("sends a cache hit with the bookmark of the state its entry was read from", async () => {
    const url = fresh();
    await get(url);
    const stored = await bookmarkOf(await get(url));
    const res = await get(url);
    expect(res.headers.get("x-cache")).toBe("hit");
    expect(await bookmarkOf(res)).toBe(stored);
  });

  it("serves a cached entry to a bookmark it is at least as new as", async () => {
    const url = fresh();
    await get(url);
    const stored = await bookmarkOf(await get(url));
    const res = await get(url, undefined, { headers: { [HEADER]: stored } });
    expect(res.headers.get("x-cache")).toBe("hit");
    expect(await bookmarkOf(res)).toBe(stored);
  });

  it("never serves a cached entry older than the client's bookmark", async () => {
    const url = fresh();
    await get(url);
    const stale = await bookmarkOf(await get(url));
    await write();
    const later = await bookmarkOf(await get(fresh()));
    expect(newer(later, stale)).toBe(true);

    const res = await get(url, undefined, { headers: { [HEADER]: later } });
    expect(res.headers.get("x-cache")).toBe("miss");
    expect(atLeast(await bookmarkOf(res), later)).toBe(true);
  });

  it("does not let a client's made-up bookmark label the cached entry others are served", async () => {
    const url = fresh();
    await get(url);
    const stored = await bookmarkOf(await get(url));
    const future = `${CA_SHARD}=ffffffff-ffffffff-ffffffff-00000000000000000000000000000000`;
    expect((await get(url, undefined, { headers: { [HEADER]: future } })).headers.get("x-cache")).toBe("miss");
    const after = await get(url);
    expect(after.headers.get("x-cache")).toBe("hit");
    expect(after.headers.get(HEADER)).toBe(stored);
  });

  it("keeps the bookmark on a 304", async () => {
    const url = fresh();
    await get(url);
    const first = await get(url);
    const res = await get(url, undefined, { headers: { "if-none-match": first.headers.get("etag")! } });
    expect(res.status).toBe(304);
    expect(res.headers.get(HEADER)).toBe(first.headers.get(HEADER));
  });

  it("varies on the bookmark header, for HTTP caches between client and API", async () => {
    expect((await get(fresh())).headers.get("vary")).toContain(HEADER);
  });
});

describe("CORS and bookmarks", () => {
  it("lets browser clients send the bookmark header", async () => {
    const res = await get(fresh(), null, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": `x-api-key,${HEADER}`,
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-headers")?.split(",")).toContain(HEADER);
  });

  it("lets browser clients read the bookmark header", async () => {
    const res = await get(fresh(), undefined, { headers: { origin: "https://app.example" } });
    expect(res.headers.get("access-control-expose-headers")?.split(",")).toContain(HEADER);
  });
});
