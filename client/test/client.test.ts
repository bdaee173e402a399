/**
 * The typed client against the real Worker, in the Workers runtime: paged
 * walks in both envelopes, retries through real 429 and 503 answers,
 * bookmarks carried from answer to request, typed errors, cancellation.
 */
import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import { createApp } from "../../src/app.ts";
import {
  allD1,
  daysAgo,
  filing,
  load,
  loadDelta,
  party,
  registerKeys,
  TEST_KEY,
  testAddress,
} from "../../test/helpers.ts";
import {
  type AssociatedDebtor,
  createClient,
  type Envelope,
  type KnownAddress,
  type LienA,
  type LienB,
  type LienFull,
  LienLookupError,
  type LienPageA,
  type LienPageB,
  type LienPageFull,
  newestBookmark,
  type OperationId,
  type operations,
  type PageOf,
  type SimilarDebtor,
} from "../src/index.ts";

const BASE = "https://lien.test";
/** The Worker under test, as the client's `fetch`. */
const worker = (request: Request) => exports.default.fetch(request);

/** A client of the test Worker that records its waits instead of sleeping. */
function testClient(options: Parameters<typeof createClient>[0] | object = {}) {
  const waits: number[] = [];
  const client = createClient({
    baseUrl: BASE,
    apiKey: TEST_KEY,
    fetch: worker,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  return { client, waits };
}

const FILINGS = 23;

beforeAll(async () => {
  await registerKeys();
  await load(
    Array.from({ length: FILINGS }, (_, i) =>
      filing({
        number: `CL-${String(i).padStart(3, "0")}`,
        filedAt: daysAgo(1 + i),
        debtors: [party(`Client Borrower ${i} LLC`, { label: "Manufacturing", zip: "94110" })],
        securedParties: [party("Client Test Lender, N.A.", { label: "Bank" })],
      }),
    ).concat(
      // In another state, so the lists above keep their counts.
      filing({
        number: "CL-NV",
        state: "NV",
        filedAt: daysAgo(30),
        debtors: [party("Client Anchor LLC", { label: "Equipment" }), party("Client Partner Inc", { zip: "89501" })],
        amendments: [{ number: "CL-NV-T", filedAt: daysAgo(2), kind: "termination", description: "Termination" }],
      }),
    ),
  );
});

describe("operations", () => {
  it("has a method for every operation of the document, each reaching it", async () => {
    const { client } = testClient();
    const doc = await (await worker(new Request(`${BASE}/openapi.json`))).json<any>();
    const ids = Object.values(doc.paths).map((item: any) => item.get.operationId as string);
    const calls: Record<string, () => PromiseLike<object>> = {
      listRecentFilingsByState: () => client.listRecentFilingsByState({ state: "NV" }),
      listRecentFilingsByPostalCode: () => client.listRecentFilingsByPostalCode({ postal_code: "89501" }),
      listRecentFilingsBySecuredParty: () =>
        client.listRecentFilingsBySecuredParty({ name: "first test", state: "NV" }),
      listRecentlyTerminatedFilings: () => client.listRecentlyTerminatedFilings({ state: "NV" }),
      searchDebtorFilings: () => client.searchDebtorFilings({ name: "client anchor", state: "NV" }),
      listDebtorAddresses: () => client.listDebtorAddresses({ name: "Client Anchor LLC" }),
      listAssociatedDebtors: () => client.listAssociatedDebtors({ name: "Client Anchor", state: "NV" }),
      searchSimilarDebtors: () => client.searchSimilarDebtors({ name: "Client Ankor" }),
      lookupFiling: () => client.lookupFiling({ initial_financing_number: "CL-NV" }),
      listChanges: () => client.listChanges({ state: "NV" }),
      listLapsingFilings: () => client.listLapsingFilings({ state: "CA", to: "2045-01-01" }),
      listStates: () => client.listStates(),
      getLienReport: () => client.getLienReport({ name: "Client Anchor LLC", state: ["NV"] }),
    };
    expect(Object.keys(calls).sort()).toEqual(ids.sort());
    for (const [id, call] of Object.entries(calls)) {
      const page = await call();
      const list = Object.values(page).find(Array.isArray) as unknown[];
      expect(list.length, id).toBeGreaterThan(0);
    }
  });
});

describe("paging", () => {
  it("walks every page of an envelope-A list with for await, each item once, newest first", async () => {
    const { client } = testClient();
    const pages: LienPageA[] = [];
    for await (const page of client.listRecentFilingsByState({ state: "ca" })) pages.push(page);
    expect(pages.map((p) => p.pagination.current_page)).toEqual([1, 2, 3, 4, 5]);
    const numbers = pages.flatMap((p) => p.ucc_liens.map((l) => l.initial_financing_number));
    expect(numbers).toEqual(Array.from({ length: FILINGS }, (_, i) => `CL-${String(i).padStart(3, "0")}`));
  });

  it("walks every page of an envelope-B list until next_page is false", async () => {
    const { client } = testClient();
    const pages: LienPageB[] = [];
    for await (const page of client.listRecentFilingsBySecuredParty({ name: "client test lender", state: "CA" })) {
      pages.push(page);
    }
    expect(pages.map((p) => [p.response_metadata.page, p.response_metadata.next_page])).toEqual([
      [1, true],
      [2, true],
      [3, false],
    ]);
    expect(pages.flatMap((p) => p.ucc_liens)).toHaveLength(FILINGS);
  });

  it("walks by each page's cursor, never asking a page by number after the first", async () => {
    const sent: URL[] = [];
    const { client } = testClient({
      fetch: (request: Request) => {
        sent.push(new URL(request.url));
        return worker(request);
      },
    });
    const pages: LienPageA[] = [];
    for await (const page of client.listRecentFilingsByState({ state: "CA", page: 2 })) pages.push(page);
    expect(pages.map((p) => p.pagination.current_page)).toEqual([2, 3, 4, 5]);
    expect(sent.map((url) => url.searchParams.get("page"))).toEqual(["2", null, null, null]);
    expect(sent.slice(1).map((url) => url.searchParams.get("cursor"))).toEqual(
      pages.slice(0, -1).map((p) => p.pagination.next_cursor),
    );
    expect(pages.at(-1)!.pagination.next_cursor).toBeUndefined();
  });

  it("yields the items of every page from the page asked for with .items()", async () => {
    const { client } = testClient();
    const items: LienB[] = [];
    for await (const lien of client
      .listRecentFilingsByPostalCode({ postal_code: "94110", envelope: "b", page: 2 })
      .items()) {
      items.push(lien);
    }
    expect(items.map((l) => l.initial_financing_number)).toEqual(
      Array.from({ length: FILINGS - 10 }, (_, i) => `CL-${String(i + 10).padStart(3, "0")}`),
    );
    expect(items[0]!.estimated_lien_status).toBe("Active");
  });

  it("answers one page when awaited", async () => {
    const { client } = testClient();
    const page = await client.listRecentFilingsByPostalCode({ postal_code: "94110", page: 5 });
    expect(page.pagination).toEqual({ current_page: 5, total_pages: 5, page_size: 5, total_results: FILINGS });
  });

  it("types the answer by the envelope asked for, in any case, as the generated types allow", () => {
    const { client } = testClient();
    expectTypeOf(client.listRecentFilingsByPostalCode({ postal_code: "94110" })).resolves.toEqualTypeOf<LienPageA>();
    expectTypeOf(
      client.listRecentFilingsByPostalCode({ postal_code: "94110", envelope: "b" }),
    ).resolves.toEqualTypeOf<LienPageB>();
    expectTypeOf(
      client.listRecentFilingsByPostalCode({ postal_code: "94110", envelope: "B" }),
    ).resolves.toEqualTypeOf<LienPageB>();
    expectTypeOf(
      client.listRecentFilingsBySecuredParty({ name: "x", state: "CA" }),
    ).resolves.toEqualTypeOf<LienPageB>();
    expectTypeOf(
      client.listRecentFilingsBySecuredParty({ name: "x", state: "CA", envelope: "A" }),
    ).resolves.toEqualTypeOf<LienPageA>();
    // With openapi-typescript's types alone, `pagination` tells the union apart.
    type Answer = operations["listRecentFilingsByPostalCode"]["responses"][200]["content"]["application/json"];
    const narrow = (page: Answer) => ("pagination" in page ? page.ucc_liens[0] : page.ucc_liens[0]);
    expectTypeOf(narrow).returns.toEqualTypeOf<LienA | LienB | undefined>();
  });
});

describe("result types", () => {
  it("types every operation's result as the document's 200 body for it (an envelope's as its half of the union)", () => {
    const { client } = testClient();
    // An envelope not known until run time: the operation's answer is either page.
    const envelope = "a" as Envelope;
    const results = {
      listRecentFilingsByState: client.listRecentFilingsByState({ state: "CA" }),
      listRecentFilingsByPostalCode: client.listRecentFilingsByPostalCode({ postal_code: "94110", envelope }),
      listRecentFilingsBySecuredParty: client.listRecentFilingsBySecuredParty({ name: "x", state: "CA", envelope }),
      listRecentlyTerminatedFilings: client.listRecentlyTerminatedFilings({ state: "CA" }),
      searchDebtorFilings: client.searchDebtorFilings({ name: "x", state: "CA" }),
      listDebtorAddresses: client.listDebtorAddresses({ name: "x" }),
      listAssociatedDebtors: client.listAssociatedDebtors({ name: "x", state: "CA" }),
      searchSimilarDebtors: client.searchSimilarDebtors({ name: "x" }),
      lookupFiling: client.lookupFiling({ initial_financing_number: "x" }),
      listChanges: client.listChanges({ state: "CA" }),
      listLapsingFilings: client.listLapsingFilings({ state: "CA", envelope }),
      listStates: client.listStates(),
      getLienReport: client.getLienReport({ name: "x" }),
    };
    expectTypeOf<{ [Op in keyof typeof results]: Awaited<(typeof results)[Op]> }>().toEqualTypeOf<{
      [Op in OperationId]: PageOf<Op>;
    }>();
    // The public lookup's page is the full one: its fields need no cast.
    expectTypeOf(client.lookupFiling({ initial_financing_number: "x" })).resolves.toEqualTypeOf<LienPageFull>();
    expectTypeOf<LienPageFull["ucc_liens"][number]>().toEqualTypeOf<LienFull>();
    expectTypeOf<LienFull["amendments"][number]["amendment_kind"]>().toBeString();
    expectTypeOf<LienFull["filing_kind" | "lapse_date_source"]>().toBeString();
    expectTypeOf<LienFull["collateral" | "filing_office"]>().toEqualTypeOf<string | null>();
    // Each list's item has its own name.
    expectTypeOf(client.listDebtorAddresses({ name: "x" }).items()).toEqualTypeOf<AsyncIterable<KnownAddress>>();
    expectTypeOf(client.listAssociatedDebtors({ name: "x", state: "CA" }).items()).toEqualTypeOf<
      AsyncIterable<AssociatedDebtor>
    >();
    expectTypeOf(client.searchSimilarDebtors({ name: "x" }).items()).toEqualTypeOf<AsyncIterable<SimilarDebtor>>();
    expectTypeOf(client.getLienReport({ name: "x" }).items()).toEqualTypeOf<
      AsyncIterable<PageOf<"getLienReport">["filings"][number]>
    >();
  });

  it("reads the public lookup's own fields without a cast", async () => {
    const { client } = testClient({ apiKey: undefined });
    const page = await client.lookupFiling({ initial_financing_number: "CL-NV" });
    const lien = page.ucc_liens[0]!;
    expect([lien.filing_kind, lien.lapse_date_source, lien.amendments[0]?.amendment_kind]).toEqual([
      "standard",
      "estimated",
      "termination",
    ]);
  });
});

describe("revalidation and answer headers", () => {
  it("gives each answer's ETag, request id, bookmark and cache status beside its page", async () => {
    const { client } = testClient();
    const answer = await client.listRecentFilingsByState({ state: "NV", page: 1 }).answer();
    expect(answer).toMatchObject({
      status: 200,
      notModified: false,
      etag: expect.stringMatching(/^W\/"[0-9a-f]{32}"$/),
      requestId: answer.page.response_metadata.request_id,
      bookmark: expect.stringMatching(/[0-9a-f]{8}-/),
      cache: "miss",
      retryAfter: null,
    });
    expect(answer.headers.get("cache-control")).toBe("private, max-age=60");
    const answers = [];
    for await (const each of client.listRecentFilingsByState({ state: "CA" }).answers()) answers.push(each);
    expect(answers.map((a) => a.page.pagination.current_page)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(answers.map((a) => a.requestId)).size).toBe(5);
  });

  it("revalidates with the last ETag: not modified without a body while unchanged, the new page once changed", async () => {
    const sent: (string | null)[] = [];
    const { client } = testClient({
      fetch: (request: Request) => {
        sent.push(request.headers.get("if-none-match"));
        return worker(request);
      },
    });
    const query = { name: "Client Revalidated LLC", state: "NV" } as const;
    const first = await client.searchDebtorFilings(query).answer();
    expect(first.page.ucc_liens).toEqual([]);
    const again = await client.searchDebtorFilings(query).answer({ ifNoneMatch: first.etag! });
    expect(again).toMatchObject({ status: 304, notModified: true, etag: first.etag });
    expect(again).not.toHaveProperty("page");
    expect(sent).toEqual([null, first.etag]);

    await load([filing({ number: "CL-REVAL", state: "NV", debtors: [party("Client Revalidated LLC")] })]);
    const changed = await client.searchDebtorFilings(query).answer({ ifNoneMatch: first.etag! });
    if (changed.notModified) throw new Error("the page changed, so it is not a 304");
    expect(changed.page.ucc_liens.map((l) => l.initial_financing_number)).toEqual(["CL-REVAL"]);
    expect(changed.etag).not.toBe(first.etag);
  });
});

describe("retries", () => {
  /**
   * Sends `request` from client address `ip` until the Worker's per-address
   * limit answers 429 (60 a minute), and returns that real 429.
   */
  async function limited(request: Request, ip: string): Promise<Response> {
    for (let i = 0; i < 130; i++) {
      const headers = new Headers(request.headers);
      headers.set("cf-connecting-ip", ip);
      const res = await worker(new Request(request, { headers }));
      if (res.status === 429) return res;
      await res.arrayBuffer();
    }
    throw new Error("never limited");
  }

  it("retries through a real 429, waiting what Retry-After says plus jitter", async () => {
    // The limiter's minute cannot pass inside a test: the first attempt gets
    // a real 429, and the wait "passes" by letting the retry come from an
    // address whose window is fresh.
    let waited = false;
    const statuses: number[] = [];
    const waits: number[] = [];
    const client = createClient({
      baseUrl: BASE,
      fetch: async (request) => {
        const headers = new Headers(request.headers);
        headers.set("cf-connecting-ip", testAddress(45));
        const res = waited ? await worker(new Request(request, { headers })) : await limited(request, testAddress(44));
        statuses.push(res.status);
        return res;
      },
      sleep: async (ms) => {
        waits.push(ms);
        waited = true;
      },
    });
    const page = await client.lookupFiling({ initial_financing_number: "CL-000" });
    expect(statuses).toEqual([429, 200]);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(60_000);
    expect(waits[0]).toBeLessThanOrEqual(61_000);
    expect(page.ucc_liens[0]!.initial_financing_number).toBe("CL-000");
  });

  it("does not wait out a Retry-After beyond its cap: the 429 is thrown, typed", async () => {
    const { client, waits } = testClient({
      apiKey: undefined,
      retry: { maxDelayMs: 5_000 },
      fetch: (request: Request) => limited(request, testAddress(46)),
    });
    const error = await client.lookupFiling({ initial_financing_number: "CL-000" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LienLookupError);
    expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 60 });
    expect(waits).toEqual([]);
  });

  it("retries a 503 (the key store down) and gets the answer once it is back", async () => {
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const down = { ...env, API_KEYS: { getWithMetadata: () => Promise.reject(new Error("KV unavailable")) } };
    const app = createApp();
    let failures = 2;
    const statuses: number[] = [];
    const { client, waits } = testClient({
      apiKey: "client-unseen-key",
      fetch: async (request: Request) => {
        const res = failures-- > 0 ? await app.request(request, undefined, down) : await worker(request);
        statuses.push(res.status);
        return res;
      },
    });
    const error = await client.listRecentFilingsByState({ state: "CA" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    errors.mockRestore();
    // Two real 503s waited out (5 s each, plus jitter), then the real Worker: this key is unknown there.
    expect(statuses).toEqual([503, 503, 401]);
    expect(waits.every((ms) => ms >= 5_000 && ms <= 6_000)).toBe(true);
    expect(error).toMatchObject({ status: 401, code: "invalid_api_key" });
  });

  it("gives up after its retries, with the last answer's error", async () => {
    const { client, waits } = testClient({
      retry: { retries: 2 },
      fetch: async () =>
        new Response(JSON.stringify({ error: { code: "service_unavailable", message: "down" } }), {
          status: 503,
          headers: { "retry-after": "1", "content-type": "application/json" },
        }),
    });
    await expect(client.listRecentFilingsByState({ state: "CA" })).rejects.toMatchObject({
      status: 503,
      code: "service_unavailable",
      retryAfter: 1,
    });
    expect(waits).toHaveLength(2);
  });
});

describe("consistent reads", () => {
  it("sends each answer's x-d1-bookmark with the next request, so a walk never reads an older state", async () => {
    const sent: (string | null)[] = [];
    const received: (string | null)[] = [];
    const { client } = testClient({
      fetch: async (request: Request) => {
        sent.push(request.headers.get("x-d1-bookmark"));
        const res = await worker(request);
        received.push(res.headers.get("x-d1-bookmark"));
        // Someone writes between pages: every database moves on.
        for (const d1 of allD1) {
          await d1.prepare("CREATE TABLE IF NOT EXISTS client_test_writes (n INTEGER)").run();
          await d1.prepare("INSERT INTO client_test_writes VALUES (1)").run();
        }
        return res;
      },
    });
    let pages = 0;
    for await (const _ of client.listRecentFilingsByState({ state: "CA", page: 1 })) pages++;
    expect(pages).toBe(5);
    expect(sent[0]).toBeNull();
    for (let i = 1; i < sent.length; i++) {
      expect(received[i - 1]).toMatch(/^(?:DB[A-Z0-9_]*=)?[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}(?:,|$)/);
      expect(sent[i]).toBe(received[i - 1]);
      // Newer or the same on every database: merging changes nothing.
      expect(newestBookmark(sent[i]!, received[i]!)).toBe(received[i]);
    }
    expect(client.bookmark).toBe(received.at(-1));
  });

  it("starts from a given bookmark, and can be told not to carry them", async () => {
    const sent: (string | null)[] = [];
    const record = async (request: Request) => {
      sent.push(request.headers.get("x-d1-bookmark"));
      return worker(request);
    };
    const first = await worker(
      new Request(`${BASE}/filings/recent-by-state?state=CA&fresh=1`, { headers: { "x-api-key": TEST_KEY } }),
    );
    const bookmark = first.headers.get("x-d1-bookmark")!;
    await testClient({ fetch: record, bookmark }).client.listRecentFilingsByState({ state: "CA" });
    const free = testClient({ fetch: record, consistentReads: false }).client;
    await free.listRecentFilingsByState({ state: "CA" });
    await free.listRecentFilingsByState({ state: "CA", page: 2 });
    expect(sent).toEqual([bookmark, null, null]);
    expect(free.bookmark).toBeUndefined();
  });
});

describe("errors", () => {
  it("throws a typed error for a 400, with the code, details, status and request id", async () => {
    const { client } = testClient();
    const error = await client.listRecentFilingsByState({ state: "ZZ" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LienLookupError);
    const e = error as LienLookupError;
    expect(e.status).toBe(400);
    expect(e.code).toBe("invalid_parameter");
    expect(e.details).toEqual([{ parameter: "state", message: expect.stringContaining("two-letter") }]);
    expect(e.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(e.message).toContain("state");
  });

  it("throws a typed error for a 401, without a key and with a bad one", async () => {
    await expect(
      testClient({ apiKey: undefined }).client.searchDebtorFilings({ name: "x", state: "CA" }),
    ).rejects.toMatchObject({
      status: 401,
      code: "missing_api_key",
    });
    await expect(testClient({ apiKey: "not-a-key" }).client.listDebtorAddresses({ name: "x" })).rejects.toMatchObject({
      status: 401,
      code: "invalid_api_key",
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it("reports an answer that is not the API's JSON as unexpected_response", async () => {
    const { client } = testClient({
      retry: false,
      fetch: async () => new Response("<html>Bad gateway</html>", { status: 502, headers: { "x-request-id": "r-1" } }),
    });
    await expect(client.listRecentFilingsByState({ state: "CA" })).rejects.toMatchObject({
      status: 502,
      code: "unexpected_response",
      requestId: "r-1",
    });
  });
});

describe("cancellation", () => {
  /** A fetch that never answers, but gives up when its request is aborted. */
  const hanging = (request: Request) =>
    new Promise<Response>((_, reject) => {
      request.signal.addEventListener("abort", () => reject(request.signal.reason), { once: true });
    });

  it("times an attempt out with a TimeoutError", async () => {
    const { client } = testClient({ fetch: hanging, timeoutMs: 20 });
    await expect(client.listRecentFilingsByState({ state: "CA" })).rejects.toMatchObject({ name: "TimeoutError" });
  });

  it("stops at once when the caller's signal aborts, even while waiting to retry", async () => {
    const controller = new AbortController();
    const { client } = testClient({
      fetch: hanging,
    });
    const call = client.listRecentFilingsByState({ state: "CA" }, { signal: controller.signal });
    controller.abort(new Error("caller gave up"));
    await expect(call).rejects.toThrow("caller gave up");

    const waiting = createClient({
      baseUrl: BASE,
      fetch: async () => new Response("{}", { status: 503, headers: { "retry-after": "30" } }),
    });
    const retry = waiting.listRecentFilingsByState({ state: "CA" }, { signal: controller.signal });
    await expect(retry).rejects.toThrow("caller gave up");
    const later = new AbortController();
    const pending = waiting.listRecentFilingsByState({ state: "CA" }, { signal: later.signal });
    setTimeout(() => later.abort(new Error("stopped mid-wait")), 10);
    await expect(pending).rejects.toThrow("stopped mid-wait");
  });
});

describe("the change feed", () => {
  it("walks the feed with changes(), each page with the cursor to resume from", async () => {
    const { client } = testClient();
    const batches = [];
    for await (const batch of client.changes({ limit: 10 })) batches.push(batch);
    const all = batches.flatMap((b) => b.changes);
    expect(all.length).toBeGreaterThanOrEqual(FILINGS + 1);
    expect(batches.at(-1)?.hasMore).toBe(false);
    // From the last cursor: only what is loaded after it.
    await loadDelta([filing({ number: "CL-LATER", state: "NV", debtors: [party("Client Later LLC")] })]);
    const later = [];
    for await (const batch of client.changes({ cursor: batches.at(-1)?.cursor })) later.push(...batch.changes);
    expect(later.map((c) => [c.type, c.initial_financing_number])).toEqual([["filing.created", "CL-LATER"]]);
  });

  it("watches a watchlist: its debtors' and lenders' new filings, each once, and nothing else", async () => {
    const waits: number[] = [];
    let loaded = false;
    // The filings arrive while the watcher waits, caught up, for the first time.
    const { client } = testClient({
      sleep: async (ms: number) => {
        waits.push(ms);
        if (loaded) return;
        loaded = true;
        await loadDelta([
          // The watched debtor, spelled as its office filed it.
          filing({ number: "W-1", state: "NV", debtors: [party("WATCHED BORROWER, INC.")] }),
          filing({ number: "W-2", state: "NV", debtors: [party("Unwatched Borrower LLC")] }),
          // An individual filed last name first.
          filing({ number: "W-3", state: "TX", debtors: [party("Public, Jane Q", { type: "Individual" })] }),
          filing({
            number: "W-4",
            state: "CA",
            debtors: [party("Another Unwatched LLC")],
            securedParties: [party("Harbor Point Capital LLC")],
          }),
        ]);
      },
    });
    const start = (await client.listChanges({ since: new Date(Date.now() + 60_000).toISOString() })).response_metadata
      .next_cursor;
    const stop = new AbortController();
    const cursors: string[] = [];
    const seen: string[] = [];
    try {
      for await (const change of client.watch({
        debtors: ["Watched Borrower Inc", "Jane Q Public"],
        securedParties: ["harbor point"],
        cursor: start,
        onCursor: (c) => void cursors.push(c),
        pollIntervalMs: 5_000,
        signal: stop.signal,
      })) {
        seen.push(`${change.type} ${change.initial_financing_number}`);
        if (seen.length === 3) stop.abort();
      }
    } catch (err) {
      if (!stop.signal.aborted) throw err;
    }
    expect(seen.sort()).toEqual(["filing.created W-1", "filing.created W-3", "filing.created W-4"]);
    expect(cursors.length).toBeGreaterThan(1);
    // Caught up on an empty page, it waited the server's Retry-After (300 s), longer than the poll interval.
    expect(waits[0]).toBe(300_000);
  });
});
