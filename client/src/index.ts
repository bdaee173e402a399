/**
 * A typed client for the Lien Filing Lookup API, on `fetch` alone (Node 20+,
 * browsers, Cloudflare Workers, Deno, Bun).
 *
 * - One method per operation, named by its operationId; parameter and
 *   response types are generated from the API's OpenAPI document
 *   (src/openapi.ts, by openapi-typescript).
 * - A method's result is awaited for one page, or iterated with `for await`
 *   for every page from the one asked for (`.items()` for their items),
 *   following each page's `next_cursor` to the end of the list.
 * - 429 and 503 answers (and network failures) are retried, waiting what
 *   `Retry-After` says plus jitter, within a cap.
 * - Each answer's `x-d1-bookmark` is sent with the next request (merged
 *   per database when the service runs on several), so consecutive requests
 *   (a paged walk) never read an older database state.
 * - Every call takes an AbortSignal and a timeout; a non-200 answer throws a
 *   LienLookupError with the API's code, details, status and request id.
 */
import { errorOf, LienLookupError } from "./errors.js";
import type { components, operations } from "./openapi.js";

export type { ErrorBody, ErrorCode, ErrorDetail } from "./errors.js";
export { LienLookupError } from "./errors.js";
export type { components, operations, paths } from "./openapi.js";

type Schemas = components["schemas"];
export type LienPageA = Schemas["LienPageA"];
export type LienPageB = Schemas["LienPageB"];
export type LienA = Schemas["LienA"];
export type LienB = Schemas["LienB"];
export type TerminatedFilingPage = Schemas["TerminatedFilingPage"];
export type KnownAddressPage = Schemas["KnownAddressPage"];
export type AssociatedDebtorPage = Schemas["AssociatedDebtorPage"];
export type SimilarDebtorPage = Schemas["SimilarDebtorPage"];

export type OperationId = keyof operations;
/** The query parameters of an operation. */
export type QueryOf<Op extends OperationId> = operations[Op]["parameters"]["query"];
/** The 200 body of an operation. */
export type PageOf<Op extends OperationId> = operations[Op]["responses"][200]["content"]["application/json"];

export type Envelope = "a" | "b";
/** The page shape `envelope` selects. */
export type EnvelopePage<E extends Envelope> = E extends "b" ? LienPageB : LienPageA;

/** The list in a page, whatever the operation. */
export type ItemOf<P> = P extends { ucc_liens: (infer I)[] }
  ? I
  : P extends { terminated_filings: (infer I)[] }
    ? I
    : P extends { addresses: (infer I)[] }
      ? I
      : P extends { associated_debtors: (infer I)[] }
        ? I
        : P extends { similar_debtors: (infer I)[] }
          ? I
          : never;

/** Where each operation lives and which field holds its list. */
const OPERATIONS = {
  listRecentFilingsByState: { path: "/filings/recent-by-state", list: "ucc_liens" },
  listRecentFilingsByPostalCode: { path: "/filings/recent-by-postal-code", list: "ucc_liens" },
  listRecentFilingsBySecuredParty: { path: "/secureds/recent-by-secured-party", list: "ucc_liens" },
  listRecentlyTerminatedFilings: { path: "/filings/recently-terminated", list: "terminated_filings" },
  searchDebtorFilings: { path: "/debtors/search", list: "ucc_liens" },
  listDebtorAddresses: { path: "/debtors/addresses", list: "addresses" },
  listAssociatedDebtors: { path: "/debtors/associated", list: "associated_debtors" },
  searchSimilarDebtors: { path: "/debtors/search-similar", list: "similar_debtors" },
  lookupFiling: { path: "/filings", list: "ucc_liens" },
} as const satisfies Record<OperationId, { path: string; list: string }>;

/** The API serves pages 1 to 10,000 by number (walks follow cursors, which go further). */
export const MAX_PAGE = 10_000;
const BOOKMARK_HEADER = "x-d1-bookmark";

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  retries?: number;
  /** First backoff when the server gives no Retry-After, doubled each retry. Default 500 ms. */
  baseDelayMs?: number;
  /**
   * Longest wait: caps the backoff, and a Retry-After longer than this is
   * not waited out (the error is thrown at once). Default 60,000 ms, the
   * longest the API asks for.
   */
  maxDelayMs?: number;
}

export interface ClientOptions {
  /** The API's origin (and path prefix, if any), such as `https://lien-filing-lookup.example.workers.dev`. */
  baseUrl: string;
  /** Sent as `x-api-key`; every operation but `lookupFiling` needs it. */
  apiKey?: string;
  /** Default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Longest one attempt may take. Default 30,000 ms. */
  timeoutMs?: number;
  /** Retry policy for 429, 503 and network failures; `false` for none. */
  retry?: RetryOptions | false;
  /**
   * Carry each answer's `x-d1-bookmark` into the next request (default true),
   * so no request reads an older database state than an earlier one did.
   */
  consistentReads?: boolean;
  /** A bookmark to start from, such as one saved from another client. */
  bookmark?: string;
  /** How to wait between attempts; replaceable in tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface CallOptions {
  /** Cancels the call (every attempt and wait). */
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number;
}

/**
 * One page when awaited; every page from the asked one on when iterated
 * (`for await (const page of ...)`); every item of those pages with
 * `.items()`. Nothing is fetched until one of these is used.
 */
export interface Paged<P> extends PromiseLike<P>, AsyncIterable<P> {
  items(): AsyncIterable<ItemOf<P>>;
}

type Query = Record<string, string | number | readonly string[] | undefined>;

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Retry-After as seconds: delta-seconds, or an HTTP date. */
function retryAfterSeconds(value: string | null): number | null {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** The cursor of the page after `page` (envelope A's `pagination`, B's `response_metadata`); none on the last. */
function nextCursorOf(page: unknown): string | undefined {
  const p = page as { pagination?: { next_cursor?: string }; response_metadata?: { next_cursor?: string } };
  return p.pagination?.next_cursor ?? p.response_metadata?.next_cursor;
}

export class LienLookupClient {
  readonly #baseUrl: string;
  readonly #apiKey: string | undefined;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #timeoutMs: number;
  readonly #retry: Required<RetryOptions>;
  readonly #consistentReads: boolean;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #bookmark: string | undefined;

  constructor(options: ClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#apiKey = options.apiKey;
    this.#fetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    const retry = options.retry === false ? { retries: 0 } : (options.retry ?? {});
    this.#retry = { retries: 3, baseDelayMs: 500, maxDelayMs: 60_000, ...retry };
    this.#consistentReads = options.consistentReads ?? true;
    this.#bookmark = options.bookmark;
    this.#sleep = options.sleep ?? abortableSleep;
  }

  /** The newest `x-d1-bookmark` seen (sent with the next request), if any. */
  get bookmark(): string | undefined {
    return this.#bookmark;
  }

  /** Recent filings (last 90 days) in a state; envelope A. */
  listRecentFilingsByState(query: QueryOf<"listRecentFilingsByState">, options?: CallOptions): Paged<LienPageA> {
    return this.#paged<LienPageA>("listRecentFilingsByState", query, options);
  }

  /** Recent filings with a debtor in a ZIP code; envelope A, or B with `envelope: "b"`. */
  listRecentFilingsByPostalCode<E extends Envelope = "a">(
    query: QueryOf<"listRecentFilingsByPostalCode"> & { envelope?: E },
    options?: CallOptions,
  ): Paged<EnvelopePage<E>> {
    return this.#paged<EnvelopePage<E>>("listRecentFilingsByPostalCode", query, options);
  }

  /** Recent filings by secured party (lender) in a state; envelope B with amendments, or A with `envelope: "a"`. */
  listRecentFilingsBySecuredParty<E extends Envelope = "b">(
    query: QueryOf<"listRecentFilingsBySecuredParty"> & { envelope?: E },
    options?: CallOptions,
  ): Paged<EnvelopePage<E>> {
    return this.#paged<EnvelopePage<E>>("listRecentFilingsBySecuredParty", query, options);
  }

  /** Filings terminated in the last 90 days in a state. */
  listRecentlyTerminatedFilings(
    query: QueryOf<"listRecentlyTerminatedFilings">,
    options?: CallOptions,
  ): Paged<TerminatedFilingPage> {
    return this.#paged<TerminatedFilingPage>("listRecentlyTerminatedFilings", query, options);
  }

  /** Every filing of a debtor (exact name, UCC search logic) in a state. */
  searchDebtorFilings(query: QueryOf<"searchDebtorFilings">, options?: CallOptions): Paged<LienPageA> {
    return this.#paged<LienPageA>("searchDebtorFilings", query, options);
  }

  /** The addresses a debtor has filed under, in any state. */
  listDebtorAddresses(query: QueryOf<"listDebtorAddresses">, options?: CallOptions): Paged<KnownAddressPage> {
    return this.#paged<KnownAddressPage>("listDebtorAddresses", query, options);
  }

  /** A debtor's co-borrowers in a state. */
  listAssociatedDebtors(query: QueryOf<"listAssociatedDebtors">, options?: CallOptions): Paged<AssociatedDebtorPage> {
    return this.#paged<AssociatedDebtorPage>("listAssociatedDebtors", query, options);
  }

  /** Debtor names similar to a name, ranked by score. */
  searchSimilarDebtors(query: QueryOf<"searchSimilarDebtors">, options?: CallOptions): Paged<SimilarDebtorPage> {
    return this.#paged<SimilarDebtorPage>("searchSimilarDebtors", query, options);
  }

  /** A filing by its initial financing number (every state's, without `state`); needs no key. */
  lookupFiling(query: QueryOf<"lookupFiling">, options?: CallOptions): Paged<LienPageB> {
    return this.#paged<LienPageB>("lookupFiling", query, options);
  }

  #paged<P>(operation: OperationId, query: Query, options: CallOptions = {}): Paged<P> {
    const { list } = OPERATIONS[operation];
    const fetchPage = (at: Query) => this.#get<P>(operation, { ...query, ...at }, options);
    let first: Promise<P> | undefined;
    const getFirst = () => {
      first ??= fetchPage({});
      return first;
    };
    async function* pages(): AsyncGenerator<P> {
      let body = await getFirst();
      yield body;
      // Each page names the next by its cursor: the server reads for it what it reads for page 1.
      for (let cursor = nextCursorOf(body); cursor !== undefined; cursor = nextCursorOf(body)) {
        body = await fetchPage({ page: undefined, cursor });
        yield body;
      }
    }
    return {
      // biome-ignore lint/suspicious/noThenProperty: a Paged is awaitable by design (one page).
      then: (onFulfilled, onRejected) => getFirst().then(onFulfilled, onRejected),
      [Symbol.asyncIterator]: pages,
      async *items() {
        for await (const page of pages()) yield* (page as Record<string, ItemOf<P>[]>)[list] ?? [];
      },
    };
  }

  async #get<P>(operation: OperationId, query: Query, options: CallOptions): Promise<P> {
    const url = new URL(this.#baseUrl + OPERATIONS[operation].path);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      // Lists (industry) are comma-separated, as the document's `explode: false` says.
      url.searchParams.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    const res = await this.#send(url, options);
    if (res.status !== 200) throw await errorOf(res, retryAfterSeconds(res.headers.get("retry-after")));
    try {
      return (await res.json()) as P;
    } catch {
      throw new LienLookupError({
        status: res.status,
        code: "unexpected_response",
        message: "The server answered 200 with a body that is not JSON.",
        requestId: res.headers.get("x-request-id"),
        retryAfter: null,
      });
    }
  }

  /** One GET, retried on 429, 503 and network failures; remembers the answer's bookmark. */
  async #send(url: URL, { signal, timeoutMs = this.#timeoutMs }: CallOptions): Promise<Response> {
    const { retries, baseDelayMs, maxDelayMs } = this.#retry;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const headers = new Headers({ accept: "application/json" });
      if (this.#apiKey !== undefined) headers.set("x-api-key", this.#apiKey);
      if (this.#consistentReads && this.#bookmark) headers.set(BOOKMARK_HEADER, this.#bookmark);
      const timeout = AbortSignal.timeout(timeoutMs);
      const request = new Request(url, {
        method: "GET",
        headers,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });

      let res: Response;
      try {
        res = await this.#fetch(request);
      } catch (err) {
        // Aborts and timeouts end the call; other failures (the network) are retried.
        const ended = signal?.aborted || timeout.aborted || (err as Error)?.name === "AbortError";
        if (ended || attempt >= retries) throw timeout.aborted && !signal?.aborted ? timeout.reason : err;
        await this.#sleep(Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt), signal);
        continue;
      }

      this.#remember(res.headers.get(BOOKMARK_HEADER));
      if ((res.status !== 429 && res.status !== 503) || attempt >= retries) return res;
      const told = retryAfterSeconds(res.headers.get("retry-after"));
      // Waiting less than the server asked would only be refused again.
      if (told !== null && told * 1000 > maxDelayMs) return res;
      // Jitter spreads out the clients told the same wait; the wait itself is never cut short.
      const delay =
        told === null
          ? Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt)
          : told * 1000 + Math.random() * Math.min(1000, told * 200);
      await res.body?.cancel();
      await this.#sleep(delay, signal);
    }
  }

  /** Keeps the newest bookmark of each database (newestBookmark). */
  #remember(bookmark: string | null): void {
    if (!this.#consistentReads || !bookmark) return;
    this.#bookmark = this.#bookmark === undefined ? bookmark : newestBookmark(this.#bookmark, bookmark);
  }
}

/** An `x-d1-bookmark` value's bookmarks by database; a plain D1 bookmark is the default database's ("DB"). */
function bookmarksOf(value: string): Map<string, string> {
  if (!value.includes("=")) return new Map([["DB", value]]);
  return new Map(value.split(",").map((entry) => entry.split("=", 2) as [string, string]));
}

/**
 * Of two `x-d1-bookmark` values, the newest bookmark of each database
 * (shard) either names: the service's bookmarks are comma-separated
 * `SHARD=BOOKMARK` entries, or one plain D1 bookmark when it runs on one
 * database; D1 bookmarks order as strings.
 */
export function newestBookmark(a: string, b: string): string {
  if (!a.includes("=") && !b.includes("=")) return b > a ? b : a;
  const merged = bookmarksOf(a);
  for (const [shard, bookmark] of bookmarksOf(b)) {
    const other = merged.get(shard);
    if (other === undefined || bookmark > other) merged.set(shard, bookmark);
  }
  return [...merged]
    .sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
    .map(([shard, bookmark]) => `${shard}=${bookmark}`)
    .join(",");
}

/** Shorthand for `new LienLookupClient(options)`. */
export function createClient(options: ClientOptions): LienLookupClient {
  return new LienLookupClient(options);
}
