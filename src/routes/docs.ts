/**
 * The API's own description: the OpenAPI 3.1 document, generated from the
 * same zod schemas and route definitions that validate requests, a
 * browsable reference page over it, and a small index at `/`. All public.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { html } from "hono/html";
import { version } from "../../package.json";
import { BOOKMARK_HEADER } from "../http/bookmark.ts";
import { ifNoneMatchMatches, notModified } from "../http/caching.ts";
import type { AppEnv } from "../http/context.ts";
import { registerContract } from "./openapi.ts";

const TITLE = "Lien Filing Lookup API";

const DESCRIPTION = `Read-only lookups over UCC (Article 9) lien filings: who has lent against a business, where, since when, and whether the lien is still active.

Authenticate with the \`x-api-key\` header (every operation but \`lookupFiling\`, \`GET /filings\`). Errors are JSON with a stable \`code\` (the \`ErrorBody\` schema); \`invalid_parameter\` names each bad parameter in \`details\`. Every response carries \`x-request-id\`, also in \`response_metadata.request_id\`.

**Envelopes.** Envelope A pages hold 5 items and count them (\`pagination\`); envelope B pages hold 10 and say whether another follows (\`response_metadata.next_page\`). The two operations that take \`envelope\` answer either shape: only envelope A has \`pagination\`. Lists are newest first with stable tie-breaks, so walking pages visits each item once; \`page\` runs from 1 to 10,000. Each page but the last also has a \`next_cursor\`: sent back as \`cursor\` (instead of \`page\`), it answers the next page at what the first page costs, however deep, to the end of any list.

**Caching and consistency.** A successful answer has a weak \`ETag\`; send it in \`If-None-Match\` for a 304 while the data is unchanged. Send each answer's \`${BOOKMARK_HEADER}\` with the next request and every answer is read from a database state at least as new, so a paged walk sees one consistent view.

**Limits.** Keys have per-minute request rates and the public lookup a per-address one: over it, 429 \`rate_limited\` with \`Retry-After\`. A 503 \`service_unavailable\` also carries \`Retry-After\`.`;

/** How often a client may reuse /openapi.json without asking: it changes only with a deployment. */
const DOCUMENT_MAX_AGE = 300;

async function weakTag(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  const hex = [...new Uint8Array(bytes).slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `W/"${hex}"`;
}

type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
type Operation = NonNullable<NonNullable<Document["paths"]>[string]["get"]>;

/**
 * The HEAD operation beside a GET: the server answers HEAD wherever it
 * answers GET (Hono runs the GET and sends its status and headers without
 * the body), and a gateway that routes by the document refuses what it does
 * not declare. Same parameters and statuses; each response keeps its
 * headers and has no content.
 */
function headOf(get: Operation, document: Document): Operation {
  const { operationId = "", summary = "", description: _, responses = {}, ...same } = get;
  const shared = document.components?.responses ?? {};
  const bodiless = Object.entries(responses).map(([status, response]) => {
    const named = "$ref" in response ? shared[response.$ref.split("/").at(-1) ?? ""] : response;
    const { content: __, ...headersOnly } = (named ?? response) as { content?: unknown; description: string };
    return [status, headersOnly];
  });
  return {
    ...same,
    operationId: `head${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}`,
    summary: `${summary} (headers only)`,
    description: `\`${operationId}\` without the body: the same status and headers (\`ETag\` among them), for a cheap check of whether an answer changed or a key works.`,
    responses: Object.fromEntries(bodiless),
  };
}

/** The OpenAPI document of `app`, whose routes must all be registered. */
function openApiDocument(app: OpenAPIHono<AppEnv>) {
  const document = app.getOpenAPI31Document(
    {
      openapi: "3.1.0",
      info: {
        title: TITLE,
        version,
        description: DESCRIPTION,
      },
      // Relative: the document describes the origin it is served from, whatever the Host header says.
      servers: [{ url: "/", description: "The origin serving this document." }],
      tags: [
        { name: "Filings", description: "Filings by state, postal code, termination or number." },
        { name: "Secured parties", description: "Filings by lender." },
        { name: "Debtors", description: "A borrower's filings, addresses, co-borrowers and similar names." },
        {
          name: "Monitoring",
          description:
            "What changed since you last looked (the change feed), lapse windows, and how current each state's data is.",
        },
      ],
    },
    { unionPreferredType: "oneOf", sortComponents: "alphabetically" },
  );
  for (const item of Object.values(document.paths ?? {})) {
    if (!item.get) continue;
    // The query parameters first, then the request headers (shared, so references), as readers look for them.
    item.get.parameters?.sort((a, b) => Number("$ref" in a) - Number("$ref" in b));
    item.head = headOf(item.get, document);
  }
  return document;
}

/**
 * A link to one operation in the API reference served at /docs: Swagger UI's
 * deep link (`deepLinking`, public/docs/init.js) is `#/{first tag}/{operationId}`.
 * A path on the service itself, so a client resolves it against the origin it called.
 */
export function referenceLink(route: { operationId: string; tags: string[] }): string {
  // Swagger UI files an operation without a tag under "default".
  return `/docs#/${encodeURIComponent(route.tags[0] ?? "default")}/${encodeURIComponent(route.operationId)}`;
}

export function registerDocs(app: OpenAPIHono<AppEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "Your API key. Issued with `npm run keys -- create --name LABEL`.",
  });
  registerContract(app.openAPIRegistry);

  // Built on first request, once per isolate: every route is registered by then.
  let served: Promise<{ body: string; etag: string }> | undefined;
  app.get("/openapi.json", async (c) => {
    served ??= (async () => {
      const body = JSON.stringify(openApiDocument(app));
      return { body, etag: await weakTag(body) };
    })();
    const { body, etag } = await served;
    c.header("ETag", etag);
    c.header("Cache-Control", `public, max-age=${DOCUMENT_MAX_AGE}`);
    if (ifNoneMatchMatches(c.req.header("if-none-match"), etag)) {
      notModified(c);
      return c.res;
    }
    return c.body(body, 200, { "Content-Type": "application/json; charset=UTF-8" });
  });

  // A pointer for whoever opens the bare origin.
  app.get("/", (c) =>
    c.json({
      name: TITLE,
      version,
      description: "Read-only HTTP JSON lookups over UCC (Article 9) lien filings.",
      links: { docs: "/docs", openapi: "/openapi.json", console: "/console" },
    }),
  );

  app.get("/docs", (c) => {
    // Swagger UI styles inline; everything else comes from this origin. No
    // <base> may redirect its relative URLs, and its forms (none today) post here only.
    c.header(
      "Content-Security-Policy",
      "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    );
    // A page, unlike the JSON answers: no other window keeps a handle on it.
    c.header("Cross-Origin-Opener-Policy", "same-origin");
    return c.html(html`<!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>Lien Filing Lookup API reference</title>
          <link rel="icon" href="/favicon.ico" />
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
