import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../src/http/context.ts";
import { ERROR_CODES, ERROR_STATUS } from "../src/http/errorCodes.ts";
import { ApiError, onError } from "../src/http/errors.ts";
import { errorBody } from "../src/http/responses.ts";

/** An app set up by `use`, with the service's error handler. */
function appWith(use: (app: Hono<AppEnv>) => void): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  use(app);
  app.onError(onError);
  return app;
}

describe("ApiError", () => {
  it("takes its status from its code", () => {
    for (const code of ERROR_CODES) expect(new ApiError(code, "m").status, code).toBe(ERROR_STATUS[code]);
  });

  it("answers with its own body and headers where the service's error handler is not in the chain", async () => {
    const app = new Hono();
    app.get("/", () => {
      throw new ApiError("rate_limited", "Slow down.", { headers: { "Retry-After": "7" } });
    });
    const res = await app.request("/");
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("7");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toBe("application/json");
    const body = errorBody.parse(await res.json());
    expect(body.error).toEqual({ code: "rate_limited", message: "Slow down." });
  });
});

describe("an HTTPException from a Hono middleware", () => {
  it("becomes the error body of the code with its status, keeping its challenge header", async () => {
    const app = appWith((app) => {
      app.use(bearerAuth({ token: "secret" }));
      app.get("/", (c) => c.text("ok"));
    });
    const res = await app.request("/");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toContain("Bearer");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = errorBody.parse(await res.json());
    expect(body.error.code).toBe("missing_api_key");
  });

  it("with a status no code answers with is logged and becomes a 500", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const app = appWith((app) =>
      app.get("/", () => {
        throw new HTTPException(413, { message: "Payload Too Large" });
      }),
    );
    const res = await app.request("/");
    expect(res.status).toBe(500);
    expect(errorBody.parse(await res.json()).error.code).toBe("internal_error");
    expect(error.mock.calls.map((call) => JSON.parse(String(call[0])).event)).toEqual(["unmapped_http_exception"]);
    error.mockRestore();
  });
});
