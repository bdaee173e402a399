/**
 * The console's first search against the same search through Swagger UI's
 * /docs page, in Debian's chromium over `wrangler dev` with the seeded data:
 *
 *   npm run bench:console [-- --runs 10]
 *
 * Each run is a fresh browser (empty cache, new profile) that opens the
 * page, searches "Harbor Manufacturing Inc" in CA with the key, and stops
 * when the first result shows: in the console, the first row of the
 * results table; in Swagger UI, the response body after "Try it out" and
 * "Execute" (the operation's examples are that same search). Measured:
 * bytes transferred (the browser's own count, Chrome's "transferred":
 * encoded bodies and headers, as wrangler dev compresses them), the time
 * from opening the page to the first result, and from sending the search
 * to it. Medians of --runs runs after one unmeasured warm-up each, the
 * two pages alternating.
 *
 * Each run comes from its own client address (a `cf-connecting-ip`
 * header, as scripts/bench.ts does), so the public lookup's limit of 60 a
 * minute per address, which the console's per-row lookups count against,
 * does not throttle the benchmark. Writes bench/CONSOLE.md.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { type DevWorker, LOCAL_DEV_KEY, startDevWorker } from "../test/node/devWorker.ts";
import { consoleAssets, launchChromium } from "./browser.ts";
import { commandLine } from "./commandLine.ts";
import { machine } from "./devServer.ts";
import { median } from "./stats.ts";

const USAGE = "usage: npm run bench:console -- [--runs 10]";
const { values } = commandLine(USAGE, { options: { runs: { type: "string", default: "10" } } });
const RUNS = Number(values.runs);
const SEARCH = { name: "Harbor Manufacturing Inc", state: "CA" };

interface Run {
  bytes: number;
  requests: number;
  /** Opening the page to the first result, ms. */
  total: number;
  /** Sending the search to the first result, ms. */
  first: number;
  /** Sending the search to the whole page of results, ms. */
  complete: number;
}

/** The page's way to its results: when the search was sent, and when its first result showed. */
type Flow = (page: Page, base: string) => Promise<{ sent: number; first: number }>;

const consoleFlow: Flow = async (page, base) => {
  await page.goto(`${base}/console`);
  await page.getByLabel("API key").fill(LOCAL_DEV_KEY);
  await page.getByLabel("Debtor name").fill(SEARCH.name);
  await page.getByLabel("State", { exact: true }).selectOption(SEARCH.state);
  const sent = performance.now();
  await page.getByRole("button", { name: "Search" }).click();
  await page.locator("table.liens tbody tr").first().waitFor();
  const first = performance.now();
  // Status and lapse dates come from each row's own lookup: the page is complete when they are in.
  await page.getByText("Looking up…").first().waitFor({ state: "detached" });
  return { sent, first };
};

const swaggerFlow: Flow = async (page, base) => {
  await page.goto(`${base}/docs`);
  await page.getByRole("button", { name: "Authorize" }).first().click();
  await page.locator(".modal-ux input").fill(LOCAL_DEV_KEY);
  await page.locator(".modal-ux button.authorize").click();
  await page.locator(".modal-ux button.btn-done").click();
  await page.locator("#operations-Debtors-searchDebtorFilings .opblock-summary-control").click();
  await page.getByRole("button", { name: "Try it out" }).click();
  const sent = performance.now();
  await page.getByRole("button", { name: "Execute" }).click();
  await page.locator(".responses-wrapper .live-responses-table .response-col_description pre").first().waitFor();
  return { sent, first: performance.now() };
};

async function measure(base: string, flow: Flow, address: string): Promise<Run> {
  const browser = await launchChromium();
  try {
    const page = await browser.context.newPage();
    await page.setExtraHTTPHeaders({ "cf-connecting-ip": address });
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send("Network.enable");
    let bytes = 0;
    let requests = 0;
    cdp.on("Network.loadingFinished", (event) => {
      bytes += event.encodedDataLength;
      requests++;
    });
    const opened = performance.now();
    const { sent, first } = await flow(page, base);
    const done = performance.now();
    // Let the last loadingFinished events arrive.
    await page.waitForLoadState("networkidle");
    return { bytes, requests, total: first - opened, first: first - sent, complete: done - sent };
  } finally {
    await browser.close();
  }
}

async function main() {
  const assets = await consoleAssets();
  let worker: DevWorker | undefined;
  try {
    worker = await startDevWorker(["--assets", assets.dir]);
    const pages: [string, Flow][] = [
      ["Console (/console)", consoleFlow],
      ["Swagger UI (/docs)", swaggerFlow],
    ];
    const runs = new Map<string, Run[]>(pages.map(([name]) => [name, []]));
    let address = 0;
    for (let i = -1; i < RUNS; i++) {
      for (const [name, flow] of pages) {
        const run = await measure(worker.base, flow, `192.0.2.${++address}`);
        if (i >= 0) runs.get(name)?.push(run);
        console.error(
          `${name} run ${i < 0 ? "warm-up" : i + 1}: ${run.bytes} bytes, first result ${run.first.toFixed(0)} ms`,
        );
      }
    }
    const rows = pages.map(([name]) => {
      const r = runs.get(name) ?? [];
      const kb = (median(r.map((x) => x.bytes)) / 1024).toFixed(1);
      const ms = (pick: (x: Run) => number) => `${median(r.map(pick)).toFixed(0)} ms`;
      return `| ${name} | ${kb} KB | ${median(r.map((x) => x.requests))} | ${ms((x) => x.total)} | ${ms((x) => x.first)} | ${ms((x) => x.complete)} |`;
    });
    const text = `# Console benchmark

\`npm run bench:console\` (scripts/benchConsole.ts): the first search, "${SEARCH.name}" in ${SEARCH.state} with a key,
in the console and through Swagger UI's "Try it out" on /docs, each run in a fresh Debian chromium (empty cache)
against \`wrangler dev\` over the seeded data on this machine. Medians of ${RUNS} runs each, after a warm-up.

| Page | Transferred | Requests | Page opened to first result | Search sent to first result | Search sent to whole page |
| --- | --- | --- | --- | --- | --- |
${rows.join("\n")}

- **Transferred**: the browser's count of bytes received (encoded bodies and headers, compressed as
  wrangler dev compresses them, as Cloudflare's edge does): the page, its script and stylesheet (Swagger UI:
  its bundle and the OpenAPI document), the favicon and the API's answers.
- **First result**: the console's first results row; Swagger UI's response body. **Whole page**: for the
  console, also the status and lapse date of every row, which come from each filing's own public lookup
  (five, in parallel, after the search answers); for Swagger UI, the same moment as its first result.
- "Page opened" includes the automation typing the form (the same fields in both pages: the console's key,
  name and state; Swagger UI's key in its Authorize dialog, the operation opened and "Try it out").
- Each run comes from its own client address (a \`cf-connecting-ip\` header) so the public lookup's
  per-address limit does not throttle it. The Worker's edge cache keeps an answer it is asked for twice
  within a minute, so after the first runs both pages' searches are cache hits alike.

Machine: ${machine()}.
Run: ${new Date().toISOString().slice(0, 10)}.
`;
    writeFileSync(join(import.meta.dirname, "..", "bench", "CONSOLE.md"), text);
    console.error("Wrote bench/CONSOLE.md");
  } finally {
    await worker?.stop();
    assets.remove();
  }
}

await main();
