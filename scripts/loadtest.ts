/**
 * Load test of the local service: starts `wrangler dev` over the local
 * database (seeded if empty), then drives it with a mixed request set (every
 * endpoint, bad parameters, missing and wrong keys, unknown paths and
 * methods) at CONNECTIONS concurrent connections for DURATION seconds.
 *
 *   npm run loadtest [-- --duration 60 --connections 64]
 *
 * Reports requests by status and memory. Fails (exit 1) on any 5xx, any
 * connection error or timeout, or a worker whose memory keeps growing.
 *
 * Memory: the local runtime (workerd under wrangler dev) itself retains
 * about 20 kB per request, whatever the Worker does, so raw growth says
 * nothing about the Worker. The test first measures that baseline with a
 * static asset (served without running the Worker), then the growth per
 * request under the mixed load; the Worker leaks if the latter exceeds twice
 * the baseline plus 2 kB per request.
 */
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startDevServer, unmeteredKey, waitUntilUp, workerdRssKb } from "./devServer.ts";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "60" },
    connections: { type: "string", default: "64" },
    port: { type: "string", default: "8791" },
  },
});
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const PORT = Number(values.port);
const BASE = `http://127.0.0.1:${PORT}`;

function requestSet(key: string): autocannon.Request[] {
  const ok = (path: string) => ({ method: "GET" as const, path, headers: { "x-api-key": key } });
  return [
    ok("/filings/recent-by-state?state=CA"),
    ok("/filings/recent-by-state?state=TX&industry=Manufacturing,Food%20%26%20Beverage&page=2"),
    ok("/filings/recent-by-postal-code?postal_code=75210"),
    ok("/filings/recent-by-postal-code?postal_code=14222&envelope=b"),
    ok("/secureds/recent-by-secured-party?name=wells%20fargo&state=CA"),
    ok("/secureds/recent-by-secured-party?name=corporation%20service&state=NY&borrower_type=Organization&envelope=a"),
    ok("/filings/recently-terminated?state=NY"),
    ok("/debtors/search?name=Sanchez%20%26%20Sons%20Cafe&state=NY"),
    ok("/debtors/addresses?name=Sanchez%20%26%20Sons%20Cafe"),
    ok("/debtors/associated/?name=Sanchez%20%26%20Sons%20Cafe&state=NY"),
    ok("/debtors/search-similar?name=Sanches%20and%20Son%20Cafe"),
    ok("/debtors/search-similar?name=Prarie%20Bakery&state=CA"),
    { method: "GET", path: "/filings?initial_financing_number=00001434&state=OH" },
    ok("/filings/recent-by-state?state=ZZ"),
    ok("/filings/recent-by-postal-code?postal_code=abc&envelope=c"),
    ok("/debtors/search?name=&state=CA"),
    ok(`/debtors/search?name=${"x".repeat(500)}&state=CA`),
    ok("/filings/recent-by-state?state=CA&page=0"),
    ok("/filings/recent-by-state?state=CA&page=999999"),
    { method: "GET", path: "/filings/recent-by-state?state=CA" },
    { method: "GET", path: "/filings/recent-by-state?state=CA", headers: { "x-api-key": "wrong-key" } },
    ok("/no/such/path"),
    { method: "POST", path: "/filings/recent-by-state?state=CA", headers: { "x-api-key": key } },
  ];
}

/** Resident memory added per request (kB) while `run` drives the server. */
async function growthPerRequest(run: () => Promise<autocannon.Result>): Promise<number> {
  const before = workerdRssKb(server.pid!);
  const result = await run();
  return (workerdRssKb(server.pid!) - before) / Math.max(1, result.requests.total);
}

execFileSync("npm", ["run", "-s", "db:migrate"], { stdio: "ignore" });
execFileSync("node", ["seed/seed.ts", "--if-empty"], { stdio: "inherit" });
const key = await unmeteredKey("load test");
const server = startDevServer(PORT);
let failed = false;
try {
  await waitUntilUp(server, BASE);
  const baseline = await growthPerRequest(() =>
    autocannon({ url: `${BASE}/docs/init.js`, connections: CONNECTIONS, duration: 10 }),
  );
  console.log(
    `Load: ${CONNECTIONS} connections for ${DURATION}s against ${BASE}, ${requestSet(key).length} request kinds`,
  );
  const before = workerdRssKb(server.pid!);
  const memory: number[] = [];
  const sampler = setInterval(() => memory.push(workerdRssKb(server.pid!)), 5_000);
  const result = await autocannon({
    url: BASE,
    connections: CONNECTIONS,
    duration: DURATION,
    requests: requestSet(key),
    timeout: 10,
  });
  clearInterval(sampler);
  memory.push(workerdRssKb(server.pid!));

  const byStatus = Object.entries(result.statusCodeStats ?? {})
    .map(([status, s]) => `${status}: ${(s as { count: number }).count}`)
    .join(", ");
  const fiveXx = result["5xx"];
  console.log(`Requests: ${result.requests.total} in ${result.duration}s (${result.requests.average}/s average)`);
  console.log(`By status: ${byStatus}`);
  console.log(`Latency: p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`);
  console.log(`Errors: ${result.errors}, timeouts: ${result.timeouts}`);
  console.log(`workerd memory (MB, every 5s): ${memory.map((kb) => (kb / 1024).toFixed(0)).join(" ")}`);

  const perRequest = (memory.at(-1)! - before) / result.requests.total;
  console.log(
    `Memory growth per request: ${perRequest.toFixed(1)} kB under load, ${baseline.toFixed(1)} kB for a static asset (runtime baseline)`,
  );
  const grew = perRequest > 2 * baseline + 2;
  if (fiveXx > 0) console.log(`FAIL: ${fiveXx} responses were 5xx`);
  if (result.errors > 0 || result.timeouts > 0) console.log("FAIL: connection errors or timeouts");
  if (grew) console.log("FAIL: worker memory kept growing");
  failed = fiveXx > 0 || result.errors > 0 || result.timeouts > 0 || grew;
  console.log(failed ? "Load test failed." : "Load test passed: no 5xx, no errors, memory steady.");
} finally {
  process.kill(-server.pid!, "SIGTERM");
}
process.exit(failed ? 1 : 0);
