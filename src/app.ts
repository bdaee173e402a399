/**
 * Where a request enters: the Hono app with its cross-cutting middleware
 * (request id, clock, CORS), the lookup routes, and the error handlers.
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { cors } from "hono/cors";
import { requestId } from "hono/request-id";
import type { Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";
import { secureHeaders } from "hono/secure-headers";
import { setMetric, timing } from "hono/timing";
import { BOOKMARK_HEADER } from "./http/bookmark.ts";
import { dropContentHeaders } from "./http/caching.ts";
import { type AppEnv, d1Totals, log, requestLogSample } from "./http/context.ts";
import { ApiError, errorResponse, invalidParameters, notFound, onError } from "./http/errors.ts";
import { boundedUrl, utf8Query } from "./http/params.ts";
import { registerReportRoute } from "./report/route.ts";
import { registerConsole } from "./routes/console.ts";
import { registerDebtorRoutes } from "./routes/debtors.ts";
import { registerDocs } from "./routes/docs.ts";
import { registerFilingRoutes } from "./routes/filings.ts";
import { registerMonitoringRoutes } from "./routes/monitoring.ts";
import { EXPOSED_HEADERS } from "./routes/openapi.ts";
import { registerSecuredRoutes } from "./routes/secureds.ts";

const ALLOWED_METHODS = "GET, HEAD, OPTIONS";

/**
 * Hono's default router, given every route's path without a trailing slash.
 * The app matches requests without one (`strict: false`), so a route the
 * document shows as the interface writes it, `/debtors/associated/`, is
 * reached with or without the slash.
 */
class TrailingSlashFreeRouter<T> implements Router<T> {
  readonly name = "TrailingSlashFreeRouter";
  readonly #router = new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });

  add(method: string, path: string, handler: T): void {
    this.#router.add(method, path.length > 1 ? path.replace(/\/+$/, "") : path, handler);
  }

  match(method: string, path: string) {
    return this.#router.match(method, path);
  }
}

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({
    // `/debtors/associated/` and `/debtors/associated` are the same endpoint.
    strict: false,
    router: new TrailingSlashFreeRouter(),
    defaultHook: (result) => {
      if (!result.success) throw invalidParameters(result.error);
    },
  });

  // Hono answers a HEAD as its GET without the body; like a 304, it goes
  // without the headers that describe a body too (the document declares no
  // content for HEAD), or a gateway validating by the document tries to
  // parse an empty JSON body. First, so that it sees the final headers.
  app.use(async (c, next) => {
    await next();
    if (c.req.method === "HEAD") dropContentHeaders(c.res.headers);
  });

  // A fresh UUID for every request (client-sent ids are not reused), echoed
  // as x-request-id and in response_metadata.
  app.use(requestId({ headerName: "" }));
  // Server-Timing, for responses with a metric: D1's (set below) or the edge cache's hit (src/http/caching.ts).
  app.use(timing({ total: false, enabled: (c) => (c.get("metric")?.headers.length ?? 0) > 0 }));
  app.use(async (c, next) => {
    const started = Date.now();
    c.set("now", new Date(started));
    c.set("d1", { batches: 0, shardRows: new Map(), ms: 0 });
    c.header("x-request-id", c.get("requestId"));
    await next();
    const d1 = c.get("d1");
    const read = d1Totals(d1);
    if (d1.batches > 0) {
      // Over several shards, also the most read on one: the bound is per shard.
      const shards = read.shards > 1 ? `, ${read.shards} shards, at most ${read.busiestShard} on one` : "";
      setMetric(c, "d1", d1.ms, `${d1.batches} batch, ${read.rowsRead} rows read${shards}`, 0);
    }
    // One line per request (a sample of the successful ones, REQUEST_LOG_SAMPLE): never the key, only its label.
    const sampled = requestLogSample(c);
    if (sampled === undefined) return;
    log(c, "info", {
      event: "request",
      method: c.req.method,
      route: c.req.routePath,
      status: c.res.status,
      duration_ms: Date.now() - started,
      d1_ms: d1.ms,
      d1_shards: read.shards,
      rows_read: read.rowsRead,
      key_label: c.get("keyLabel") ?? null,
      ...(sampled < 1 ? { sample_rate: sampled } : {}),
    });
  });
  app.use(
    secureHeaders({
      // JSON only: nothing may load, frame or sniff it. /docs and /console set their own policies.
      contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
      crossOriginResourcePolicy: "cross-origin",
      xFrameOptions: "DENY",
      referrerPolicy: "no-referrer",
      // Not sent: headers that only mean something for HTML documents or for
      // browsers and plugins long gone (IE's download prompt, Flash's
      // cross-domain policy, the retired XSS filter). /docs adds the opener
      // policy it needs.
      crossOriginOpenerPolicy: false,
      originAgentCluster: false,
      xDnsPrefetchControl: false,
      xDownloadOptions: false,
      xPermittedCrossDomainPolicies: false,
      xXssProtection: false,
      // Keep a route's own choice (the /docs and /console pages' policies).
      overwrite: false,
    }),
  );
  const corsHeaders = cors({
    origin: "*",
    allowMethods: ["GET", "HEAD", "OPTIONS"],
    // Browser clients read the D1 bookmark and send it back (docs/read-replication.md),
    // and revalidate with the ETag (If-None-Match is not a CORS-safelisted header).
    allowHeaders: ["x-api-key", BOOKMARK_HEADER, "If-None-Match"],
    // Every response header the OpenAPI document declares (a report's id, a CSV page's Link, ...).
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 86_400,
  });
  // Hono's CORS answers a preflight itself; on any other request it writes its
  // headers into c.res before the route runs, which makes an empty response
  // that Hono then copies into the route's (a Response and every header more
  // on each request). Run after the route instead, it writes them into the
  // route's own response, the same headers.
  const routeDone = async () => {};
  app.use(async (c, next) => {
    if (c.req.method === "OPTIONS") return corsHeaders(c, next);
    await next();
    await corsHeaders(c, routeDone);
  });

  // After the headers above are in place, before any route parses a query.
  app.use(boundedUrl);
  app.use(utf8Query);

  registerMonitoringRoutes(app);
  registerFilingRoutes(app);
  registerSecuredRoutes(app);
  registerDebtorRoutes(app);
  registerReportRoute(app);
  registerDocs(app);
  registerConsole(app);

  // Known paths answer every other method (POST, TRACE, PROPFIND, QUERY, ...)
  // with 405 and the methods they allow. Registered after the routes, so a GET
  // (and a HEAD, which Hono runs as a GET) is answered before reaching it, and
  // CORS has answered OPTIONS already.
  const paths = [...new Set(app.routes.filter((r) => r.method === "GET").map((r) => r.path))];
  for (const path of paths) {
    app.all(path, (c) =>
      errorResponse(
        c,
        new ApiError("method_not_allowed", `Use GET; this endpoint allows ${ALLOWED_METHODS}.`, {
          headers: { Allow: ALLOWED_METHODS },
        }),
      ),
    );
  }

  app.onError(onError);
  app.notFound(notFound);
  return app;
}
