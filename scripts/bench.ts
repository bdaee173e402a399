/**
 * Benchmark of the service over local D1, against two references:
 *
 *   npm run bench [-- --filings 20000 --seconds 10 --connections 32 --port 8793 --write]
 *   npm run bench -- --rows-only [--filings N]   (step 3 only, per request, printed)
 *
 * 1. Data: applies migrations and, unless the local database already holds
 *    exactly --filings filings, reseeds it with `npm run seed -- --filings N`
 *    (replacing local data; the shard-aware loader, not a copy of it).
 * 2. The query mix, per endpoint of the registry (test/endpoints.ts), from
 *    the data's busiest states, postal codes, lenders and debtors.
 * 3. Page 1 of each request once: D1 round trips (batches) and rows read,
 *    from the Server-Timing header the service sends. A request spanning
 *    states reads every shard; its rows read are its busiest shard's (the
 *    issue lets them grow with the number of shards, never with the data).
 *    --rows-only prints these figures per request and stops here.
 * 4. Throughput (autocannon) of three servers, in turn, on the same requests:
 *    - the service under `wrangler dev`;
 *    - the ceiling: bench/ceiling, a Worker that answers after one `select 1`
 *      against a local D1, under `wrangler dev` with the same flags and
 *      compatibility date: the most a D1-backed Worker reaches here;
 *    - the bare baseline: the SQL the service sends for the same request
 *      (captured by running the app in-process over the same SQLite file)
 *      replayed with node:sqlite behind node:http.
 *    A counter parameter defeats the edge cache and a fresh client address
 *    the public limit, so every request does its database work.
 * 5. Bytes per filing (`npm run db:size` when present, else SQLite's page
 *    count), the Worker bundle size, and the machine, detected at run time.
 *
 * Results go to bench/RESULTS.local.md (untracked); --write updates the
 * committed bench/RESULTS.md. Ports: the service on --port (inspector
 * --port + 1000), the baseline on --port + 1, the ceiling on --port + 2
 * (inspector --port + 1002).
 */
import { type ChildProcess, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";
import autocannon from "autocannon";
import { runnerImport } from "vite";
import { unstable_readConfig } from "wrangler";
import { generatedCount } from "../seed/generate.ts";
import { type DataPicks, LOOKUPS, scopeOf } from "../test/endpoints.ts";
import { machine as describeMachine, startDevServer, unmeteredKey, waitUntilUp, workerdCpuMs } from "./devServer.ts";
import { localD1File } from "./shardConfig.ts";

const { values } = parseArgs({
  options: {
    filings: { type: "string", default: "20000" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "32" },
    port: { type: "string", default: "8793" },
    write: { type: "boolean", default: false },
    "rows-only": { type: "boolean", default: false },
    "request-log": { type: "boolean", default: false },
  },
});
const FILINGS = Number(values.filings);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const PORT = Number(values.port);
const BASE = `http://127.0.0.1:${PORT}`;
const BASELINE_PORT = PORT + 1;
const CEILING_PORT = PORT + 2;
const ROWS_ONLY = values["rows-only"];
/**
 * The service writes no request log line unless --request-log: under
 * `wrangler dev` each line costs wrangler and its inspector relay about 2 ms
 * of CPU, more than the ceiling's whole request, where production's
 * console costs microseconds (docs/operations.md). Failed requests are
 * logged either way.
 */
const REQUEST_LOG = values["request-log"];
const OUT = values.write ? "bench/RESULTS.md" : "bench/RESULTS.local.md";
/** The issue's goals (issue 13): at a million filings over 4 shards. */
const GOAL = { ceilingRatio: 0.5, rowsRead: 100, singleStateRoundTrips: 1 };

// --- 1. Data, through the npm scripts ----------------------------------------
/** The local configuration (wrangler.toml's top level): its vars and D1 databases (shards). */
const config = unstable_readConfig({ config: "wrangler.toml" });

/** Each D1 binding's local file, opened read-only (migrations must be applied). */
function localDatabases(): { binding: string; file: string; db: DatabaseSync }[] {
  const declared = config.d1_databases as { binding: string; database_id?: string }[];
  return declared.map(({ binding, database_id }) => {
    const file = localD1File(database_id ?? "");
    if (!existsSync(file)) throw new Error(`${binding}: no local D1 file ${file}; run npm run db:migrate`);
    return { binding, file, db: new DatabaseSync(file, { readOnly: true }) };
  });
}
const countFilings = (dbs: { db: DatabaseSync }[]) =>
  dbs.reduce((n, { db }) => n + Number((db.prepare("select count(*) as n from filings").get() as { n: number }).n), 0);

execFileSync("npm", ["run", "-s", "db:migrate"], { stdio: "ignore" });
let databases = localDatabases();
// The seed adds a share of filings shaped like office data (seed/generate.ts).
if (countFilings(databases) !== generatedCount(FILINGS)) {
  for (const { db } of databases) db.close();
  console.log(`Seeding ${FILINGS.toLocaleString("en-US")} filings (npm run seed) ...`);
  execFileSync("npm", ["run", "-s", "seed", "--", "--filings", String(FILINGS)], { stdio: "inherit" });
  databases = localDatabases();
}
const filingCount = countFilings(databases);
/** Shards of the local layout: the ones a cross-state request reads. */
const shardCount = databases.length;
const now = new Date();

// --- 2. The query mix, from the data itself ----------------------------------
// Busiest of all time rather than of the recency window: seeded filings are
// spread evenly over time, and this reads no stored timestamp, whatever its encoding.
/** The `n` values with the largest summed `count` over every database. */
function top<T>(n: number, sql: string, params: SQLInputValue[], key: (row: T) => string): T[] {
  const seen = new Map<string, { row: T; count: number }>();
  for (const { db } of databases) {
    for (const row of db.prepare(sql).all(...params) as (T & { count: number })[]) {
      const k = key(row);
      const entry = seen.get(k) ?? { row, count: 0 };
      entry.count += Number(row.count);
      seen.set(k, entry);
    }
  }
  return [...seen.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, n)
    .map((e) => e.row);
}
const states = top<{ state: string }>(
  3,
  "select state, count(*) as count from filings group by state order by count desc limit 3",
  [],
  (r) => r.state,
).map((r) => r.state);
const picks: DataPicks = {
  states,
  zips: top<{ zip5: string }>(
    3,
    "select zip5, count(*) as count from debtor_parties where zip5 is not null group by zip5 order by count desc limit 3",
    [],
    (r) => r.zip5,
  ).map((r) => r.zip5),
  lenders: top<{ words: string; state: string }>(
    3,
    "select name_words as words, filing_state as state, count(*) as count from secured_parties where filing_state = ? group by name_words order by count desc limit 3",
    [states[0] ?? "CA"],
    (r) => r.words,
  ).map((r) => ({ name: r.words.split(" ").slice(0, 2).join(" "), state: r.state })),
  debtors: top<{ name: string; state: string }>(
    3,
    "select name, state, filing_count as count from debtor_names order by filing_count desc limit 3",
    [],
    (r) => `${r.state} ${r.name}`,
  ),
  // The first, a middle and the last filing of each database.
  numbers: databases
    .flatMap(({ db }) => {
      const { low, high } = db.prepare("select min(id) as low, max(id) as high from filings").get() as {
        low: number;
        high: number;
      };
      return db
        .prepare("select number, state from filings where id in (?, ?, ?)")
        .all(low, Math.floor((low + high) / 2), high) as { number: string; state: string }[];
    })
    .slice(0, 3),
};
const MIX = LOOKUPS.map((e) => ({ endpoint: e.path, access: e.access, paths: e.bench(picks) }));

// --- The bare baseline: the service's own SQL, replayed (step 4) ------------
type Captured = { binding: string; sql: string; params: SQLInputValue[] }[];
const byBinding = new Map(databases.map((d) => [d.binding, d.db]));

/**
 * A D1 binding over node:sqlite that records every statement it runs:
 * enough of D1's API for drizzle's driver and the app's sessions.
 */
function recordingD1(binding: string, db: DatabaseSync, log: Captured) {
  const statement = (sql: string, params: SQLInputValue[]) => ({
    bind: (...values: unknown[]) => statement(sql, values as SQLInputValue[]),
    run() {
      log.push({ binding, sql, params });
      const results = db.prepare(sql).all(...params);
      return { results, success: true, meta: { rows_read: 0 } };
    },
    async all() {
      return this.run();
    },
    async raw() {
      log.push({ binding, sql, params });
      return db
        .prepare(sql)
        .all(...params)
        .map((r) => Object.values(r as object));
    },
    async first(column?: string) {
      const [row] = this.run().results as Record<string, unknown>[];
      return row === undefined ? null : column ? row[column] : row;
    },
  });
  const d1 = {
    prepare: (sql: string) => statement(sql, []),
    batch: async (statements: ReturnType<typeof statement>[]) => statements.map((s) => s.run()),
    withSession: () => ({ ...d1, getBookmark: () => null }),
  };
  return d1;
}

/** Runs the app in-process over the local SQLite files and returns the SQL each request sends, by binding. */
async function captureSql(paths: string[], key: string): Promise<Map<string, Captured>> {
  const { module } = await runnerImport<typeof import("../src/app.ts")>("./src/app.ts", {
    configFile: false,
    logLevel: "error",
  });
  const app = module.createApp();
  const noCache = { match: async () => undefined, put: async () => undefined };
  Object.assign(globalThis, { caches: { default: noCache } });
  const vars = (config.vars ?? {}) as Record<string, unknown>;
  const keyStore = {
    getWithMetadata: async () => ({
      value: "",
      metadata: { label: "bench", created: now.toISOString(), status: "active", rateLimit: "unmetered" },
    }),
  };
  const allow = { limit: async () => ({ success: true }) };
  const context = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} };
  // The app's request lines (console.info) would bury the report.
  const quiet = { log: console.log, info: console.info };
  console.log = () => {};
  console.info = () => {};
  const out = new Map<string, Captured>();
  try {
    for (const path of paths) {
      const log: Captured = [];
      const d1 = new Map(databases.map(({ binding, db }) => [binding, recordingD1(binding, db, log)]));
      // The config's vars and D1 bindings, the key store, and a limiter that always allows for any other name.
      const env = new Proxy(
        {},
        {
          get: (_, name: string) =>
            name in vars ? vars[name] : (d1.get(name) ?? (name === "API_KEYS" ? keyStore : allow)),
        },
      );
      const res = await app.request(path, { headers: { "x-api-key": key } }, env as Env, context as never);
      if (res.status !== 200) throw new Error(`in-process ${path} answered ${res.status}: ${await res.text()}`);
      out.set(path, log);
    }
  } finally {
    Object.assign(console, quiet);
  }
  return out;
}

// --- 3, 4. Page-1 probes, then driving each server -----------------------------
async function drive(base: string, paths: string[], headers: Record<string, string>) {
  let n = 0;
  return autocannon({
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
}

/** `run` with the workerd CPU time of `dev` (a wrangler dev process) per request it answered. */
async function metered(dev: ChildProcess, run: () => Promise<autocannon.Result>) {
  const cpuBefore = workerdCpuMs(dev.pid ?? 0);
  const result = await run();
  return { result, cpuMs: (workerdCpuMs(dev.pid ?? 0) - cpuBefore) / Math.max(1, result.requests.total) };
}

interface Row {
  endpoint: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  rowsMax: number;
  rowsMean: number;
  /** Most D1 round trips of a request naming one state, and of one spanning states (null: none in the mix). */
  tripsState: number | null;
  tripsAll: number | null;
  baselineRps: number;
  /** workerd CPU ms per request of the service. */
  cpuMs: number;
  /** The ceiling's requests/s, the mean of a reading just before and just after the endpoint's. */
  ceilingRps: number;
  /** The ceiling's workerd CPU ms per request over both readings. */
  ceilingCpuMs: number;
  /** For an endpoint spanning states: the fan-out ceiling's requests/s (one trivial query on every shard). */
  fanoutRps: number | null;
}

/** Page 1 of a request, once: its D1 round trips and rows read (per shard read), from Server-Timing. */
interface Probe {
  path: string;
  trips: number;
  rows: number;
  shards: number;
}
/** Unique per run: the edge cache persists in local state, and a repeated probe would be a hit. */
const PROBE = `probe-${Date.now()}`;
async function probe(path: string, headers: Record<string, string>): Promise<Probe> {
  const res = await fetch(`${BASE}${path}${path.includes("?") ? "&" : "?"}r=${PROBE}`, {
    headers: { ...headers, "cf-connecting-ip": "192.0.2.1" },
  });
  await res.arrayBuffer();
  const timing = res.headers.get("server-timing") ?? "";
  const d1 = /(\d+) batch, (\d+) rows read/.exec(timing);
  if (res.status !== 200 || !d1) throw new Error(`${path}: ${res.status}, no D1 timing`);
  const shards = Number(/(\d+) shards/.exec(timing)?.[1] ?? 1);
  // Per shard read: the busiest shard's rows, when the request read several.
  const busiest = /at most (\d+) on one/.exec(timing)?.[1];
  return { path, trips: Number(d1[1]), rows: Number(busiest ?? d1[2]), shards };
}

const key = await unmeteredKey("benchmark");
const allPaths = MIX.flatMap((m) => m.paths);
const server = startDevServer(PORT, PORT + 1000, REQUEST_LOG ? [] : ["--var", "REQUEST_LOG_SAMPLE:0"]);
const probes = new Map<string, Probe[]>();
try {
  await waitUntilUp(server, BASE);
  for (const { endpoint, access, paths } of MIX) {
    const headers: Record<string, string> = access === "key" ? { "x-api-key": key } : {};
    const results: Probe[] = [];
    for (const path of paths) results.push(await probe(path, headers));
    probes.set(endpoint, results);
  }
} catch (err) {
  process.kill(-server.pid!, "SIGTERM");
  throw err;
}
if (ROWS_ONLY) {
  process.kill(-server.pid!, "SIGTERM");
  console.log(
    `Page 1 of each request, ${filingCount.toLocaleString("en-US")} filings (goal: rows read per shard read <= ${GOAL.rowsRead}):`,
  );
  for (const results of probes.values()) {
    for (const p of results) {
      const over = p.rows > GOAL.rowsRead ? " ✗" : "";
      const spread = p.shards > 1 ? ` (${p.shards} shards)` : "";
      console.log(
        `${String(p.trips).padStart(2)} batch ${String(Math.round(p.rows)).padStart(6)} rows${spread}${over}  ${p.path}`,
      );
    }
  }
  process.exit(0);
}

const captured = await captureSql(allPaths, key);
const baseline = createServer((req, res) => {
  const statements = captured.get((req.url ?? "").replace(/[&?]r=\d+$/, ""));
  if (!statements) {
    res.writeHead(404).end();
    return;
  }
  const results = statements.map(({ binding, sql, params }) =>
    byBinding
      .get(binding)!
      .prepare(sql)
      .all(...params),
  );
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(results));
});
await new Promise<void>((resolve) => baseline.listen(BASELINE_PORT, "127.0.0.1", resolve));

const compatibilityDate = config.compatibility_date;
const ceiling = startDevServer(CEILING_PORT, PORT + 1002, [
  "--config",
  "bench/ceiling/wrangler.toml",
  ...(compatibilityDate ? ["--compatibility-date", compatibilityDate] : []),
]);
const CEILING = `http://127.0.0.1:${CEILING_PORT}`;

const rows: Row[] = [];
const load = loadavg().map((l) => l.toFixed(1));
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
try {
  await waitUntilUp(ceiling, CEILING);
  // Warm both Workers, then the ceiling's first reading.
  await autocannon({ url: `${CEILING}/`, connections: CONNECTIONS, duration: 2 });
  await drive(BASE, allPaths, { "x-api-key": key });
  for (const { endpoint, access, paths } of MIX) {
    const headers: Record<string, string> = access === "key" ? { "x-api-key": key } : {};
    const results = probes.get(endpoint) ?? [];
    const reads = results.map((p) => p.rows);
    const tripsOf = (scope: "state" | "all") => results.filter((p) => scopeOf(p.path) === scope).map((p) => p.trips);
    // The ceiling right before and right after the endpoint, so both see the
    // machine in about the same state; CPU per request barely depends on it.
    const before = await metered(ceiling, () => drive(CEILING, ["/"], headers));
    const spans = tripsOf("all").length > 0;
    const fanout = spans ? await drive(CEILING, [`/fanout/${shardCount}`], headers) : null;
    const { result: service, cpuMs } = await metered(server, () => drive(BASE, paths, headers));
    const after = await metered(ceiling, () => drive(CEILING, ["/"], headers));
    const bare = await drive(`http://127.0.0.1:${BASELINE_PORT}`, paths, {});
    rows.push({
      endpoint,
      rps: service.requests.average,
      p50: service.latency.p50,
      p99: service.latency.p99,
      errors: service.errors + service.timeouts + service.non2xx,
      rowsMax: Math.round(Math.max(...reads)),
      rowsMean: Math.round(mean(reads)),
      tripsState: tripsOf("state").length ? Math.max(...tripsOf("state")) : null,
      tripsAll: tripsOf("all").length ? Math.max(...tripsOf("all")) : null,
      baselineRps: bare.requests.average,
      cpuMs,
      ceilingRps: mean([before.result.requests.average, after.result.requests.average]),
      ceilingCpuMs:
        (before.cpuMs * before.result.requests.total + after.cpuMs * after.result.requests.total) /
        Math.max(1, before.result.requests.total + after.result.requests.total),
      fanoutRps: fanout ? fanout.requests.average : null,
    });
    console.log(JSON.stringify(rows.at(-1)));
  }
} finally {
  process.kill(-server.pid!, "SIGTERM");
  process.kill(-ceiling.pid!, "SIGTERM");
  baseline.close();
}

// --- 5. Size, machine and the report ---------------------------------------------
function bytesPerFiling(): { perFiling: number; files: number; how: string } {
  const scripts = JSON.parse(readFileSync("package.json", "utf8")).scripts ?? {};
  if (scripts["db:size"]) {
    const out = JSON.parse(execFileSync("npm", ["run", "-s", "db:size", "--", "--json"], { encoding: "utf8" }));
    return { perFiling: out.bytesPerFiling, files: out.databases, how: "`npm run db:size` (B-tree pages)" };
  }
  let bytes = 0;
  for (const { db } of databases) {
    const pragma = (name: string) => Number(Object.values(db.prepare(`pragma ${name}`).get() as object)[0]);
    bytes += pragma("page_count") * pragma("page_size");
  }
  return { perFiling: bytes / filingCount, files: databases.length, how: "page_count × page_size of the D1 files" };
}
const size = bytesPerFiling();

execFileSync("wrangler", ["deploy", "--dry-run", "--outdir", ".wrangler/bench-build"], { stdio: "ignore" });
const bundle = readFileSync(".wrangler/bench-build/index.js");
const gzipKb = (gzipSync(bundle).length / 1024).toFixed(1);

const machine = describeMachine();
const mark = (ok: boolean) => (ok ? "" : " ✗");
const fmtTrips = (t: number | null, goal?: number) => (t === null ? "–" : `${t}${goal ? mark(t <= goal) : ""}`);
const table = rows
  .map((r) => {
    const ratio = r.rps / r.ceilingRps;
    const fanout = r.fanoutRps ? `${r.fanoutRps.toFixed(0)} | ${(r.rps / r.fanoutRps).toFixed(2)}` : "– | –";
    const cpu = `${r.cpuMs.toFixed(2)} | ${r.ceilingCpuMs.toFixed(2)} | ${(r.ceilingCpuMs / r.cpuMs).toFixed(2)}`;
    return `| ${r.endpoint} | ${r.rps.toFixed(0)} | ${r.ceilingRps.toFixed(0)} | ${ratio.toFixed(2)}${mark(ratio >= GOAL.ceilingRatio)} | ${cpu} | ${fanout} | ${(r.rps / r.baselineRps).toFixed(2)} | ${r.baselineRps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.rowsMean} | ${r.rowsMax}${mark(r.rowsMax <= GOAL.rowsRead)} | ${fmtTrips(r.tripsState, GOAL.singleStateRoundTrips)} | ${fmtTrips(r.tripsAll)} |`;
  })
  .join("\n");
mkdirSync("bench", { recursive: true });
writeFileSync(
  OUT,
  `# Benchmark results

Run on ${now.toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench -- --filings ${FILINGS}\`, on
${machine}; load average ${load.join(", ")} at the start.

${filingCount.toLocaleString("en-US")} filings in ${size.files} local D1 database file${size.files === 1 ? "" : "s"} (\`wrangler dev\`), ${CONNECTIONS} connections
for ${SECONDS} s per endpoint and server. Every request carries a fresh counter parameter, so none is
served from the edge cache: the figures are the database path.

- **ceiling**: bench/ceiling, a Worker that answers after one \`select 1\` against a local D1, under
  \`wrangler dev\` with the service's flags and compatibility date, driven just before and just
  after each endpoint with the same connections and headers (req/s: the mean of the two).
  **÷ ceiling** is the service's share of it (goal: at least ${GOAL.ceilingRatio}).
- **CPU ms/req**: CPU time (user and system, from \`/proc\`) of the \`wrangler dev\`'s workerd
  processes per request answered, for the service and the ceiling; **÷ ceiling, CPU** is the
  ceiling's over the service's. Unlike req/s it hardly moves with what else the machine runs.
- **fan-out ceiling**: the same Worker at \`/fanout/${shardCount}\`: one \`select 1\` on each of ${shardCount} local D1
  databases at once, each through its own session, as a request spanning states reads every shard.
  **÷ fan-out** is the cross-state endpoints' share of it: how much of their gap is the fan-out
  itself (each extra local D1 call costs about as much CPU as the ceiling's whole request).
- **request log**: ${REQUEST_LOG ? "on (`--request-log`): every request writes its log line" : "off for successful requests (`REQUEST_LOG_SAMPLE=0`; `--request-log` turns it on): under `wrangler dev` each line costs wrangler's console relay about 2 ms of CPU, more than the ceiling's whole request, which production's console does not"}.
- **baseline**: the SQL the service sends for each request (captured by running the app in-process
  over the same SQLite file), replayed with node:sqlite behind node:http. **÷ baseline** is the
  service's share of that.
- **rows read**: D1 \`rows_read\` of page 1 over the endpoint's query mix (busiest states, postal
  codes, lenders and debtors, every filter), from \`Server-Timing\`, per shard read: a request
  spanning states reads each of the ${size.files} shards, and counts here what its busiest shard read; it reads
  up to ${size.files} times this in all (goal: at most ${GOAL.rowsRead}).
- **round trips**: most D1 batches per request, for requests naming one state (goal: ${GOAL.singleStateRoundTrips}) and
  for requests spanning states.
- ✗ marks a figure that misses its goal.

| endpoint | req/s | ceiling req/s | ÷ ceiling | CPU ms/req | ceiling CPU ms/req | ÷ ceiling, CPU | fan-out ceiling req/s | ÷ fan-out | ÷ baseline | baseline req/s | p50 ms | p99 ms | errors | rows read per shard (mean) | rows read per shard (max) | round trips, one state | round trips, all states |
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${table}

Bytes per filing: ${size.perFiling.toFixed(0)} (${size.how}).
Worker bundle (\`wrangler deploy --dry-run\`): ${(bundle.length / 1024).toFixed(1)} KiB, ${gzipKb} KiB gzip.
`,
);
console.log(`Wrote ${OUT}.`);
process.exit(0);
