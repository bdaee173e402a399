/**
 * Benchmark of loading, and of what the change log adds to it:
 *
 *   npm run bench:load [-- --filings 1000000 --work DIR --reuse-backfill --write]
 *
 * 1. A backfill: `npm run import` of a generated feed (`npm run seed --
 *    --out`) into empty local databases in DIR (bulk mode, which records no
 *    changes), as an operator runs it; its wall and CPU time, and bytes per
 *    filing after it (`npm run db:size`).
 * 2. A daily delta onto two copies of that state: 10,000 filings changed
 *    (a new continuation each) and 10,000 new, loaded by the import's own
 *    path (importSharded, as the CLI runs it, without its progress output),
 *    recording changes and not, twice each in the order not, with, with,
 *    not (so neither side always runs on a warmer file cache): the
 *    difference of the means is what the change log costs a delta.
 *    --reuse-backfill keeps DIR's backfill from an earlier run.
 * 3. Bytes per change: the `changes` B-tree and its indexes (dbstat), over
 *    the changes the delta recorded.
 *
 * Results go to bench/LOADS.local.md (untracked); --write updates the
 * committed bench/LOADS.md.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { Readable } from "node:stream";
import { refreshQueued } from "../src/db/load.ts";
import { readFeed } from "../src/feed/read.ts";
import { findRepeats } from "../src/feed/repeats.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { commandLine } from "./commandLine.ts";
import { machine as describeMachine } from "./devServer.ts";
import { openShards } from "./feedDb.ts";
import { localFiles, shardConfig } from "./shardConfig.ts";

const USAGE = "usage: npm run bench:load -- [--filings 100000] [--work DIR] [--reuse-backfill] [--write]";
const { values } = commandLine(USAGE, {
  options: {
    filings: { type: "string", default: "100000" },
    work: { type: "string", default: ".wrangler/bench-load" },
    write: { type: "boolean", default: false },
    "reuse-backfill": { type: "boolean", default: false },
  },
});
const FILINGS = Number(values.filings);
const WORK = resolve(values.work ?? ".wrangler/bench-load");
const OUT = values.write ? "bench/LOADS.md" : "bench/LOADS.local.md";
const DELTA_CHANGED = 10_000;
const DELTA_NEW = 10_000;
mkdirSync(WORK, { recursive: true });

/** CPU seconds of this process's finished children (user + system), from /proc. */
function childrenCpu(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]?.split(" ") ?? [];
  // cutime and cstime: fields 16 and 17 of stat, 14 and 15 after the command.
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function ownCpu(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

// 1. The feed and the backfill.
const feed = join(WORK, `feed-${FILINGS}.ndjson`);
if (!existsSync(feed)) {
  console.error(`generating ${fmt(FILINGS)} filings as ${feed}...`);
  execFileSync(process.execPath, ["seed/seed.ts", "--filings", String(FILINGS), "--out", feed], { stdio: "inherit" });
}
const base = join(WORK, "base");
const backfillFigures = join(WORK, "backfill.json");
let backfillWall: number;
let backfillCpu: number;
if (values["reuse-backfill"] && existsSync(backfillFigures)) {
  ({ backfillWall, backfillCpu } = JSON.parse(readFileSync(backfillFigures, "utf8")));
  console.error(`backfill: kept from an earlier run (${base})`);
} else {
  rmSync(base, { recursive: true, force: true });
  console.error("backfill (bulk mode)...");
  const started = Date.now();
  const cpu = childrenCpu();
  const backfill = spawnSync(process.execPath, ["scripts/import.ts", feed, "--persist-to", base], { encoding: "utf8" });
  if (backfill.status !== 0 && backfill.status !== 3) throw new Error(`backfill failed:\n${backfill.stderr}`);
  backfillWall = (Date.now() - started) / 1000;
  backfillCpu = childrenCpu() - cpu;
  writeFileSync(backfillFigures, JSON.stringify({ backfillWall, backfillCpu }));
}
const size = JSON.parse(
  execFileSync(process.execPath, ["scripts/dbSize.ts", "--persist-to", base, "--json"], { encoding: "utf8" }),
) as { filings: number; bytesPerFiling: number };

// 2. The delta: changed filings first (a continuation each), then new ones.
const delta = join(WORK, "delta.ndjson");
{
  // The feed's first lines (the whole file is larger than a string may be).
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(feed), crlfDelay: Number.POSITIVE_INFINITY })) {
    lines.push(line);
    if (lines.length === DELTA_CHANGED + DELTA_NEW) break;
  }
  const today = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const out = lines.map((line, i) => {
    const lien = JSON.parse(line);
    if (i < DELTA_CHANGED) {
      lien.amendments = [
        ...(lien.amendments ?? []),
        {
          amendment_financing_number: `${lien.initial_financing_number}-BENCH`,
          amendment_financing_date: today,
          amendment_financing_type_description: "Continuation",
        },
      ];
    } else lien.initial_financing_number = `${lien.initial_financing_number}-NEW`;
    return JSON.stringify(lien);
  });
  writeFileSync(delta, `${out.join("\n")}\n`);
}

async function loadDelta(dir: string, recordChanges: boolean) {
  rmSync(dir, { recursive: true, force: true });
  cpSync(base, dir, { recursive: true });
  const target = { remote: false, persistTo: dir };
  const { shards, dispose } = await openShards(target);
  const stream = () => Readable.toWeb(createReadStream(delta)) as unknown as ReadableStream<Uint8Array>;
  const now = new Date();
  const began = Date.now();
  const before = ownCpu();
  const { repeats } = await findRepeats(readFeed(delta, stream(), { now }));
  const summary = await importSharded(shards, delta, stream(), { now, repeats, deferRefresh: true, recordChanges });
  for (const db of shards.databases.values()) await refreshQueued(db);
  const took = { wall: (Date.now() - began) / 1000, cpu: ownCpu() - before, summary };
  await dispose();
  return took;
}

type Took = Awaited<ReturnType<typeof loadDelta>>;
const runs: { without: Took[]; with: Took[] } = { without: [], with: [] };
for (const recordChanges of [false, true, true, false]) {
  console.error(`delta, ${recordChanges ? "recording changes" : "recording no changes"}...`);
  const took = await loadDelta(join(WORK, recordChanges ? "delta-with" : "delta-without"), recordChanges);
  runs[recordChanges ? "with" : "without"].push(took);
}
const mean = (list: Took[], key: "wall" | "cpu") => list.reduce((sum, t) => sum + t[key], 0) / list.length;
const without = { wall: mean(runs.without, "wall"), cpu: mean(runs.without, "cpu") };
const withChanges = { wall: mean(runs.with, "wall"), cpu: mean(runs.with, "cpu"), summary: runs.with[0]!.summary };
const each = (list: Took[], key: "wall" | "cpu") => list.map((t) => fmt(t[key], 1)).join(" and ");

// 3. Bytes per change.
let changeBytes = 0;
let changeRows = 0;
for (const { file } of localFiles(await shardConfig(), join(WORK, "delta-with"))) {
  const db = new DatabaseSync(file, { readOnly: true });
  const names = new Set(
    (db.prepare("select name from sqlite_master where tbl_name = 'changes'").all() as { name: string }[]).map(
      (r) => r.name,
    ),
  );
  for (const { name, pgsize } of db.prepare("select name, pgsize from dbstat('main', 1)").all() as {
    name: string;
    pgsize: number;
  }[]) {
    if (names.has(name)) changeBytes += Number(pgsize);
  }
  changeRows += Number((db.prepare("select count(*) as n from changes").get() as { n: number }).n);
  db.close();
}

const pct = (a: number, b: number) => `${a >= b ? "+" : ""}${fmt(((a - b) / b) * 100, 1)}%`;
const machine = `${describeMachine()}; load average ${loadavg()
  .map((l) => l.toFixed(1))
  .join(", ")} at the end`;
const report = `# Load benchmark

Run on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench:load -- --filings ${FILINGS}${values["reuse-backfill"] ? " --reuse-backfill" : ""}\`, on
${machine}. Local D1 files, written in-process (docs/feeds/loading.md); wall
times move with whatever else the machine runs, CPU times hardly.

| load | filings | wall | CPU | changes recorded |
|---|---|---|---|---|
| backfill into empty databases (bulk mode, \`npm run import\`) | ${fmt(size.filings)} | ${fmt(backfillWall, 1)} s | ${fmt(backfillCpu, 1)} s | none (a backfill records none) |
| daily delta, recording no changes (mean of 2) | ${fmt(DELTA_CHANGED + DELTA_NEW)} (${fmt(DELTA_CHANGED)} changed, ${fmt(DELTA_NEW)} new) | ${fmt(without.wall, 1)} s (${each(runs.without, "wall")}) | ${fmt(without.cpu, 1)} s (${each(runs.without, "cpu")}) | – |
| daily delta, recording changes (mean of 2) | ${fmt(DELTA_CHANGED + DELTA_NEW)} | ${fmt(withChanges.wall, 1)} s (${each(runs.with, "wall")}) | ${fmt(withChanges.cpu, 1)} s (${each(runs.with, "cpu")}) | ${fmt(changeRows)} |

- The change log's cost on the delta, mean against mean: ${pct(withChanges.cpu, without.cpu)} CPU, ${pct(withChanges.wall, without.wall)} wall (goal: under 15%).
- Bytes per change: ${fmt(changeRows > 0 ? changeBytes / changeRows : 0, 1)} (the \`changes\` B-tree and its indexes, ${fmt(changeBytes / 1024)} KiB for ${fmt(changeRows)} changes; goal: under 100).
- Bytes per filing after the backfill: ${fmt(size.bytesPerFiling)} (\`npm run db:size\`), change-feed columns and indexes included.
- The delta's summary: ${fmt(withChanges.summary.inserted)} inserted, ${fmt(withChanges.summary.updated)} updated, ${fmt(withChanges.summary.unchanged)} unchanged.
`;
writeFileSync(OUT, report);
console.log(report);
console.error(`written to ${OUT}`);
