/**
 * The API's own description: the OpenAPI 3.1 document, generated from the
 * same zod schemas and route definitions that validate requests, and a
 * browsable reference page over it. Both public.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { html } from "hono/html";
import { version } from "../../package.json";
import type { AppEnv } from "../http/context.ts";

const DESCRIPTION = `Read-only lookups over UCC (Article 9) lien filings: who has lent against a business, where, since when, and whether the lien is still active.

Authenticate with the \`x-api-key\` header (every endpoint but \`GET /filings\`). Errors are JSON with a stable \`code\`; \`invalid_parameter\` names each bad parameter in \`details\`. Every response carries \`x-request-id\`, also in \`response_metadata.request_id\`.

Envelope A pages hold 5 items and count them (\`pagination\`); envelope B pages hold 10 and say whether another follows (\`response_metadata.next_page\`). Lists are newest first with stable tie-breaks, so walking pages visits each item once.`;

export function registerDocs(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "Your API key. Issued with `npm run keys -- create --name LABEL`.",
  });

  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: { title: "Lien Filing Lookup API", version, description: DESCRIPTION },
    servers: [{ url: new URL(c.req.url).origin }],
    tags: [
      { name: "Filings", description: "Filings by state, postal code, termination or number." },
      { name: "Secured parties", description: "Filings by lender." },
      { name: "Debtors", description: "A borrower's filings, addresses, co-borrowers and similar names." },
    ],
  }));

  app.get("/docs", (c) => {
    // Swagger UI styles inline; everything else comes from this origin.
    c.header(
      "Content-Security-Policy",
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    );
    return c.html(html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>Lien Filing Lookup API reference</title>
          <link rel="stylesheet" href="/docs/vendor/swagger-ui.css" />
        </head>
        <body>
          <div id="reference"></div>
          <script src="/docs/vendor/swagger-ui-bundle.js"></script>
          <script src="/docs/init.js"></script>
        </body>
      </html>`);
  });
}
