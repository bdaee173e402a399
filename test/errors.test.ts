import { z } from "@hono/zod-openapi";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { describe, expect, it, vi } from "vitest";
import type { AppEnv } from "../src/http/context.ts";
import { ERROR_CODES, ERROR_STATUS } from "../src/http/errorCodes.ts";
import { ApiError, onError } from "../src/http/errors.ts";
import { errorBody } from "../src/http/responses.ts";
import { get } from "./helpers.ts";

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

/** The parts of the OpenAPI document that say which error codes each status carries. */
const documented = z.looseObject({
  paths: z.record(
    z.string(),
    z.looseObject({
      get: z.looseObject({ responses: z.record(z.string(), z.looseObject({ $ref: z.string().optional() })) }),
    }),
  ),
  components: z.looseObject({
    responses: z.record(
      z.string(),
      z.looseObject({
        content: z
          .object({ "application/json": z.looseObject({ examples: z.record(z.string(), z.unknown()) }) })
          .optional(),
      }),
    ),
  }),
});

describe("the OpenAPI document", () => {
  it("lists every error code, each under its own status (or the default response) in every operation", async () => {
    const doc = documented.parse(await (await get("/openapi.json", null)).json());
    const seen = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      const responses = Object.entries(item.get.responses);
      const statuses = responses.map(([status]) => status);
      for (const [status, response] of responses) {
        const name = response.$ref?.split("/").at(-1);
        if (!name) continue;
        const codes = Object.keys(doc.components.responses[name]?.content?.["application/json"].examples ?? {});
        for (const code of codes) {
          seen.add(code);
          const own = String(ERROR_STATUS[code as keyof typeof ERROR_STATUS]);
          if (status === "default") expect(statuses, `${path} ${code}`).not.toContain(own);
          else expect(own, `${path} ${code}`).toBe(status);
        }
      }
    }
    expect([...seen].sort()).toEqual([...ERROR_CODES].sort());
  });
});
