/**
 * Benchmark of loading a state's file: the in-process CLI (bulk mode, as
 * into an empty database, and the ordinary path with --no-bulk) beside the
 * platform (the LoadFeed Workflow under `wrangler dev`, driven by `npm run
 * import -- FILE --workflow`), each into empty local state:
 *
 *   npm run bench:platform [-- --filings 100000 --xml-mb 150 --write]
 *
 * Files: `npm run seed -- --filings N --out` (NDJSON) and a generated
 * IACA-style XML bulk file of about --xml-mb MB (test/xmlFeed.ts). For each
 * file and path: wall time and records a second; for the Workflow also its
 * range steps (how many, records per step, seconds per step: mean and
 * slowest, from the step times the local explorer API gives), its
 * aggregates steps, and the CPU of the session's workerd processes.
 * Results go to bench/PLATFORM.local.md (untracked); --write updates the
 * committed bench/PLATFORM.md.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { generatedXml } from "../test/xmlFeed.ts";
import { commandLine } from "./commandLine.ts";
import { freePort, machine, startDevServer, stopDevServer, waitUntilUp, workerdCpuMs } from "./devServer.ts";
import { localD1File, shardConfig } from "./shardConfig.ts";

const USAGE = "usage: npm run bench:platform -- [--filings 100000] [--xml-mb 150] [--write]";
const { values } = commandLine(USAGE, {
  options: {
    filings: { type: "string", default: "100000" },
    "xml-mb": { type: "string", default: "150" },
    write: { type: "boolean", default: false },
  },
});
const FILINGS = Number(values.filings);
const XML_MB = Number(values["xml-mb"]);
const OUT = values.write ? "bench/PLATFORM.md" : "bench/PLATFORM.local.md";

const work = mkdtempSync(join(tmpdir(), "lien-bench-load-"));
const env = {
  ...process.env,
  PATH: `${process.cwd()}/node_modules/.bin:${process.env.PATH}`,
  // A dev registry of its own: no other session takes the CLI's messages.
  WRANGLER_REGISTRY_PATH: join(work, "registry"),
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};
Object.assign(process.env, {
  WRANGLER_REGISTRY_PATH: env.WRANGLER_REGISTRY_PATH,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
});

function node(args: string[]) {
  const result = spawnSync(process.execPath, args, { encoding: "utf8", env, maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0 && result.status !== 3) {
    throw new Error(`node ${args.join(" ")} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  }
  return result;
}

const records = (stdout: string) => Number(/^Imported: ([\d,]+) records read/m.exec(stdout)?.[1]?.replaceAll(",", ""));

console.error("Generating the files...");
const ndjson = join(work, `generated-${FILINGS}.ndjson`);
node(["seed/seed.ts", "--filings", String(FILINGS), "--out", ndjson]);
const xml = join(work, `generated-${XML_MB}mb.xml`);
{
  const out = createWriteStream(xml);
  for await (const chunk of generatedXml(XML_MB).stream) if (!out.write(chunk)) await once(out, "drain");
  out.end();
  await once(out, "finish");
}

interface Run {
  file: string;
  path: string;
  records: number;
  seconds: number;
  steps?: { ranges: number; meanRange: number; slowestRange: number; aggregates: number };
  cpuSeconds?: number;
}
const runs: Run[] = [];
const load = loadavg().map((l) => l.toFixed(1));

function inProcess(file: string, bulk: boolean) {
  const state = join(work, `state-${runs.length}`);
  node(["scripts/migrate.ts", "--persist-to", state]);
  const started = Date.now();
  const result = node(["scripts/import.ts", file, "--persist-to", state, ...(bulk ? [] : ["--no-bulk"])]);
  runs.push({
    file,
    path: bulk ? "in-process, bulk mode (empty database)" : "in-process, ordinary (--no-bulk)",
    records: records(result.stdout),
    seconds: (Date.now() - started) / 1000,
  });
  rmSync(state, { recursive: true, force: true });
}

async function onPlatform(file: string) {
  const state = join(work, `state-${runs.length}`);
  node(["scripts/migrate.ts", "--persist-to", state]);
  const port = await freePort();
  const server = startDevServer(port, undefined, ["--persist-to", state]);
  try {
    await waitUntilUp(server, `http://127.0.0.1:${port}`);
    const cpuBefore = workerdCpuMs(server.pid ?? 0);
    const started = Date.now();
    const result = node(["scripts/import.ts", file, "--workflow", "--port", String(port), "--persist-to", state]);
    const seconds = (Date.now() - started) / 1000;
    const cpuSeconds = (workerdCpuMs(server.pid ?? 0) - cpuBefore) / 1000;
    const db = new DatabaseSync(localD1File((await shardConfig()).databases[0]?.databaseId ?? "", state), {
      readOnly: true,
    });
    const { id } = db.prepare("select id from feed_loads").get() as { id: string };
    db.close();
    const api = `http://127.0.0.1:${port}/cdn-cgi/local/explorer/api/workflows/lien-load-feed/instances/${id}`;
    const { result: instance } = (await (await fetch(api)).json()) as {
      result: { steps: { name: string; start: string; end: string }[] };
    };
    const took = (s: { start: string; end: string }) => (Date.parse(s.end) - Date.parse(s.start)) / 1000;
    const ranges = instance.steps.filter((s) => s.name.startsWith("range ")).map(took);
    const aggregates = instance.steps.filter((s) => s.name.startsWith("aggregates ")).map(took);
    runs.push({
      file,
      path: "platform: LoadFeed Workflow under `wrangler dev` (`--workflow`)",
      records: records(result.stdout),
      seconds,
      cpuSeconds,
      steps: {
        ranges: ranges.length,
        meanRange: ranges.reduce((a, b) => a + b, 0) / ranges.length,
        slowestRange: Math.max(...ranges),
        aggregates: aggregates.reduce((a, b) => a + b, 0),
      },
    });
  } finally {
    stopDevServer(server);
    rmSync(state, { recursive: true, force: true });
  }
}

for (const file of [ndjson, xml]) {
  console.error(`${file}: in-process, bulk mode...`);
  inProcess(file, true);
  console.error(`${file}: in-process, ordinary...`);
  inProcess(file, false);
  console.error(`${file}: through the Workflow...`);
  await onPlatform(file);
}

const n = (x: number, digits = 0) =>
  x.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const rows = runs
  .map((r) => {
    const name =
      r.file === ndjson
        ? `NDJSON, ${n(statSync(ndjson).size / 2 ** 20)} MB`
        : `XML, ${n(statSync(xml).size / 2 ** 20)} MB`;
    const steps = r.steps
      ? `${r.steps.ranges} | ${n(r.records / r.steps.ranges)} | ${n(r.steps.meanRange, 2)} | ${n(r.steps.slowestRange, 2)} | ${n(r.steps.aggregates, 1)}`
      : "– | – | – | – | –";
    return `| ${name} | ${r.path} | ${n(r.records)} | ${n(r.seconds, 1)} | ${n(r.records / r.seconds)} | ${steps} | ${r.cpuSeconds === undefined ? "–" : n(r.cpuSeconds, 1)} |`;
  })
  .join("\n");
mkdirSync("bench", { recursive: true });
writeFileSync(
  OUT,
  `# Loading on the platform: benchmark

Run on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench:platform -- --filings ${FILINGS} --xml-mb ${XML_MB}\`, on
${machine()}; load average ${load.join(", ")} at the start.

Each load goes into empty local state (4 shards, wrangler.toml's top level). The files:
\`npm run seed -- --filings ${FILINGS} --out\` (NDJSON) and a generated IACA-style XML bulk file
(test/xmlFeed.ts: one initial filing per FileDetail, two debtors each).

- **in-process**: \`npm run import -- FILE\`, which reads the file and writes the local D1 files in
  Node; bulk mode is what it does into an empty database, \`--no-bulk\` the ordinary path a daily
  delta takes (the one the Workflow's steps take too).
- **platform**: \`npm run import -- FILE --workflow\` against \`wrangler dev\`: the file put in the
  local R2 bucket, the queue message, the LoadFeed Workflow's steps (ranges of 4 MiB or 10,000
  records, then the aggregates), followed to the end. Seconds include the upload.
- **range steps**: how many, records per step, seconds per step (mean and slowest), from the step
  times of the local explorer API; **aggregates** is the seconds of the aggregates steps.
- **workerd CPU**: user and system CPU seconds of the \`wrangler dev\` session's workerd processes
  (the Worker, local D1 and R2, the Workflow engine) during the load.

| file | path | records | seconds | records/s | range steps | records per step | s per step (mean) | s per step (slowest) | aggregates s | workerd CPU s |
|---|---|---|---|---|---|---|---|---|---|---|
${rows}
`,
);
console.error(`Wrote ${OUT}`);
rmSync(work, { recursive: true, force: true });
