/**
 * Benchmark over the local database (seed it first, e.g.
 * `npm run seed -- --filings 1000000`):
 *
 *   npm run bench [-- --seconds 10 --connections 32]
 *
 * 1. Picks a realistic query mix from the data: the states, postal codes,
 *    lenders and debtors with the most filings, with every filter.
 * 2. Reads each query's page 1 once and records D1 rows read (from the
 *    Server-Timing header the service sends).
 * 3. Drives each endpoint with autocannon. A counter parameter defeats the
 *    edge cache, so every request does its database work.
 * 4. Runs the same SQL (captured from the service's own query builders) over
 *    the same SQLite file with node:sqlite behind node:http: the bare
 *    baseline.
 * 5. Writes bench/RESULTS.md, with the worker bundle size from
 *    `wrangler deploy --dry-run`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { SQLInputValue } from "node:sqlite";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import { openLocalD1 } from "../seed/localD1.ts";
import * as schema from "../src/db/schema.ts";
import { recentWindowStart } from "../src/domain/time.ts";
import type { Db } from "../src/queries/db.ts";
import { associatedDebtors, knownAddresses } from "../src/queries/debtors.ts";
import * as q from "../src/queries/filings.ts";
import { similarNames } from "../src/queries/similar.ts";
import { startDevServer, unmeteredKey, waitUntilUp } from "./devServer.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    port: { type: "string", default: "8793" },
  },
});
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PORT = Number(values.port);
const BASE = `http://127.0.0.1:${PORT}`;
const BASELINE_PORT = PORT + 1;

const sqlite = openLocalD1();
const one = <T>(sql: string, ...params: SQLInputValue[]) => sqlite.prepare(sql).get(...params) as T;
const all = <T>(sql: string, ...params: SQLInputValue[]) => sqlite.prepare(sql).all(...params) as T[];
const filingCount = one<{ n: number }>("select count(*) as n from filings").n;
const now = new Date();
const since = recentWindowStart(now);

// --- 1. The query mix, from the data itself -------------------------------
const states = all<{ state: string }>(
  "select state from filings where filed_at >= ? group by state order by count(*) desc limit 3",
  since,
).map((r) => r.state);
const zips = all<{ zip5: string }>(
  "select zip5 from debtor_parties where filed_at >= ? group by zip5 order by count(*) desc limit 3",
  since,
).map((r) => r.zip5);
const lenders = all<{ words: string; state: string }>(
  "select name_words as words, filing_state as state from secured_parties where filed_at >= ? and filing_state = ? group by name_words order by count(*) desc limit 3",
  since,
  states[0]!,
).map((r) => ({ name: r.words.split(" ").slice(0, 2).join(" "), state: r.state }));
const debtors = all<{ name: string; state: string }>(
  "select name, state from debtor_names order by filing_count desc limit 3",
);
const numbers = all<{ number: string; state: string }>(
  "select number, state from filings where id in (1, ?, ?)",
  Math.floor(filingCount / 2),
  filingCount,
);
const enc = encodeURIComponent;
const MIX: Record<string, string[]> = {
  "recent-by-state": states.flatMap((s) => [
    `/filings/recent-by-state?state=${s}`,
    `/filings/recent-by-state?state=${s}&industry=${enc("Manufacturing,Food & Beverage")}`,
    `/filings/recent-by-state?state=${s}&industry=${enc("Energy & Utilities")}`,
    `/filings/recent-by-state?state=${s}&industry=${enc("Equipment,Real Estate,Health & Wellness,Automotive Services & Sales")}`,
  ]),
  "recent-by-postal-code": zips.flatMap((z) => [
    `/filings/recent-by-postal-code?postal_code=${z}`,
    `/filings/recent-by-postal-code?postal_code=${z}&envelope=b&industry=Equipment`,
    `/filings/recent-by-postal-code?postal_code=${z}&industry=${enc("Retail & E-commerce,Manufacturing")}`,
  ]),
  "recent-by-secured-party": lenders.flatMap((l) => [
    `/secureds/recent-by-secured-party?name=${enc(l.name)}&state=${l.state}`,
    `/secureds/recent-by-secured-party?name=${enc(l.name)}&state=${l.state}&borrower_type=Individual&envelope=a`,
    `/secureds/recent-by-secured-party?name=${enc(l.name)}&state=${l.state}&borrower_type=Organization`,
  ]),
  "recently-terminated": states.map((s) => `/filings/recently-terminated?state=${s}`),
  "debtors/search": debtors.map((d) => `/debtors/search?name=${enc(d.name)}&state=${d.state}`),
  "debtors/addresses": debtors.map((d) => `/debtors/addresses?name=${enc(d.name)}`),
  "debtors/associated": debtors.map((d) => `/debtors/associated?name=${enc(d.name)}&state=${d.state}`),
  "debtors/search-similar": debtors.map((d) => `/debtors/search-similar?name=${enc(d.name.slice(0, -2))}`),
  filings: numbers.map((n) => `/filings?initial_financing_number=${enc(n.number)}&state=${n.state}`),
};

// --- 4a. The same SQL, captured from the service's query builders ---------
type Captured = { sql: string; params: SQLInputValue[] }[];
function capturingDb(log: Captured): Db {
  const run = (sql: string, params: unknown[]) => {
    log.push({ sql, params: params as SQLInputValue[] });
    return {
      rows: sqlite
        .prepare(sql)
        .all(...(params as SQLInputValue[]))
        .map((r) => Object.values(r as object)),
    };
  };
  return drizzle(
    async (sql, params) => run(sql, params),
    async (batch) => batch.map((b) => run(b.sql, b.params)),
    { schema, casing: "snake_case" },
  ) as unknown as Db;
}

async function sqlFor(path: string): Promise<Captured> {
  const url = new URL(path, BASE);
  const p = Object.fromEntries(url.searchParams);
  const log: Captured = [];
  const db = capturingDb(log);
  const page = { page: 1, size: 5 };
  const industries = p.industry?.split(",");
  const route = url.pathname;
  if (route === "/filings/recent-by-state")
    await q.fetchCountedPage(db, q.recentByState(db, { state: p.state!, since, industries }), page);
  else if (route === "/filings/recent-by-postal-code") {
    const filter = q.recentByPostalCode(db, { zip5: p.postal_code!, since, industries });
    if (p.envelope === "b") await q.fetchOpenPage(db, filter, { page: 1, size: 10 }, { amendments: false });
    else await q.fetchCountedPage(db, filter, page);
  } else if (route === "/secureds/recent-by-secured-party") {
    const lender = { name: p.name!, state: p.state!, since, borrowerType: p.borrower_type as "Individual" | undefined };
    const filter = await q.recentBySecuredParty(db, lender);
    if (p.envelope === "a") await q.fetchCountedPage(db, filter, page);
    else await q.fetchOpenPage(db, filter, { page: 1, size: 10 }, { amendments: true });
  } else if (route === "/filings/recently-terminated")
    await q.fetchCountedPage(db, q.recentlyTerminated(db, { state: p.state!, since }), page);
  else if (route === "/debtors/search")
    await q.fetchCountedPage(db, q.byDebtorName(db, { name: p.name!, state: p.state! }), page);
  else if (route === "/debtors/addresses") await knownAddresses(db, p.name!, page);
  else if (route === "/debtors/associated") await associatedDebtors(db, { name: p.name!, state: p.state! }, page);
  else if (route === "/debtors/search-similar") await similarNames(db, { name: p.name! });
  else if (route === "/filings")
    await q.fetchOpenPage(
      db,
      q.byNumber(db, { number: p.initial_financing_number!, state: p.state }),
      { page: 1, size: 10 },
      { amendments: true },
    );
  return log;
}

// --- 4b. The bare baseline: node:http + node:sqlite, prepared statements ---
const captured = new Map<string, Captured>();
for (const paths of Object.values(MIX)) for (const path of paths) captured.set(path, await sqlFor(path));
const baseline = createServer((req, res) => {
  const path = (req.url ?? "").replace(/[&?]r=\d+$/, "");
  const statements = captured.get(path);
  if (!statements) {
    res.writeHead(404).end();
    return;
  }
  const results = statements.map(({ sql, params }) => sqlite.prepare(sql).all(...params));
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(results));
});
await new Promise<void>((resolve) => baseline.listen(BASELINE_PORT, "127.0.0.1", resolve));

// --- 2, 3. The service ------------------------------------------------------
const key = await unmeteredKey("benchmark");
const server = startDevServer(PORT);

async function drive(base: string, paths: string[], headers: Record<string, string>) {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: SECONDS,
    requests: paths.map((path) => ({
      method: "GET" as const,
      headers,
      // A fresh counter per request: no edge-cache hits, every request reads D1.
      // A fresh client address too, so the public endpoint's per-address limit
      // (60/min) measures nothing but itself.
      setupRequest: (req: autocannon.Request) => {
        n += 1;
        return {
          ...req,
          path: `${path}${path.includes("?") ? "&" : "?"}r=${n}`,
          headers: { ...req.headers, "cf-connecting-ip": `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}` },
        };
      },
    })),
  });
  return result;
}

interface Row {
  endpoint: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  rowsMax: number;
  rowsMean: number;
  baselineRps: number;
}
const rows: Row[] = [];
try {
  await waitUntilUp(server, BASE);
  for (const [endpoint, paths] of Object.entries(MIX)) {
    const reads: number[] = [];
    for (const path of paths) {
      const res = await fetch(`${BASE}${path}${path.includes("?") ? "&" : "?"}r=probe`, {
        headers: { "x-api-key": key },
      });
      await res.arrayBuffer();
      reads.push(Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? Number.NaN));
    }
    const service = await drive(BASE, paths, { "x-api-key": key });
    const bare = await drive(`http://127.0.0.1:${BASELINE_PORT}`, paths, {});
    rows.push({
      endpoint,
      rps: service.requests.average,
      p50: service.latency.p50,
      p99: service.latency.p99,
      errors: service.errors + service.timeouts + service["5xx"],
      non2xx: service.non2xx,
      rowsMax: Math.max(...reads),
      rowsMean: Math.round(reads.reduce((a, b) => a + b, 0) / reads.length),
      baselineRps: bare.requests.average,
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
} finally {
  process.kill(-server.pid!, "SIGTERM");
  baseline.close();
}

// --- 5. Bundle size and the report ------------------------------------------
execFileSync("wrangler", ["deploy", "--dry-run", "--outdir", ".wrangler/bench-build"], { stdio: "ignore" });
const bundle = readFileSync(".wrangler/bench-build/index.js");
const gzipKb = (gzipSync(bundle).length / 1024).toFixed(1);

const table = rows
  .map(
    (r) =>
      `| ${r.endpoint} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.rowsMean} | ${r.rowsMax} | ${r.baselineRps.toFixed(0)} | ${(r.rps / r.baselineRps).toFixed(2)} |`,
  )
  .join("\n");
mkdirSync("bench", { recursive: true });
writeFileSync(
  "bench/RESULTS.md",
  `# Benchmark results

Run on ${now.toISOString().slice(0, 10)} by \`npm run bench\` on this project's reference machine
(2 cores, 24 GiB), over ${filingCount.toLocaleString()} filings in local D1 (\`wrangler dev\`),
${CONNECTIONS} connections for ${SECONDS} s per endpoint. Every request carries a fresh
counter parameter, so none is served from the edge cache: the figures are the database path.

- **rows read**: D1 \`rows_read\` for page 1, over the endpoint's query mix (largest states,
  busiest postal codes and lenders, most-filed debtors, every filter), from \`Server-Timing\`.
- **baseline**: the same SQL (captured from the service's own query builders) over the same
  SQLite file, with node:sqlite behind node:http, no framework.
- **ratio**: service requests/s over baseline requests/s.

| endpoint | req/s | p50 ms | p99 ms | errors | rows read (mean) | rows read (max) | baseline req/s | ratio |
|---|---|---|---|---|---|---|---|---|
${table}

Worker bundle (\`wrangler deploy --dry-run\`): ${(bundle.length / 1024).toFixed(1)} KiB, ${gzipKb} KiB gzip.
`,
);
console.log(`Wrote bench/RESULTS.md (bundle ${gzipKb} KiB gzip).`);
process.exit(0);
