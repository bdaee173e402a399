/**
 * What the OpenAPI document says beyond the zod schemas: the headers every
 * response carries, the two request headers that change an answer, and the
 * error responses, each with an example of every code it can carry. They are
 * components, referenced by every operation (src/routes/define.ts), so a
 * generated client has one name for each.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { BOOKMARK_HEADER, BOOKMARK_PATTERN } from "../http/bookmark.ts";
import { ANSWER_VARY, CACHE_SECONDS } from "../http/caching.ts";
import type { AppEnv } from "../http/context.ts";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../http/errorCodes.ts";
import type { ErrorDetail } from "../http/errors.ts";
import { errorBody } from "../http/responses.ts";

type OpenAPIRegistry = OpenAPIHono<AppEnv>["openAPIRegistry"];

const ref = (kind: "headers" | "parameters" | "responses" | "examples", name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Bookmarks of two shards (src/http/bookmark.ts); one shard's is a plain D1 bookmark. */
const BOOKMARK_EXAMPLE =
  "DB=00000001-00000002-00004e2f-0a83ea2fceebc654de0640c422be4653,DB_2=00000001-00000005-00000011-9c1f0be27d54a6e3b8f2c40d15e6a7b9";

interface HeaderSchema {
  type: "string" | "integer";
  format?: string;
  pattern?: string;
  enum?: string[];
  minimum?: number;
}

function header(description: string, schema: HeaderSchema, more: { required?: boolean; example?: unknown } = {}) {
  return { description, schema, ...more };
}

const HEADERS = {
  RequestId: header(
    "A fresh id for this request, also in `response_metadata.request_id`; quote it when reporting a problem.",
    { type: "string", format: "uuid" },
    { required: true },
  ),
  ETag: header(
    "Weak tag of the data in the body (not its request id or timestamp). Send it back in `If-None-Match` to get a 304 while the data is unchanged.",
    { type: "string", pattern: '^W/"[0-9a-f]{32}"$' },
    { required: true, example: 'W/"3f0c9a1d2b7e4c55a0d1e2f3a4b5c6d7"' },
  ),
  CacheControl: header(
    `\`private, max-age=${CACHE_SECONDS}\` on keyed lookups, \`public, max-age=${CACHE_SECONDS}\` on the public one, \`private, no-cache\` on the change feed (always revalidate), \`no-store\` on errors.`,
    { type: "string" },
    { required: true, example: `private, max-age=${CACHE_SECONDS}` },
  ),
  Vary: header(
    "The request headers an answer depends on.",
    { type: "string" },
    { required: true, example: ANSWER_VARY },
  ),
  D1Bookmark: header(
    `The database state this answer was read from, on each database (shard) it read: comma-separated \`SHARD=BOOKMARK\` entries, or one plain D1 bookmark when the service runs on one database. Opaque: send it back in \`${BOOKMARK_HEADER}\` and the next answer is read, on every database it reads, from a state at least as new.`,
    { type: "string", pattern: BOOKMARK_PATTERN },
    { example: BOOKMARK_EXAMPLE },
  ),
  ServerTiming: header(
    'Where the time went: `d1;dur=…;desc="N batch, M rows read"` when the answer was read from the database (with `, S shards, at most R on one` when it read several databases at once), `cache;dur=…;desc="hit"` when it came from the edge cache.',
    { type: "string" },
    { example: 'd1;dur=12;desc="2 batch, 14 rows read"' },
  ),
  XCache: header(
    "`hit` when the answer came from the edge cache, `miss` when it was read from the database.",
    { type: "string", enum: ["hit", "miss"] },
    { required: true },
  ),
  RetryAfter: header(
    "Seconds to wait before retrying.",
    { type: "integer", minimum: 1 },
    { required: true, example: 60 },
  ),
  WWWAuthenticate: header(
    "The scheme to authenticate with: the key in the `x-api-key` header.",
    { type: "string" },
    { required: true, example: 'ApiKey header="x-api-key"' },
  ),
  Allow: header("On a 405: the methods the path allows.", { type: "string" }, { example: "GET, HEAD, OPTIONS" }),
  ReportCacheControl: header(
    "`private, no-store`: a report is made for its moment (its `generated_at`), never kept.",
    { type: "string" },
    { required: true, example: "private, no-store" },
  ),
  ReportId: header("The report's `id` (the same on each of its pages).", { type: "string" }, { required: true }),
  ReportGeneratedAt: header(
    "The report's `generated_at`.",
    { type: "string", format: "date-time" },
    { required: true },
  ),
  Link: header(
    'On a CSV page with another after it: `<URL>; rel="next"`, the next page\'s address.',
    { type: "string" },
    { example: '</debtors/report?name=Harbor%20Manufacturing&format=csv&cursor=eyJ...>; rel="next"' },
  ),
};

type HeaderName = keyof typeof HEADERS;

function headers(names: Record<string, HeaderName>) {
  return Object.fromEntries(Object.entries(names).map(([header, name]) => [header, ref("headers", name)]));
}

/** Headers of a successful (200) or not-modified (304) answer. */
export const successHeaders = headers({
  "x-request-id": "RequestId",
  ETag: "ETag",
  "Cache-Control": "CacheControl",
  Vary: "Vary",
  "x-cache": "XCache",
  [BOOKMARK_HEADER]: "D1Bookmark",
  "Server-Timing": "ServerTiming",
});

/** Headers of a lien report (src/report/route.ts): never cached, its id and time, and a CSV page's next link. */
export const reportHeaders = headers({
  "x-request-id": "RequestId",
  "Cache-Control": "ReportCacheControl",
  Vary: "Vary",
  "x-report-id": "ReportId",
  "x-report-generated-at": "ReportGeneratedAt",
  Link: "Link",
  [BOOKMARK_HEADER]: "D1Bookmark",
  "Server-Timing": "ServerTiming",
});

/** The request header of a read from a database state at least as new as the client's (docs/read-replication.md). */
export const bookmarkRequestHeader = ref("parameters", "D1Bookmark");

/** The request headers every lookup reads. */
export const requestHeaders = [ref("parameters", "IfNoneMatch"), bookmarkRequestHeader];

const PARAMETERS = {
  IfNoneMatch: {
    name: "If-None-Match",
    in: "header",
    required: false,
    description:
      'ETags of answers you hold, or `*`. If one matches the current answer\'s tag (weak comparison, RFC 9110: `W/"x"` and `"x"` match), the answer is a 304 with no body.',
    schema: { type: "string" },
  },
  D1Bookmark: {
    name: BOOKMARK_HEADER,
    in: "header",
    required: false,
    description: `The \`${BOOKMARK_HEADER}\` of an earlier answer, as sent: this one is read, on every database (shard) it reads, from a state at least as new, so a paged walk sees one consistent view. Entries of shards the service no longer has are ignored. Malformed: 400 naming the header.`,
    schema: { type: "string", pattern: BOOKMARK_PATTERN },
  },
} as const;

// Example bodies: the server's own messages, with an illustrative request id and time.
const metadata = { timestamp: "2026-09-08T14:03:11Z", request_id: "0b6f4c8e-2d1a-4f7b-9c3e-5a8d7e6f1b2c" };

/** One example per code, each under the code's name in PascalCase (invalid_parameter: InvalidParameter). */
const EXAMPLES = {
  invalid_parameter: {
    summary: "A missing or invalid parameter",
    message: "Invalid query parameter: state.",
    details: [{ parameter: "state", message: "must be a two-letter US state or territory code, such as CA" }],
  },
  missing_api_key: { summary: "No key sent", message: "Send your API key in the x-api-key header." },
  invalid_api_key: { summary: "Unknown, revoked or expired key", message: "The API key is not valid." },
  not_found: { summary: "No such path", message: "No such endpoint." },
  method_not_allowed: {
    summary: "A method other than GET, HEAD or OPTIONS",
    message: "Use GET; this endpoint allows GET, HEAD, OPTIONS.",
  },
  cursor_expired: {
    summary: "A cursor older than the change feed keeps",
    message:
      "This cursor points at changes the feed no longer keeps (it keeps 90 days). Start again with since (your last recorded_at) or without a cursor, and reconcile with the lookups.",
  },
  rate_limited: {
    summary: "Over the request rate",
    message: "This key's standard request rate is exceeded; retry later.",
  },
  internal_error: { summary: "An unexpected fault", message: "An internal error occurred." },
  service_unavailable: {
    summary: "The database or key store is down",
    message: "The database is temporarily unavailable; retry shortly.",
  },
} satisfies Record<ErrorCode, { summary: string; message: string; details?: ErrorDetail[] }>;

const exampleName = (code: ErrorCode) => code.replace(/(?:^|_)([a-z])/g, (_, letter: string) => letter.toUpperCase());

function exampleOf(code: ErrorCode) {
  const { summary, ...error } = EXAMPLES[code];
  return { summary, value: { error: { code, ...error }, response_metadata: metadata } };
}

function errorResponse(description: string, codes: ErrorCode[], extraHeaders: Record<string, HeaderName> = {}) {
  return {
    description,
    headers: headers({ "x-request-id": "RequestId", "Cache-Control": "CacheControl", ...extraHeaders }),
    content: {
      "application/json": {
        schema: { $ref: "#/components/schemas/ErrorBody" },
        examples: Object.fromEntries(codes.map((code) => [code, ref("examples", exampleName(code))])),
      },
    },
  };
}

const RESPONSES = {
  InvalidParameter: errorResponse("A query parameter or `x-d1-bookmark` is invalid; `details` names each one.", [
    "invalid_parameter",
  ]),
  Unauthorized: errorResponse(
    "The `x-api-key` header is missing, or the key is unknown, revoked or expired.",
    ["missing_api_key", "invalid_api_key"],
    { "WWW-Authenticate": "WWWAuthenticate" },
  ),
  RateLimited: errorResponse(
    "Too many requests (per key, or per client address for the public lookup and for failed key lookups); retry after `Retry-After` seconds.",
    ["rate_limited"],
    { "Retry-After": "RetryAfter" },
  ),
  CursorExpired: errorResponse("The cursor points at changes past the feed's retention: start again.", [
    "cursor_expired",
  ]),
  InternalError: errorResponse("An unexpected error; the request id identifies it in the logs.", ["internal_error"]),
  ServiceUnavailable: errorResponse(
    "The database or key store is unavailable; retry after `Retry-After` seconds.",
    ["service_unavailable"],
    { "Retry-After": "RetryAfter" },
  ),
  OtherError: errorResponse(
    "Any other error: 404 `not_found` for a path that does not exist, 405 `method_not_allowed` (with `Allow`) for a method other than GET, HEAD or OPTIONS.",
    ["not_found", "method_not_allowed"],
    { Allow: "Allow" },
  ),
} as const;

/** Response headers a cross-origin script may read without being told (the Fetch standard's CORS-safelisted ones). */
const SAFELISTED = new Set([
  "cache-control",
  "content-language",
  "content-length",
  "content-type",
  "expires",
  "last-modified",
  "pragma",
]);

/**
 * Every other response header this document declares, for Access-Control-Expose-Headers: a browser
 * client reads what the document promises it (the request id, ETag, bookmarks, a report's id and a CSV
 * page's Link, Retry-After), not only what a server-side one sees.
 */
export const EXPOSED_HEADERS = [
  ...new Set(
    [successHeaders, reportHeaders, ...Object.values(RESPONSES).map((response) => response.headers)].flatMap(
      (declared) => Object.keys(declared),
    ),
  ),
].filter((name) => !SAFELISTED.has(name.toLowerCase()));

/** The error statuses of a lookup, each its codes' status (ERROR_STATUS), as references to the shared responses. */
export const errorResponses = {
  [ERROR_STATUS.invalid_parameter]: ref("responses", "InvalidParameter"),
  [ERROR_STATUS.invalid_api_key]: ref("responses", "Unauthorized"),
  [ERROR_STATUS.rate_limited]: ref("responses", "RateLimited"),
  [ERROR_STATUS.internal_error]: ref("responses", "InternalError"),
  [ERROR_STATUS.service_unavailable]: ref("responses", "ServiceUnavailable"),
  default: ref("responses", "OtherError"),
} as const;

/** The 410 of the change feed, for a cursor past retention. */
export const cursorExpiredResponse = { [ERROR_STATUS.cursor_expired]: ref("responses", "CursorExpired") } as const;

/** Puts the components above into the document. */
export function registerContract(registry: OpenAPIRegistry): void {
  // Referenced only from the raw response objects below, so registered by hand.
  registry.register("ErrorBody", errorBody);
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent("headers", name, header);
  for (const [name, parameter] of Object.entries(PARAMETERS)) registry.registerComponent("parameters", name, parameter);
  for (const code of ERROR_CODES) registry.registerComponent("examples", exampleName(code), exampleOf(code));
  for (const [name, response] of Object.entries(RESPONSES)) registry.registerComponent("responses", name, response);
}
