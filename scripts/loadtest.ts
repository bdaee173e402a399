/**
 * Load test of the local service: starts `wrangler dev` over the local
 * database (seeded if empty), then
 *
 * 1. sends each hostile request (over the 16 KB URL bound, a 65 KB comma
 *    list and a parameter repeated 7,000 times; under it, a 16 KB comma list,
 *    1,100 industry items, a 16,000-character name, a parameter repeated
 *    1,800 times, every parameter bad at once) on its own, at HOSTILE_CONNECTIONS connections for
 *    HOSTILE_SECONDS, and fails if its p99 latency is over 50 ms or its
 *    body over 4 KB;
 * 2. drives the service with a mixed request set (every endpoint, the hostile
 *    requests, bad parameters, missing and wrong keys, unknown paths and
 *    methods) at CONNECTIONS connections for DURATION seconds, after a
 *    warm-up, and fails on any 5xx, connection error or timeout;
 * 3. reports memory before and after that run, absolute and per request:
 *    workerd's resident size, and the Worker's V8 heap after a full garbage
 *    collection. It fails if that heap grew by more than
 *    HEAP_LIMIT_BYTES_PER_REQUEST per request of the run (and by more than
 *    HEAP_NOISE_BYTES in all).
 *
 *   npm run loadtest [-- --duration 60 --connections 64 --port 8791]
 *
 * Why the heap, not the process: the local runtime's resident size grows by
 * tens of kB per request whatever the Worker does (static assets, served
 * without running the Worker, grow it as much) and only levels off above a
 * gigabyte, so its growth cannot tell a leak from the runtime. The Worker's
 * heap after a collection holds exactly what the Worker keeps alive; it is
 * also what the Workers memory limit (128 MB per isolate) applies to.
 * docs/load-test.md has the figures.
 */
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { MAX_URL_LENGTH } from "../src/http/params.ts";
import { LOOKUPS } from "../test/endpoints.ts";
import { commandLine } from "./commandLine.ts";
import {
  exitUnlessPortsFree,
  startDevServer,
  stopDevServer,
  unmeteredKey,
  waitUntilUp,
  workerdCpuMs,
  workerdRssKb,
  workerHeapBytes,
} from "./devServer.ts";

const USAGE = "usage: npm run loadtest -- [--duration 60] [--connections 64] [--port 8791]";
const { values } = commandLine(USAGE, {
  options: {
    duration: { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
    port: { type: "string", default: "8791" },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const PORT = Number(values.port);
/** wrangler dev's inspector, for the Worker's heap. */
const INSPECTOR_PORT = PORT + 1;
const BASE = `http://127.0.0.1:${PORT}`;

/** The bounds of the hostile requests (issue: under 50 ms, under 4 KB). */
const HOSTILE_P99_MS = 50;
const HOSTILE_BODY_BYTES = 4096;
const HOSTILE_CONNECTIONS = 4;
const HOSTILE_SECONDS = 5;
/** Warm-up before the measured run: JIT, lazily built schemas, key caches. */
const WARMUP_SECONDS = 10;
/**
 * Most heap the Worker may keep per request of the measured run. Any
 * per-request leak holds at least a small object (about 100 bytes), so a
 * leak exceeds this whatever the run's length.
 */
const HEAP_LIMIT_BYTES_PER_REQUEST = 64;
/**
 * Growth below this is not judged: the heap after a full collection varies
 * between readings (compiled code, inline caches, the bounded key caches
 * filling), by 40 to 130 kB in our runs. It also keeps a short run on a slow
 * machine, with few requests to divide by, from failing on that noise.
 */
const HEAP_NOISE_BYTES = 1_000_000;

function hostileRequests(key: string): [string, autocannon.Request][] {
  const ok = (path: string) => ({ method: "GET" as const, path, headers: { "x-api-key": key } });
  return [
    // Over the 16 KB URL bound: refused before the query string is parsed.
    ["65 KB comma list", ok(`/filings/recent-by-state?state=CA&industry=${",".repeat(65_000)}`)],
    ["state repeated 7,000 times", ok(`/filings/recent-by-state?${"state=CA&".repeat(7_000)}`)],
    // Just under it: the worst that reaches the parameter checks.
    ["16 KB comma list", ok(`/filings/recent-by-state?state=CA&industry=${",".repeat(16_000)}`)],
    ["1,100 industry items", ok(`/filings/recent-by-state?state=CA&industry=${"Manufacturing,".repeat(1_100)}`)],
    ["16,000-character name", ok(`/debtors/search?state=CA&name=${"x".repeat(16_000)}`)],
    ["state repeated 1,800 times", ok(`/filings/recent-by-state?${"state=CA&".repeat(1_800)}`)],
    [
      "every parameter bad",
      ok(
        `/filings/recent-by-postal-code?postal_code=${"9".repeat(3_000)}&industry=${",x".repeat(5_000)}&envelope=${"c".repeat(3_000)}&page=1e4`,
      ),
    ],
  ];
}

function requestSet(key: string): autocannon.Request[] {
  const ok = (path: string) => ({ method: "GET" as const, path, headers: { "x-api-key": key } });
  return [
    // Every endpoint, with values found in the seeded data (test/endpoints.ts).
    ...LOOKUPS.flatMap((e) =>
      e.seeded.map((path) => (e.access === "key" ? ok(path) : { method: "GET" as const, path })),
    ),
    ok("/filings/recent-by-state?state=ZZ"),
    ok("/filings/recent-by-postal-code?postal_code=abc&envelope=c"),
    ok("/debtors/search?name=&state=CA"),
    ok(`/debtors/search?name=${"x".repeat(500)}&state=CA`),
    ok("/filings/recent-by-state?state=CA&page=0"),
    ok("/filings/recent-by-state?state=CA&page=0x10"),
    ok("/filings/recent-by-state?state=CA&page=999999"),
    { method: "GET", path: "/filings/recent-by-state?state=CA" },
    { method: "GET", path: "/filings/recent-by-state?state=CA", headers: { "x-api-key": "wrong-key" } },
    ok("/no/such/path"),
    { method: "POST", path: "/filings/recent-by-state?state=CA", headers: { "x-api-key": key } },
    ...hostileRequests(key).map(([, request]) => request),
  ];
}

const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;

/** `request` alone at HOSTILE_CONNECTIONS: its status, body size, statuses seen, latency and workerd CPU per request. */
async function alone(request: autocannon.Request) {
  const res = await fetch(`${BASE}${request.path}`, { headers: request.headers as Record<string, string> });
  const size = Buffer.byteLength(await res.text());
  const cpuBefore = workerdCpuMs(server.pid!);
  const result = await autocannon({
    url: BASE,
    connections: HOSTILE_CONNECTIONS,
    duration: HOSTILE_SECONDS,
    requests: [request],
    timeout: 10,
  });
  const cpu = (workerdCpuMs(server.pid!) - cpuBefore) / Math.max(1, result.requests.total);
  const statuses = Object.keys(result.statusCodeStats ?? {});
  const line =
    `${res.status}, ${size} bytes; ${result.requests.total} requests, ` +
    `p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms, ` +
    `workerd CPU ${cpu.toFixed(1)} ms per request` +
    `${statuses.join("") !== String(res.status) ? `; statuses ${statuses.join(", ")}` : ""}` +
    `${result.errors || result.timeouts ? `; ${result.errors} errors, ${result.timeouts} timeouts` : ""}`;
  return { status: res.status, size, statuses, result, line };
}

/**
 * Each hostile request alone: latency under a load of its own kind, and its
 * answer's size. A small 400 is measured the same way first, as the
 * machine's baseline: if it is slow too, the machine is, not the input.
 * workerd's CPU time per request tells the same apart on a busy machine.
 */
async function hostilePhase(key: string): Promise<boolean> {
  let ok = true;
  console.log(`Hostile requests, each at ${HOSTILE_CONNECTIONS} connections for ${HOSTILE_SECONDS}s:`);
  const baseline = await alone({
    method: "GET",
    path: "/filings/recent-by-state?state=ZZ",
    headers: { "x-api-key": key },
  });
  console.log(`       baseline, a small 400 (33 chars): ${baseline.line}`);
  for (const [name, request] of hostileRequests(key)) {
    const { status, size, statuses, result, line } = await alone(request);
    // Over the URL bound, latency is reported, not judged: production's edge
    // refuses such a URL before the Worker runs, and locally the runtime's
    // own handling of it (before the Worker's first line) dominates.
    const timed = request.path!.length <= MAX_URL_LENGTH;
    const passed =
      status === 400 &&
      size <= HOSTILE_BODY_BYTES &&
      (!timed || result.latency.p99 <= HOSTILE_P99_MS) &&
      statuses.join("") === "400" &&
      result.errors === 0 &&
      result.timeouts === 0;
    ok &&= passed;
    const verdict = passed ? (timed ? "ok  " : "ok* ") : "FAIL";
    console.log(`  ${verdict} ${name} (${request.path!.length.toLocaleString("en-US")} chars): ${line}`);
  }
  console.log("  (* over the 16 KB URL bound: size and status judged, latency only reported)");
  return ok;
}

await exitUnlessPortsFree([PORT, INSPECTOR_PORT]);
// The seed migrates the local databases first (seed/seed.ts), then seeds them if they are empty.
execFileSync("node", ["seed/seed.ts", "--if-empty"], { stdio: "inherit" });
const key = await unmeteredKey("load test");
const server = startDevServer(PORT, INSPECTOR_PORT);
let failed = false;
try {
  await waitUntilUp(server, BASE);
  const hostileOk = await hostilePhase(key);

  const mixed = { url: BASE, connections: CONNECTIONS, requests: requestSet(key), timeout: 10 };
  await autocannon({ ...mixed, duration: WARMUP_SECONDS });
  const heapBefore = await workerHeapBytes(INSPECTOR_PORT);
  const rssBefore = workerdRssKb(server.pid!);
  console.log(
    `Load: ${CONNECTIONS} connections for ${DURATION}s against ${BASE}, ${requestSet(key).length} request kinds, after ${WARMUP_SECONDS}s of warm-up`,
  );
  const rss: number[] = [rssBefore];
  const sampler = setInterval(() => rss.push(workerdRssKb(server.pid!)), 5_000);
  const result = await autocannon({ ...mixed, duration: DURATION });
  clearInterval(sampler);
  const rssAfter = workerdRssKb(server.pid!);
  rss.push(rssAfter);
  const heapAfter = await workerHeapBytes(INSPECTOR_PORT);

  const total = Math.max(1, result.requests.total);
  const byStatus = Object.entries(result.statusCodeStats ?? {})
    .map(([status, s]) => `${status}: ${(s as { count: number }).count}`)
    .join(", ");
  const fiveXx = result["5xx"];
  console.log(`Requests: ${result.requests.total} in ${result.duration}s (${result.requests.average}/s average)`);
  console.log(`By status: ${byStatus}`);
  console.log(`Latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
  console.log(`Errors: ${result.errors}, timeouts: ${result.timeouts}`);
  console.log(`workerd resident memory, every 5s: ${rss.map((kb) => (kb / 1024).toFixed(0)).join(" ")} MB`);
  console.log(
    `workerd resident memory: ${mb(rssBefore)} before, ${mb(rssAfter)} after, ${((rssAfter - rssBefore) / total).toFixed(1)} kB per request (the local runtime's own growth; reported, not judged)`,
  );
  const heapPerRequest = (heapAfter - heapBefore) / total;
  console.log(
    `Worker heap after a full collection: ${(heapBefore / 1e6).toFixed(2)} MB before, ${(heapAfter / 1e6).toFixed(2)} MB after, ${heapPerRequest.toFixed(1)} bytes per request (fails above ${HEAP_LIMIT_BYTES_PER_REQUEST} and ${HEAP_NOISE_BYTES / 1e6} MB in all)`,
  );

  const grew = heapPerRequest > HEAP_LIMIT_BYTES_PER_REQUEST && heapAfter - heapBefore > HEAP_NOISE_BYTES;
  if (!hostileOk) console.log(`FAIL: a hostile request took over ${HOSTILE_P99_MS} ms at p99 or answered over 4 KB`);
  if (fiveXx > 0) console.log(`FAIL: ${fiveXx} responses were 5xx`);
  if (result.errors > 0 || result.timeouts > 0) console.log("FAIL: connection errors or timeouts");
  if (grew) console.log("FAIL: the Worker's heap grew with the requests it served");
  failed = !hostileOk || fiveXx > 0 || result.errors > 0 || result.timeouts > 0 || grew;
  console.log(
    failed ? "Load test failed." : "Load test passed: hostile requests fast and small, no 5xx, no errors, heap steady.",
  );
} finally {
  stopDevServer(server);
}
process.exit(failed ? 1 : 0);
