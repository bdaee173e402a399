/**
 * What the console says when a call fails (src/console/problems.ts): a
 * refused key, a rate limit, a fault and a bad parameter are each a
 * sentence that says what to do, never an empty result.
 */
import { describe, expect, it } from "vitest";
import { problemOf, unreachable } from "../../src/console/problems.ts";

const body = (code: string, message = "m", details?: { parameter: string; message: string }[]) => ({
  error: { code, message, ...(details ? { details } : {}) },
  response_metadata: { request_id: "1b4e28ba-2fa1-41d2-883f-0016d3cca427", timestamp: "2026-11-27T00:00:00Z" },
});

describe("the console's words for failures", () => {
  it("says a refused key was refused, and what to do", () => {
    const p = problemOf(401, body("invalid_api_key"), undefined);
    expect(p.title).toBe("The service refused this API key.");
    expect(p.detail).toContain("Check the key");
    expect(p.requestId).toBe("1b4e28ba-2fa1-41d2-883f-0016d3cca427");
    expect(problemOf(401, body("missing_api_key"), undefined).title).toBe("This lookup needs an API key.");
  });

  it("says how long to wait after a rate limit or a fault, from Retry-After", () => {
    expect(problemOf(429, body("rate_limited"), 60).detail).toContain("Try again in 60 seconds.");
    expect(problemOf(503, body("service_unavailable"), 1).detail).toContain("try again in 1 second.");
    // Without a body the API wrote (a proxy's page), the status still says which.
    expect(problemOf(429, undefined, undefined).title).toBe("Too many requests for now.");
    expect(problemOf(503, undefined, undefined).title).toBe("The service is unavailable for a moment.");
  });

  it("names each bad parameter the API names", () => {
    const p = problemOf(
      400,
      body("invalid_parameter", "bad", [
        { parameter: "state", message: "must be a two-letter state code" },
        { parameter: "name", message: "must not be empty" },
      ]),
      undefined,
    );
    expect(p.detail).toBe("state: must be a two-letter state code; name: must not be empty");
  });

  it("says any other failure with its status, and a request that got no answer as such", () => {
    expect(problemOf(500, body("internal_error"), undefined).title).toBe(
      "The service answered with an error (HTTP 500).",
    );
    expect(unreachable(new TypeError("Failed to fetch")).detail).toContain("Failed to fetch");
  });
});
