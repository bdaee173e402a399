/**
 * GET /console: the underwriter's console (docs/console.md), a page that
 * calls this API from the browser. Its script and stylesheet are static
 * assets (public/console/, built from src/console/ by `npm run
 * build:console`); the page itself is answered here, like /docs, so that it
 * carries its own Content-Security-Policy rather than the static files' one.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { html } from "hono/html";
import type { AppEnv } from "../http/context.ts";

/**
 * Only this origin's script, stylesheet and API; no inline code or style, no
 * eval, and (Trusted Types) no HTML written from strings: the console builds
 * its DOM node by node, so nothing it shows from the data can become markup.
 * Forms go nowhere (the script handles them), and no other site may frame it.
 */
const CONSOLE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join("; ");

export function registerConsole(app: OpenAPIHono<AppEnv>) {
  app.get("/console", (c) => {
    c.header("Content-Security-Policy", CONSOLE_POLICY);
    // A page, unlike the JSON answers: no other window keeps a handle on it.
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    // The page is small and names fixed asset paths: always ask, so a deploy shows at once.
    c.header("Cache-Control", "no-cache");
    return c.html(html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>Lien Filing Lookup console</title>
          <link rel="icon" href="/favicon.ico" />
          <link rel="stylesheet" href="/console/console.css" />
          <script type="module" src="/console/console.js"></script>
        </head>
        <body>
          <div id="console">
            <noscript>The console runs in JavaScript. The API reference is at <a href="/docs">/docs</a>.</noscript>
          </div>
        </body>
      </html>`);
  });
}
