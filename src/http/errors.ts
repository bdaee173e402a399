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
export const RETRY_AFTER_SECONDS = 5;

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

export function errorResponse(c: Context<AppEnv>, err: ApiError): Response {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  // Errors are answers about this request only: never cache them.
  c.header("Cache-Control", "no-store");
  return c.json(
    {
      error: {
        code: err.code,
        message: err.message,
        ...(err.details ? { details: err.details } : {}),
      },
      response_metadata: responseMetadata(c),
    },
    err.status,
  );
}

/** Turns a failed query-parameter validation into a 400 naming each parameter. */
export function invalidParameters(error: ZodError): ApiError {
  const details = error.issues.map((issue) => ({
    parameter: String(issue.path[0] ?? "query"),
    message: issue.message,
  }));
  const names = [...new Set(details.map((d) => d.parameter))];
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
