/**
 * The one error shape of the API, and the handlers that produce it.
 * Every failure leaves as
 *   {"error": {"code", "message", "details"?}, "response_metadata": {...}}
 * with no stack trace, SQL or key, whatever went wrong.
 */
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import { clip } from "../domain/cut.ts";
import { isoSeconds } from "../domain/time.ts";
import type { AppEnv } from "./context.ts";
import { log, responseMetadata } from "./context.ts";
import { codesWithStatus, ERROR_STATUS, type ErrorCode } from "./errorCodes.ts";

export interface ErrorDetail {
  parameter: string;
  message: string;
}

/** Seconds a client should wait before retrying after a 503. */
const RETRY_AFTER_SECONDS = 5;

interface ApiErrorOptions {
  /** One entry per bad parameter (or request header). */
  details?: ErrorDetail[];
  /** Response headers the error carries, such as Retry-After or Allow. */
  headers?: Record<string, string>;
}

/**
 * An error the API answers with: its status is its code's (ERROR_STATUS).
 * An HTTPException, so Hono's own handling (where `onError` below is not in
 * the chain) still answers with this status, body and headers.
 */
export class ApiError extends HTTPException {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(ERROR_STATUS[code], { message });
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The response without a request context: a fresh request id and time. */
  override getResponse(): Response {
    const body = errorBodyText(this, { timestamp: isoSeconds(new Date()), request_id: crypto.randomUUID() });
    return new Response(body, { status: this.status, headers: { ...this.headers, ...ERROR_HEADERS } });
  }
}

/** A dependency (D1 or KV) failed: the client may retry shortly. */
export function unavailable(dependency: "database" | "key store"): ApiError {
  return new ApiError("service_unavailable", `The ${dependency} is temporarily unavailable; retry shortly.`, {
    headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
  });
}

/** Largest error body, in bytes of JSON, whatever the request held. */
export const MAX_ERROR_BODY_BYTES = 2048;
const MAX_MESSAGE_CHARS = 300;
const MAX_DETAILS = 10;
const MAX_PARAMETER_CHARS = 64;
const MAX_DETAIL_CHARS = 800;

// Errors are answers about this request only: never cache them.
const ERROR_HEADERS = { "Cache-Control": "no-store", "Content-Type": "application/json" };

/**
 * The one place an error becomes a response. Whatever an error carries, its
 * body stays within MAX_ERROR_BODY_BYTES: each text is clipped, and should
 * the whole still be too large, trailing details are left out.
 */
export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  c.header("Cache-Control", ERROR_HEADERS["Cache-Control"]);
  const body = errorBodyText(err, responseMetadata(c));
  c.header("Content-Type", ERROR_HEADERS["Content-Type"]);
  return c.body(body, err.status);
}

function errorBodyText(err: ApiError, metadata: { timestamp: string; request_id: string }): string {
  const details = err.details
    ?.slice(0, MAX_DETAILS)
    .map((d) => ({ parameter: clip(d.parameter, MAX_PARAMETER_CHARS), message: clip(d.message, MAX_DETAIL_CHARS) }));
  const serialize = () =>
    JSON.stringify({
      error: { code: err.code, message: clip(err.message, MAX_MESSAGE_CHARS), ...(details ? { details } : {}) },
      response_metadata: metadata,
    });
  let body = serialize();
  while (details && details.length > 0 && utf8Length(body) > MAX_ERROR_BODY_BYTES) {
    details.pop();
    body = serialize();
  }
  return body;
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
  return badParameters([...messages].map(([parameter, m]) => ({ parameter, message: [...m].join("; ") })));
}

/** A 400 naming each bad query parameter, and why. */
export function badParameters(details: { parameter: string; message: string }[]): ApiError {
  const names = details.map((d) => d.parameter);
  return new ApiError(
    "invalid_parameter",
    `Invalid query parameter${names.length > 1 ? "s" : ""}: ${names.join(", ")}.`,
    { details },
  );
}

/** Headers of a foreign HTTPException's own response that the client needs. */
const CARRIED_HEADERS = ["WWW-Authenticate", "Retry-After", "Allow"];

/**
 * An HTTPException some Hono middleware threw, as an ApiError: the code
 * answering with its status (the first, where several do). A status no code
 * answers with has no place in the contract: it is logged and becomes a 500
 * until a code for it is added to ERROR_STATUS.
 */
function fromHttpException(c: Context<AppEnv>, err: HTTPException): ApiError {
  const code = codesWithStatus(err.status)[0];
  if (!code) {
    log(c, "error", { event: "unmapped_http_exception", status: err.status });
    return new ApiError("internal_error", "An internal error occurred.");
  }
  const headers: Record<string, string> = {};
  for (const name of CARRIED_HEADERS) {
    const value = err.res?.headers.get(name);
    if (value) headers[name] = value;
  }
  return new ApiError(code, err.message || `The request was refused (HTTP ${err.status}).`, { headers });
}

export const onError: ErrorHandler<AppEnv> = (err, c) => {
  if (err instanceof ApiError) return errorResponse(c, err);
  if (err instanceof HTTPException) return errorResponse(c, fromHttpException(c, err));
  // Unexpected: log the kind of failure only; messages may carry SQL or input.
  log(c, "error", { event: "unhandled_error", error: err.name });
  return errorResponse(c, new ApiError("internal_error", "An internal error occurred."));
};

export const notFound: NotFoundHandler<AppEnv> = (c) =>
  errorResponse(c, new ApiError("not_found", "No such endpoint."));
