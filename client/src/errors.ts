import type { components } from "./openapi.js";

/** The API's stable error codes, from the OpenAPI document's `ErrorCode`. */
export type ErrorCode = components["schemas"]["ErrorCode"];
export type ErrorDetail = components["schemas"]["ErrorDetail"];
export type ErrorBody = components["schemas"]["ErrorBody"];

/**
 * An answer other than 200. `code` is the API's error code, or
 * `unexpected_response` for an answer that is not the API's JSON (a proxy's
 * error page, say); `requestId` is the id to quote in a support request.
 */
export class LienLookupError extends Error {
  override readonly name = "LienLookupError";
  /** The HTTP status. */
  readonly status: number;
  readonly code: ErrorCode | "unexpected_response";
  /** For `invalid_parameter`: each bad parameter (or request header) and why. Empty otherwise. */
  readonly details: ErrorDetail[];
  /** `response_metadata.request_id` (or the `x-request-id` header). */
  readonly requestId: string | null;
  /** Seconds the server asked to wait (`Retry-After`), on 429 and 503. */
  readonly retryAfter: number | null;

  constructor(init: {
    status: number;
    code: ErrorCode | "unexpected_response";
    message: string;
    details?: ErrorDetail[];
    requestId: string | null;
    retryAfter: number | null;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

function isErrorBody(body: unknown): body is ErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === "string" && typeof error.message === "string";
}

/** The error a non-200 answer stands for. */
export async function errorOf(res: Response, retryAfter: number | null): Promise<LienLookupError> {
  const headerId = res.headers.get("x-request-id");
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  if (!isErrorBody(body)) {
    return new LienLookupError({
      status: res.status,
      code: "unexpected_response",
      message: `The server answered ${res.status} without the API's error body.`,
      requestId: headerId,
      retryAfter,
    });
  }
  return new LienLookupError({
    status: res.status,
    code: body.error.code,
    message: body.error.message,
    details: body.error.details,
    requestId: body.response_metadata?.request_id ?? headerId,
    retryAfter,
  });
}
