/**
 * What went wrong, in words a person acts on: every failed call becomes a
 * sentence on the page (never an empty result), with the API's request id
 * when there is one, so support can find the request in the logs.
 */
import type { ErrorCode } from "../http/errorCodes.ts";

export interface Problem {
  /** What happened, in one sentence. */
  title: string;
  /** What to do about it, or the API's own explanation. */
  detail: string;
  status?: number;
  code?: string;
  requestId?: string;
}

interface ErrorLike {
  error?: { code?: string; message?: string; details?: { parameter: string; message: string }[] };
  response_metadata?: { request_id?: string };
}

const wait = (retryAfter: number | undefined) =>
  retryAfter === undefined ? "in a minute" : `in ${retryAfter} second${retryAfter === 1 ? "" : "s"}`;

/** The words for an error answer: by its code where the API sent one, else by its status. */
export function problemOf(
  status: number,
  body: ErrorLike | undefined,
  retryAfter: number | undefined,
  code: ErrorCode | string | undefined = body?.error?.code,
): Problem {
  const base = { status, code, requestId: body?.response_metadata?.request_id };
  const details = body?.error?.details?.map((d) => `${d.parameter}: ${d.message}`).join("; ");
  switch (code) {
    case "missing_api_key":
      return { ...base, title: "This lookup needs an API key.", detail: "Type your API key and search again." };
    case "invalid_api_key":
      return {
        ...base,
        title: "The service refused this API key.",
        detail: "It is unknown or has been revoked. Check the key (it is case-sensitive) and search again.",
      };
    case "rate_limited":
      return {
        ...base,
        title: "Too many requests for now.",
        detail: `The service limits requests per key and, for the public filing lookup, per address. Try again ${wait(retryAfter)}.`,
      };
    case "service_unavailable":
      return {
        ...base,
        title: "The service is unavailable for a moment.",
        detail: `Its database did not answer. Nothing is wrong with the search; try again ${wait(retryAfter)}.`,
      };
    case "invalid_parameter":
      return {
        ...base,
        title: "The service cannot take this search as written.",
        detail: details ?? body?.error?.message ?? "Check the fields and try again.",
      };
    case "cursor_expired":
      return {
        ...base,
        title: "That place in the change feed is no longer kept.",
        detail: body?.error?.message ?? "Start again from a time within the feed's retention.",
      };
  }
  if (status === 429) return problemOf(status, body, retryAfter, "rate_limited");
  if (status === 503) return problemOf(status, body, retryAfter, "service_unavailable");
  return {
    ...base,
    title: `The service answered with an error (HTTP ${status}).`,
    detail: body?.error?.message ?? "Try again; if it persists, quote the request id to support.",
  };
}

/** The words for a request that got no answer at all. */
export function unreachable(err: unknown): Problem {
  return {
    title: "The service could not be reached.",
    detail: `Check the connection and try again (${err instanceof Error ? err.message : String(err)}).`,
  };
}
