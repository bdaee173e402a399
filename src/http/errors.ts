/**
 * The one error shape of the API, and the handlers that produce it.
 * Every failure leaves as
 *   {"error": {"code", "message", "details"?}, "response_metadata": {...}}
 * with no stack trace, SQL or key, whatever went wrong.
 */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ZodError, z } from "zod";
import type { AppEnv } from "./context.ts";
import { log, responseMetadata } from "./context.ts";
import type { errorBody } from "./responses.ts";

export type ErrorCode = z.infer<typeof errorBody>["error"]["code"];

export interface ErrorDetail {
  parameter: string;
  message: string;
}

/** Seconds a client should wait before retrying after a 503. */
const RETRY_AFTER_SECONDS = 5;

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    status: ContentfulStatusCode,
    code: ErrorCode,
    message: string,
    details?: ErrorDetail[],
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

/** A dependency (D1 or KV) failed: the client may retry shortly. */
export function unavailable(dependency: "database" | "key store"): ApiError {
  return new ApiError(
    503,
    "service_unavailable",
    `The ${dependency} is temporarily unavailable; retry shortly.`,
    undefined,
    { "Retry-After": String(RETRY_AFTER_SECONDS) },
  );
}

/** Largest error body, in bytes of JSON, whatever the request held. */
export const MAX_ERROR_BODY_BYTES = 2048;
const MAX_MESSAGE_CHARS = 300;
const MAX_DETAILS = 10;
const MAX_PARAMETER_CHARS = 64;
const MAX_DETAIL_CHARS = 800;

/** `text` cut to `max` characters (never inside a surrogate pair), marked with an ellipsis. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = /[\uD800-\uDBFF]$/.test(text.slice(0, max)) ? max - 1 : max;
  return `${text.slice(0, cut)}…`;
}

/**
 * The one place an error becomes a response. Whatever an error carries, its
 * body stays within MAX_ERROR_BODY_BYTES: each text is clipped, and should
 * the whole still be too large, trailing details are left out.
 */
export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  // Errors are answers about this request only: never cache them.
  c.header("Cache-Control", "no-store");
  const details = err.details
    ?.slice(0, MAX_DETAILS)
    .map((d) => ({ parameter: clip(d.parameter, MAX_PARAMETER_CHARS), message: clip(d.message, MAX_DETAIL_CHARS) }));
  const serialize = () =>
    JSON.stringify({
      error: { code: err.code, message: clip(err.message, MAX_MESSAGE_CHARS), ...(details ? { details } : {}) },
      response_metadata: responseMetadata(c),
    });
  let body = serialize();
  while (details && details.length > 0 && utf8Length(body) > MAX_ERROR_BODY_BYTES) {
    details.pop();
    body = serialize();
  }
  c.header("Content-Type", "application/json");
  return c.body(body, err.status);
}

function utf8Length(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/**
 * Turns a failed query-parameter validation into a 400 with one detail per
 * bad parameter (its messages joined, should a parameter fail more than one
 * check).
 */
export function invalidParameters(error: ZodError): ApiError {
  const messages = new Map<string, Set<string>>();
  for (const issue of error.issues) {
    const parameter = String(issue.path[0] ?? "query");
    const seen = messages.get(parameter) ?? new Set<string>();
    seen.add(issue.message);
    messages.set(parameter, seen);
  }
  const details = [...messages].map(([parameter, m]) => ({ parameter, message: [...m].join("; ") }));
  const names = [...messages.keys()];
  return new ApiError(
    400,
    "invalid_parameter",
    `Invalid query parameter${names.length > 1 ? "s" : ""}: ${names.join(", ")}.`,
    details,
  );
}

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  // Unexpected: log the kind of failure only; messages may carry SQL or input.
  log(c, "error", { event: "unhandled_error", error: err.name });
  return errorResponse(c, new ApiError(500, "internal_error", "An internal error occurred."));
};

export const notFound: NotFoundHandler<AppEnv> = (c) =>
  errorResponse(c, new ApiError(404, "not_found", "No such endpoint."));
