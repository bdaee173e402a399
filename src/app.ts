/**
 * Where a request enters: the Hono app with its cross-cutting middleware
 * (request id, clock, CORS), the lookup routes, and the error handlers.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { requestId } from "hono/request-id";
import type { AppEnv } from "./http/context.ts";
import { ApiError, errorResponse, invalidParameters, notFound, onError } from "./http/errors.ts";
import { registerDebtorRoutes } from "./routes/debtors.ts";
import { registerDocs } from "./routes/docs.ts";
import { registerFilingRoutes } from "./routes/filings.ts";
import { registerSecuredRoutes } from "./routes/secureds.ts";

const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({
    // `/debtors/associated/` and `/debtors/associated` are the same endpoint.
    strict: false,
    defaultHook: (result) => {
      if (!result.success) throw invalidParameters(result.error);
    },
  });

  // A fresh UUID for every request (client-sent ids are not reused), echoed
  // as x-request-id and in response_metadata.
  app.use(requestId({ headerName: "" }));
  app.use(async (c, next) => {
    c.set("now", new Date());
    c.header("x-request-id", c.get("requestId"));
    await next();
  });
  app.use(
    cors({
      origin: "*",
      allowMethods: ["GET", "HEAD", "OPTIONS"],
      allowHeaders: ["x-api-key"],
      exposeHeaders: ["x-request-id", "Retry-After"],
      maxAge: 86_400,
    }),
  );

  registerFilingRoutes(app);
  registerSecuredRoutes(app);
  registerDebtorRoutes(app);
  registerDocs(app);

  // Known paths answer other methods with 405 and the methods they allow.
  const paths = [...new Set(app.routes.filter((r) => r.method === "GET").map((r) => r.path))];
  app.on(["POST", "PUT", "PATCH", "DELETE"], paths, (c) => {
    return errorResponse(
      c,
      new ApiError(405, "method_not_allowed", `Use GET; this endpoint allows ${ALLOWED_METHODS}.`, undefined, {
        Allow: ALLOWED_METHODS,
      }),
    );
  });

  app.onError(onError);
  app.notFound(notFound);
  return app;
}
