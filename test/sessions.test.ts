/**
 * D1 read replication through the Sessions API: bookmarks in and out of the
 * x-d1-bookmark header, and the edge cache never answering from a state older
 * than the client's bookmark. Local D1 has no replicas, but it runs the same
 * session calls and issues real bookmarks, which advance with every write.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import type { ErrorBody } from "./bodies.ts";
import { get, registerKeys, TEST_KEY } from "./helpers.ts";

const HEADER = "x-d1-bookmark";
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

let unique = 0;
/** A keyed lookup with a URL no earlier request used, so the edge cache misses. */
const fresh = () => `/filings/recent-by-state?state=CA&s=${++unique}`;

/** Moves the database to a newer state (the API itself never writes). */
async function write(): Promise<void> {
  await env.DB.batch([
    env.DB.prepare("CREATE TABLE IF NOT EXISTS session_test_writes (n INTEGER)"),
    env.DB.prepare("INSERT INTO session_test_writes VALUES (1)"),
  ]);
}

async function bookmarkOf(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(200);
  const bookmark = res.headers.get(HEADER);
  expect(bookmark).toMatch(BOOKMARK);
  return bookmark!;
}

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
    expect(next >= first).toBe(true);
  });

  it("opens the session at the client's bookmark, else at the nearest replica", async () => {
    const opened: unknown[] = [];
    const withSession = (arg: string) => {
      opened.push(arg);
      return env.DB.withSession(arg);
    };
    const DB = new Proxy(env.DB, {
      get: (target, prop) => (prop === "withSession" ? withSession : Reflect.get(target, prop, target)),
    });
    const bookmark = await bookmarkOf(await get(fresh()));
    const app = createApp();
    const call = (headers: Record<string, string>) =>
      app.request(fresh(), { headers: { "x-api-key": TEST_KEY, ...headers } }, { ...env, DB });
    expect((await call({})).status).toBe(200);
    expect((await call({ [HEADER]: bookmark })).status).toBe(200);
    expect(opened).toEqual(["first-unconstrained", bookmark]);
  });

  it("orders bookmarks by time, so a write yields a newer one", async () => {
    const before = await bookmarkOf(await get(fresh()));
    await write();
    const after = await bookmarkOf(await get(fresh()));
    expect(after > before).toBe(true);
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
    expect((await get(url)).headers.get("x-cache")).toBe("hit");
    expect((await get(url, undefined, { headers: { [HEADER]: "nope" } })).status).toBe(400);
  });
});

describe("edge cache and bookmarks", () => {
  it("sends a cache hit with the bookmark of the state its entry was read from", async () => {
    const url = fresh();
    const stored = await bookmarkOf(await get(url));
    const res = await get(url);
    expect(res.headers.get("x-cache")).toBe("hit");
    expect(await bookmarkOf(res)).toBe(stored);
  });

  it("serves a cached entry to a bookmark it is at least as new as", async () => {
    const url = fresh();
    const stored = await bookmarkOf(await get(url));
    const res = await get(url, undefined, { headers: { [HEADER]: stored } });
    expect(res.headers.get("x-cache")).toBe("hit");
    expect(await bookmarkOf(res)).toBe(stored);
  });

  it("never serves a cached entry older than the client's bookmark", async () => {
    const url = fresh();
    const stale = await bookmarkOf(await get(url));
    await write();
    const newer = await bookmarkOf(await get(fresh()));
    expect(newer > stale).toBe(true);

    const res = await get(url, undefined, { headers: { [HEADER]: newer } });
    expect(res.headers.get("x-cache")).toBe("miss");
    expect((await bookmarkOf(res)) >= newer).toBe(true);
  });

  it("does not let a client's made-up bookmark label the cached entry others are served", async () => {
    const url = fresh();
    const stored = await bookmarkOf(await get(url));
    const future = "ffffffff-ffffffff-ffffffff-00000000000000000000000000000000";
    expect((await get(url, undefined, { headers: { [HEADER]: future } })).headers.get("x-cache")).toBe("miss");
    const after = await get(url);
    expect(after.headers.get("x-cache")).toBe("hit");
    expect(after.headers.get(HEADER)).toBe(stored);
  });

  it("keeps the bookmark on a 304", async () => {
    const url = fresh();
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
