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
 * - `.answer()` gives a page with what its answer's headers said (ETag,
 *   request id, bookmark, cache, Retry-After) and, given the ETag of an
 *   earlier answer, revalidates it: "not modified" comes back without a body.
 * - The change feed: `changes()` walks it from a cursor, handing back each
 *   page's cursor to keep; `watch()` polls it for a watchlist of debtors,
 *   lenders and states, matching names by the server's own rules
 *   (src/names.ts, a copy of the server's src/domain/names.ts).
 * - Webhooks: `verifyWebhook()` checks one the service sent (src/webhooks.ts).
 */
import { errorOf, LienLookupError } from "./errors.js";
import { findsDebtor, findsSecuredParty } from "./names.js";
import type { components, operations, paths } from "./openapi.js";

export type { ErrorBody, ErrorCode, ErrorDetail } from "./errors.js";
export { LienLookupError } from "./errors.js";
export type { components, operations, paths } from "./openapi.js";
export type { VerifyOptions, WebhookEvent, WebhookHeaders } from "./webhooks.js";
export { verifyWebhook, WebhookVerificationError } from "./webhooks.js";

// The document's shapes under their schema names: each page, and each item of one.
type Schemas = components["schemas"];
export type LienPageA = Schemas["LienPageA"];
export type LienPageB = Schemas["LienPageB"];
export type LienPageFull = Schemas["LienPageFull"];
export type LienA = Schemas["LienA"];
export type LienB = Schemas["LienB"];
export type LienFull = Schemas["LienFull"];
export type Amendment = Schemas["Amendment"];
export type AmendmentFull = Schemas["AmendmentFull"];
export type TerminatedFilingPage = Schemas["TerminatedFilingPage"];
export type TerminatedFiling = Schemas["TerminatedFiling"];
export type KnownAddressPage = Schemas["KnownAddressPage"];
export type KnownAddress = Schemas["KnownAddress"];
/** A co-borrower. */
export type AssociatedDebtor = Schemas["AssociatedDebtor"];
export type AssociatedDebtorPage = Schemas["AssociatedDebtorPage"];
export type SimilarDebtorPage = Schemas["SimilarDebtorPage"];
export type SimilarDebtor = Schemas["SimilarDebtor"];
/** A page of the change feed, and one change. */
export type ChangePage = Schemas["ChangePage"];
export type Change = Schemas["Change"];
export type ChangeType = Change["type"];
/** How current each state's data is. */
export type StatePage = Schemas["StatePage"];
export type StateCurrency = Schemas["StateCurrency"];

/** A lookup's GET operation of the document (each also has a bodiless HEAD twin, `head...`). */
type GetOperation = NonNullable<paths[keyof paths]["get"]>;
export type OperationId = {
  [Op in keyof operations]: operations[Op] extends GetOperation ? Op : never;
}[keyof operations];
/** The path whose GET is `Op`, as the document writes it. */
type PathOf<Op extends OperationId> = {
  [P in keyof paths]: paths[P]["get"] extends operations[Op] ? P : never;
}[keyof paths];
/** The query parameters of an operation. */
export type QueryOf<Op extends OperationId> = operations[Op]["parameters"]["query"];
/** The 200 body of an operation, as the document declares it. */
export type PageOf<Op extends OperationId> = operations[Op]["responses"][200]["content"]["application/json"];

/** `envelope` is read in any case. */
export type Envelope = "a" | "b" | "A" | "B";
/** Of an operation's pages (envelope A or B), the one `envelope` selects. */
export type EnvelopePage<P, E extends Envelope> = E extends "b" | "B"
  ? Exclude<P, { pagination: unknown }>
  : Extract<P, { pagination: unknown }>;

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
          : P extends { states: (infer I)[] }
            ? I
            : P extends { changes: (infer I)[] }
              ? I
              : P extends { filings: (infer I)[] }
                ? I
                : never;

/** Where each operation lives (its path in the document) and which field holds its list. */
const OPERATIONS = {
  listRecentFilingsByState: { path: "/filings/recent-by-state", list: "ucc_liens" },
  listRecentFilingsByPostalCode: { path: "/filings/recent-by-postal-code", list: "ucc_liens" },
  listRecentFilingsBySecuredParty: { path: "/secureds/recent-by-secured-party", list: "ucc_liens" },
  listRecentlyTerminatedFilings: { path: "/filings/recently-terminated", list: "terminated_filings" },
  searchDebtorFilings: { path: "/debtors/search", list: "ucc_liens" },
  listDebtorAddresses: { path: "/debtors/addresses", list: "addresses" },
  listAssociatedDebtors: { path: "/debtors/associated/", list: "associated_debtors" },
  searchSimilarDebtors: { path: "/debtors/search-similar", list: "similar_debtors" },
  lookupFiling: { path: "/filings", list: "ucc_liens" },
  listChanges: { path: "/filings/changes", list: "changes" },
  listLapsingFilings: { path: "/filings/lapsing", list: "ucc_liens" },
  listStates: { path: "/states", list: "states" },
  getLienReport: { path: "/debtors/report", list: "filings" },
} as const satisfies { [Op in OperationId]: { path: PathOf<Op>; list: string } };

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
  signal?: AbortSignal | undefined;
  /** Overrides the client's `timeoutMs` for each attempt of this call. */
  timeoutMs?: number | undefined;
}

/** What an answer's headers said, beside its body. */
export interface AnswerInfo {
  /** The answer's `ETag`: pass it as `ifNoneMatch` to `answer()` to revalidate the page. */
  etag: string | null;
  /** `x-request-id`, also the body's `response_metadata.request_id`: quote it when reporting a problem. */
  requestId: string | null;
  /** `x-d1-bookmark`: the database state the answer was read from (see `bookmark` on the client). */
  bookmark: string | null;
  /** `x-cache`: whether the answer came from the edge cache. */
  cache: "hit" | "miss" | null;
  /**
   * `Retry-After` in seconds, if the answer carried one. The API sends it
   * with 429 and 503 (retried, then thrown as a LienLookupError with the same
   * `retryAfter`); no other rate-limit header is sent.
   */
  retryAfter: number | null;
  /** Every header of the answer, `Server-Timing` and `Cache-Control` among them. */
  headers: Headers;
}

/** A page and what its answer said. */
export interface Fresh<P> extends AnswerInfo {
  status: 200;
  notModified: false;
  page: P;
}

/** A revalidation's answer while the page is unchanged: 304, no body. */
export interface NotModified extends AnswerInfo {
  status: 304;
  notModified: true;
}

/**
 * One page when awaited; every page from the asked one on when iterated
 * (`for await (const page of ...)`); every item of those pages with
 * `.items()`; pages with their answers' headers with `.answer()` and
 * `.answers()`. Nothing is fetched until one of these is used.
 */
export interface Paged<P> extends PromiseLike<P>, AsyncIterable<P> {
  items(): AsyncIterable<ItemOf<P>>;
  /** Each page from the asked one on, with its answer's headers. */
  answers(): AsyncIterable<Fresh<P>>;
  /** The page asked for, with its answer's headers. */
  answer(): Promise<Fresh<P>>;
  /**
   * The page asked for only if it changed since the answer whose ETag is
   * `ifNoneMatch`: a NotModified (no body) while it has not.
   */
  answer(options: { ifNoneMatch: string }): Promise<Fresh<P> | NotModified>;
}

type Query = Record<string, string | number | readonly string[] | undefined>;

/** One page of the change feed, as changes() hands it over. */
export interface ChangeBatch {
  changes: Change[];
  /** Where to resume after this page: keep it once its changes are handled. */
  cursor: string;
  /** Whether more changes were ready when this page was read. */
  hasMore: boolean;
}

/** What watch() watches; every list left out (or empty) matches everything. */
export interface WatchOptions {
  /** Two-letter state codes. */
  states?: readonly string[] | undefined;
  /** Debtor names, matched as /debtors/search matches them (UCC standard search logic). */
  debtors?: readonly string[] | undefined;
  /** Secured party names, matched as whole leading words. */
  securedParties?: readonly string[] | undefined;
  /** Change types (`filing.created`, ...), filtered by the server. */
  types?: readonly ChangeType[] | undefined;
  /** Where to start: a cursor kept from an earlier run; default the oldest change kept. */
  cursor?: string | undefined;
  /** Called with the cursor after each page's matching changes were handed over: persist it. */
  onCursor?: ((cursor: string) => void | Promise<void>) | undefined;
  /** How long to wait between polls once caught up, unless the server asks for longer. Default 60,000 ms. */
  pollIntervalMs?: number | undefined;
  /** Ends the watch. */
  signal?: AbortSignal | undefined;
}

/** Ids of changes already handed over, kept to drop a change seen twice (after a retry). */
const SEEN_IDS = 10_000;

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

function infoOf(res: Response): AnswerInfo {
  const cache = res.headers.get("x-cache");
  return {
    etag: res.headers.get("etag"),
    requestId: res.headers.get("x-request-id"),
    bookmark: res.headers.get(BOOKMARK_HEADER),
    cache: cache === "hit" || cache === "miss" ? cache : null,
    retryAfter: retryAfterSeconds(res.headers.get("retry-after")),
    headers: res.headers,
  };
}

/** The cursor of the page after `page` (envelope A's `pagination`, B's `response_metadata`); none on the last. */
function nextCursorOf(page: unknown): string | undefined {
  const p = page as {
    pagination?: { next_cursor?: string };
    response_metadata?: { next_cursor?: string };
    next_cursor?: string;
  };
  return p.pagination?.next_cursor ?? p.response_metadata?.next_cursor ?? p.next_cursor;
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
  listRecentFilingsByState(
    query: QueryOf<"listRecentFilingsByState">,
    options?: CallOptions,
  ): Paged<PageOf<"listRecentFilingsByState">> {
    return this.#paged("listRecentFilingsByState", query, options);
  }

  /** Recent filings with a debtor in a ZIP code; envelope A, or B with `envelope: "b"`. */
  listRecentFilingsByPostalCode<E extends Envelope = "a">(
    query: QueryOf<"listRecentFilingsByPostalCode"> & { envelope?: E },
    options?: CallOptions,
  ): Paged<EnvelopePage<PageOf<"listRecentFilingsByPostalCode">, E>> {
    return this.#paged("listRecentFilingsByPostalCode", query, options);
  }

  /** Recent filings by secured party (lender) in a state; envelope B with amendments, or A with `envelope: "a"`. */
  listRecentFilingsBySecuredParty<E extends Envelope = "b">(
    query: QueryOf<"listRecentFilingsBySecuredParty"> & { envelope?: E },
    options?: CallOptions,
  ): Paged<EnvelopePage<PageOf<"listRecentFilingsBySecuredParty">, E>> {
    return this.#paged("listRecentFilingsBySecuredParty", query, options);
  }

  /** Filings terminated in the last 90 days in a state. */
  listRecentlyTerminatedFilings(
    query: QueryOf<"listRecentlyTerminatedFilings">,
    options?: CallOptions,
  ): Paged<PageOf<"listRecentlyTerminatedFilings">> {
    return this.#paged("listRecentlyTerminatedFilings", query, options);
  }

  /** Every filing of a debtor (exact name, UCC search logic) in a state. */
  searchDebtorFilings(
    query: QueryOf<"searchDebtorFilings">,
    options?: CallOptions,
  ): Paged<PageOf<"searchDebtorFilings">> {
    return this.#paged("searchDebtorFilings", query, options);
  }

  /** The addresses a debtor has filed under, in any state. */
  listDebtorAddresses(
    query: QueryOf<"listDebtorAddresses">,
    options?: CallOptions,
  ): Paged<PageOf<"listDebtorAddresses">> {
    return this.#paged("listDebtorAddresses", query, options);
  }

  /** A debtor's co-borrowers in a state. */
  listAssociatedDebtors(
    query: QueryOf<"listAssociatedDebtors">,
    options?: CallOptions,
  ): Paged<PageOf<"listAssociatedDebtors">> {
    return this.#paged("listAssociatedDebtors", query, options);
  }

  /** Debtor names similar to a name, ranked by score. */
  searchSimilarDebtors(
    query: QueryOf<"searchSimilarDebtors">,
    options?: CallOptions,
  ): Paged<PageOf<"searchSimilarDebtors">> {
    return this.#paged("searchSimilarDebtors", query, options);
  }

  /** A filing by its initial financing number (every state's, without `state`), as the office recorded it; needs no key. */
  lookupFiling(query: QueryOf<"lookupFiling">, options?: CallOptions): Paged<PageOf<"lookupFiling">> {
    return this.#paged("lookupFiling", query, options);
  }

  /** Live filings lapsing in a window, soonest first; envelope B, or A with `envelope: "a"`. */
  listLapsingFilings<E extends Envelope = "b">(
    query: QueryOf<"listLapsingFilings"> & { envelope?: E },
    options?: CallOptions,
  ): Paged<EnvelopePage<PageOf<"listLapsingFilings">, E>> {
    return this.#paged("listLapsingFilings", query, options);
  }

  /** Every state the service holds, and how current its data is. */
  listStates(options?: CallOptions): Paged<StatePage> {
    return this.#paged("listStates", {}, options);
  }

  /**
   * The lien report of a debtor: its filings in every state held (or in
   * `state`), oldest first, with a summary, each state's records-through
   * date and a change-feed cursor to monitor from. The pages of one report
   * share its `id` and summary; `items()` walks every filing. JSON only
   * (`format: "csv"` is for other clients).
   */
  getLienReport(
    query: Omit<QueryOf<"getLienReport">, "format">,
    options?: CallOptions,
  ): Paged<PageOf<"getLienReport">> {
    return this.#paged("getLienReport", query, options);
  }

  /** One page of the change feed (see changes() and watch() to follow it). */
  async listChanges(query: QueryOf<"listChanges"> = {}, options?: CallOptions): Promise<ChangePage> {
    return ((await this.#get<ChangePage>("listChanges", query ?? {}, options ?? {})) as Fresh<ChangePage>).page;
  }

  /**
   * The change feed from `query.cursor` (or `since`, or the oldest change
   * kept) until it is caught up, a page at a time, each with the cursor to
   * resume from: keep it once the page's changes are handled, and start the
   * next walk from it.
   */
  async *changes(query: QueryOf<"listChanges"> = {}, options: CallOptions = {}): AsyncGenerator<ChangeBatch> {
    let next: Query = { ...query };
    for (;;) {
      const page = ((await this.#get<ChangePage>("listChanges", next, options)) as Fresh<ChangePage>).page;
      const { next_cursor: cursor, has_more: hasMore } = page.response_metadata;
      yield { changes: page.changes, cursor, hasMore };
      if (!hasMore) return;
      // A cursor and `since` do not go together: the cursor now says where to resume.
      next = { ...query, since: undefined, cursor };
    }
  }

  /**
   * Polls the change feed for ever (until `signal` aborts), yielding each
   * change that concerns the watchlist once: a change of a filing naming
   * one of `debtors` (by the server's exact-name rule) or `securedParties`
   * (whole leading words), in one of `states`, of one of `types`. Between
   * polls, once caught up, it waits `pollIntervalMs` or the `Retry-After` the
   * server sent, whichever is longer, and revalidates with the last ETag, so
   * a poll that finds nothing costs a 304.
   */
  async *watch(options: WatchOptions = {}): AsyncGenerator<Change> {
    const states = new Set((options.states ?? []).map((s) => s.trim().toUpperCase()));
    const debtors = options.debtors ?? [];
    const lenders = options.securedParties ?? [];
    const concerns = (change: Change) => {
      if (states.size > 0 && !states.has(change.jurisdiction_state)) return false;
      const parties = change.lien.involved_parties;
      const byDebtor =
        debtors.length > 0 &&
        parties.debtor_parties.some((d) =>
          debtors.some((q) => findsDebtor(q, d.name, d.type === "Individual" ? "Individual" : "Organization")),
        );
      const byLender =
        lenders.length > 0 && parties.secured_parties.some((s) => lenders.some((q) => findsSecuredParty(q, s.name)));
      return (debtors.length === 0 && lenders.length === 0) || byDebtor || byLender;
    };
    const seen = new Set<string>();
    let cursor = options.cursor;
    let etag: { cursor: string | undefined; tag: string } | undefined;
    const call: CallOptions = { signal: options.signal };
    for (;;) {
      options.signal?.throwIfAborted();
      const query: Query = {
        cursor,
        types: options.types,
        // One state is filtered by the server; several, here.
        state: states.size === 1 ? [...states][0] : undefined,
      };
      const revalidate = etag && etag.cursor === cursor ? etag.tag : undefined;
      const answer = await this.#get<ChangePage>("listChanges", query, call, revalidate);
      let caughtUp = true;
      if (!answer.notModified) {
        const { page } = answer;
        for (const change of page.changes) {
          if (seen.has(change.id)) continue;
          seen.add(change.id);
          if (seen.size > SEEN_IDS) seen.delete(seen.values().next().value as string);
          if (concerns(change)) yield change;
        }
        cursor = page.response_metadata.next_cursor;
        await options.onCursor?.(cursor);
        caughtUp = !page.response_metadata.has_more;
        etag = answer.etag ? { cursor, tag: answer.etag } : undefined;
      }
      if (caughtUp) {
        const wait = Math.max(options.pollIntervalMs ?? 60_000, (answer.retryAfter ?? 0) * 1000);
        await this.#sleep(wait, options.signal);
      }
    }
  }

  #paged<P>(operation: OperationId, query: Query, options: CallOptions = {}): Paged<P> {
    const { list } = OPERATIONS[operation];
    const fetchPage = (at: Query, ifNoneMatch?: string) =>
      this.#get<P>(operation, { ...query, ...at }, options, ifNoneMatch);
    let first: Promise<Fresh<P>> | undefined;
    const getFirst = () => {
      first ??= fetchPage({}) as Promise<Fresh<P>>;
      return first;
    };
    async function* answers(): AsyncGenerator<Fresh<P>> {
      let answer = await getFirst();
      yield answer;
      // Each page names the next by its cursor: the server reads for it what it reads for page 1.
      for (let cursor = nextCursorOf(answer.page); cursor !== undefined; cursor = nextCursorOf(answer.page)) {
        answer = (await fetchPage({ page: undefined, cursor })) as Fresh<P>;
        yield answer;
      }
    }
    async function* pages(): AsyncGenerator<P> {
      for await (const answer of answers()) yield answer.page;
    }
    function answer(): Promise<Fresh<P>>;
    function answer(conditional: { ifNoneMatch: string }): Promise<Fresh<P> | NotModified>;
    function answer(conditional?: { ifNoneMatch: string }): Promise<Fresh<P> | NotModified> {
      return conditional ? fetchPage({}, conditional.ifNoneMatch) : getFirst();
    }
    return {
      // biome-ignore lint/suspicious/noThenProperty: a Paged is awaitable by design (one page).
      then: (onFulfilled, onRejected) =>
        getFirst()
          .then((a) => a.page)
          .then(onFulfilled, onRejected),
      [Symbol.asyncIterator]: pages,
      answers,
      answer,
      async *items() {
        for await (const page of pages()) yield* (page as Record<string, ItemOf<P>[]>)[list] ?? [];
      },
    };
  }

  /** One page, or (for a conditional request whose tag still matches) "not modified". */
  async #get<P>(
    operation: OperationId,
    query: Query,
    options: CallOptions,
    ifNoneMatch?: string,
  ): Promise<Fresh<P> | NotModified> {
    const url = new URL(this.#baseUrl + OPERATIONS[operation].path);
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      // Lists (industry) are comma-separated, as the document's `explode: false` says.
      url.searchParams.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    const res = await this.#send(url, options, ifNoneMatch);
    if (res.status === 304 && ifNoneMatch !== undefined) {
      await res.body?.cancel();
      return { status: 304, notModified: true, ...infoOf(res) };
    }
    if (res.status !== 200) throw await errorOf(res, retryAfterSeconds(res.headers.get("retry-after")));
    let page: P;
    try {
      page = (await res.json()) as P;
    } catch {
      throw new LienLookupError({
        status: res.status,
        code: "unexpected_response",
        message: "The server answered 200 with a body that is not JSON.",
        requestId: res.headers.get("x-request-id"),
        retryAfter: null,
      });
    }
    return { status: 200, notModified: false, page, ...infoOf(res) };
  }

  /** One GET, retried on 429, 503 and network failures; remembers the answer's bookmark. */
  async #send(url: URL, { signal, timeoutMs = this.#timeoutMs }: CallOptions, ifNoneMatch?: string): Promise<Response> {
    const { retries, baseDelayMs, maxDelayMs } = this.#retry;
    for (let attempt = 0; ; attempt++) {
      signal?.throwIfAborted();
      const headers = new Headers({ accept: "application/json" });
      if (this.#apiKey !== undefined) headers.set("x-api-key", this.#apiKey);
      if (this.#consistentReads && this.#bookmark) headers.set(BOOKMARK_HEADER, this.#bookmark);
      if (ifNoneMatch !== undefined) headers.set("if-none-match", ifNoneMatch);
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
