/**
 * The API's error codes and the HTTP status each one answers with: the one
 * place a status is chosen. The error body's `code` enum, the OpenAPI error
 * responses and `ApiError` all read this, so a code added without a status
 * (or a status without its code) does not compile.
 */
import type { ContentfulStatusCode } from "hono/utils/http-status";

export const ERROR_CODES = [
  "invalid_parameter",
  "missing_api_key",
  "invalid_api_key",
  "not_found",
  "method_not_allowed",
  "cursor_expired",
  "rate_limited",
  "internal_error",
  "service_unavailable",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const ERROR_STATUS = {
  invalid_parameter: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  not_found: 404,
  method_not_allowed: 405,
  cursor_expired: 410,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

/** The codes answered with `status`, in ERROR_CODES order. */
export function codesWithStatus(status: number): ErrorCode[] {
  return ERROR_CODES.filter((code) => ERROR_STATUS[code] === status);
}

/** "`a` 400, `b` and `c` 401, …": each status after the codes that answer with it. */
export function describeStatuses(): string {
  const statuses = [...new Set(ERROR_CODES.map((code) => ERROR_STATUS[code]))];
  return statuses
    .map((status) => {
      const codes = codesWithStatus(status).map((code) => `\`${code}\``);
      const named = codes.length > 1 ? `${codes.slice(0, -1).join(", ")} and ${codes.at(-1)}` : codes.join("");
      return `${named} ${status}`;
    })
    .join(", ");
}
