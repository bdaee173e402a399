/**
 * Benchmark of webhooks and of the change feed's name index:
 *
 *   npm run bench:webhooks [-- --filings 100000 --work DIR --reuse-backfill --write]
 *
 * 1. A backfill of generated filings into empty local databases (bulk mode,
 *    as bench:load), copied for the run; an API key; 1,000 subscriptions of
 *    500 debtor names each, drawn from the names stored.
 * 2. A daily delta of 20,000 filings (10,000 changed by a continuation,
 *    10,000 new) loaded in-process, as `npm run import` loads it: its wall
 *    and CPU time, and the name index's bytes per change (dbstat).
 * 3. Matching: the dispatcher (src/webhooks/dispatch.ts) over the delta's
 *    changes, in this process, on the local D1 through wrangler's
 *    getPlatformProxy (workerd's SQLite, which counts rows read): rows read,
 *    wall and this process's CPU per change, and the messages it made.
 * 4. The change feed's name filters before the index (the reader of the
 *    commit this branch started from, `git merge-base HEAD main`) and after
 *    it, on the same database: rows read by a page of 100 for a debtor and
 *    for a lender.
 * 5. Time from a load's commit to the first delivery: `wrangler dev` over
 *    the state and a local receiver; a filing of a watched debtor committed
 *    in-process, the dispatcher nudged as the import CLI nudges it, the time
 *    until the receiver has it; 40 times.
 *
 * Results go to bench/WEBHOOKS.local.md (untracked); --write updates the
 * committed bench/WEBHOOKS.md.
 */
import { type ChildProcess, execFileSync, spawnSync } from "node:child_process";
import { once } from "node:events";
import { cpSync, createReadStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { DatabaseSync } from "node:sqlite";
import { Readable } from "node:stream";
import { drizzle } from "drizzle-orm/d1";
import { refreshQueued, upsertFilings } from "../src/db/load.ts";
import * as schema from "../src/db/schema.ts";
import { DEFAULT_SHARD, partsOf, shardOf } from "../src/db/shards.ts";
import { hashKey } from "../src/domain/apiKeys.ts";
import { readFeed } from "../src/feed/read.ts";
import { findRepeats } from "../src/feed/repeats.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { database } from "../src/queries/db.ts";
import { type DeliveryMessage, dispatch, type WebhookEnv } from "../src/webhooks/dispatch.ts";
import { newSecret, sealSecret } from "../src/webhooks/secrets.ts";
import { createSubscription, newestChanges, newSubscriptionId } from "../src/webhooks/store.ts";
import { parseWatchlist } from "../src/webhooks/watchlists.ts";
import { commandLine } from "./commandLine.ts";
import { machine as describeMachine, freePort, startDevServer, stopDevServer, waitUntilUp } from "./devServer.ts";
import { openShards } from "./feedDb.ts";
import { CONFIG, localFiles, shardConfig } from "./shardConfig.ts";
import { openWebhookQueues } from "./webhookQueues.ts";

const USAGE = "usage: npm run bench:webhooks -- [--filings 100000] [--work DIR] [--reuse-backfill] [--write]";
const { values } = commandLine(USAGE, {
  options: {
    filings: { type: "string", default: "100000" },
    work: { type: "string", default: ".wrangler/bench-webhooks" },
    write: { type: "boolean", default: false },
    "reuse-backfill": { type: "boolean", default: false },
  },
});
const FILINGS = Number(values.filings);
const WORK = resolve(values.work ?? ".wrangler/bench-webhooks");
const OUT = values.write ? "bench/WEBHOOKS.md" : "bench/WEBHOOKS.local.md";
const SUBSCRIPTIONS = 1_000;
const NAMES = 500;
const DELTA_CHANGED = 10_000;
const DELTA_NEW = 10_000;
const TRIALS = 40;
mkdirSync(WORK, { recursive: true });
// Wrangler's dev registry of the run's own: no other local session sees its queues.
process.env.WRANGLER_REGISTRY_PATH = join(WORK, "registry");
process.env.CLOUDFLARE_DEV_REGISTRY_PATH = join(WORK, "dev-registry");
process.env.WRANGLER_SEND_METRICS = "false";
process.env.PATH = `${resolve("node_modules/.bin")}:${process.env.PATH ?? ""}`;

const fmt = (n: number, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ownCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const log = (line: string) => console.error(line);

// 1. The backfill, the run's copy, a key and the subscriptions.
const feed = join(WORK, `feed-${FILINGS}.ndjson`);
if (!existsSync(feed)) {
  log(`generating ${fmt(FILINGS)} filings as ${feed}...`);
  execFileSync(process.execPath, ["seed/seed.ts", "--filings", String(FILINGS), "--out", feed], { stdio: "inherit" });
}
const base = join(WORK, "base");
if (!values["reuse-backfill"] || !existsSync(base)) {
  rmSync(base, { recursive: true, force: true });
  log("backfill (bulk mode)...");
  const backfill = spawnSync(process.execPath, ["scripts/import.ts", feed, "--persist-to", base], { encoding: "utf8" });
  if (backfill.status !== 0 && backfill.status !== 3) throw new Error(`backfill failed:\n${backfill.stderr}`);
}
const state = join(WORK, "run");
rmSync(state, { recursive: true, force: true });
cpSync(base, state, { recursive: true });
const target = { remote: false, persistTo: state };
const created = spawnSync(
  process.execPath,
  ["scripts/keys.ts", "create", "--name", "Bench lender", "--persist-to", state],
  {
    encoding: "utf8",
  },
);
const apiKey = created.stdout.trim().split("\n").at(-1) ?? "";
if (!apiKey.startsWith("lfk_")) throw new Error(`no key:\n${created.stderr}`);
const digest = await hashKey(apiKey);

const config = await shardConfig();
const files = localFiles(config, state);
/** Every stored debtor name (one spelling per match key, whatever its states), for the watchlists. */
const byKey = new Map<string, string>();
for (const { file } of files) {
  const db = new DatabaseSync(file, { readOnly: true });
  for (const { key, name } of db.prepare("select name_key as key, name from debtor_names").all() as {
    key: string;
    name: string;
  }[]) {
    if (!byKey.has(key)) byKey.set(key, name);
  }
  db.close();
}
const pool = [...byKey.values()];
let seed = 20260101;
const random = () => {
  seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
  return seed / 2 ** 32;
};
const receiverPort = await freePort();
const { unstable_readConfig } = await import("wrangler");
const publicKey = String((unstable_readConfig({ config: CONFIG }).vars as Record<string, unknown>).WEBHOOK_PUBLIC_KEY);
{
  log(`${fmt(SUBSCRIPTIONS)} subscriptions of ${NAMES} names, from ${fmt(pool.length)} stored debtors...`);
  const { shards, dispose } = await openShards(target);
  const db = shards.databases.get(DEFAULT_SHARD);
  if (!db) throw new Error("no default shard");
  const starts = await newestChanges(shards.databases);
  const sealed = await sealSecret(newSecret(), publicKey);
  for (let s = 0; s < SUBSCRIPTIONS; s++) {
    const names = new Set<string>();
    while (names.size < NAMES) names.add(pool[Math.floor(random() * pool.length)] ?? "");
    const parsed = parseWatchlist(new TextEncoder().encode([...names].join("\n")), "debtor");
    if (!parsed.ok) throw new Error(parsed.problem);
    await createSubscription(db, {
      publicId: newSubscriptionId(),
      keyDigest: digest,
      url: `http://127.0.0.1:${receiverPort}/portfolio/${s}`,
      types: null,
      states: null,
      watch: parsed.value,
      sealedSecret: sealed,
      starts,
      now: new Date(),
    });
  }
  await dispose();
}

// 2. The delta, as bench:load makes it: changed filings first (a continuation each), then new ones.
const delta = join(WORK, "delta.ndjson");
{
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
log("delta...");
let loadWall: number;
let loadCpu: number;
{
  const { shards, dispose } = await openShards(target);
  const stream = () => Readable.toWeb(createReadStream(delta)) as unknown as ReadableStream<Uint8Array>;
  const now = new Date();
  const began = Date.now();
  const before = ownCpu();
  const { repeats } = await findRepeats(readFeed(delta, stream(), { now }));
  await importSharded(shards, delta, stream(), { now, repeats, deferRefresh: true });
  for (const db of shards.databases.values()) await refreshQueued(db);
  loadWall = (Date.now() - began) / 1000;
  loadCpu = ownCpu() - before;
  await dispose();
}
let indexBytes = 0;
let indexRows = 0;
let changeCount = 0;
for (const { file } of files) {
  const db = new DatabaseSync(file, { readOnly: true });
  for (const { name, pgsize } of db.prepare("select name, pgsize from dbstat('main', 1)").all() as {
    name: string;
    pgsize: number;
  }[]) {
    if (name === "change_names" || name === "change_names_key") indexBytes += Number(pgsize);
  }
  indexRows += Number((db.prepare("select count(*) as n from change_names").get() as { n: number }).n);
  changeCount += Number((db.prepare("select count(*) as n from changes").get() as { n: number }).n);
  db.close();
}

/** A D1 binding that adds up the rows each statement read (raw() is answered through all(), which reports them). */
function counted(d1: D1Database, meter: { rows: number }): D1Database {
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind") return (...args: unknown[]) => statement(target.bind(...args));
        if (prop === "all" || prop === "run") {
          return async () => {
            const result = await target.all();
            meter.rows += result.meta?.rows_read ?? 0;
            return result;
          };
        }
        if (prop === "raw") {
          return async () => {
            const result = await target.all<Record<string, unknown>>();
            meter.rows += result.meta?.rows_read ?? 0;
            return result.results.map((row) => Object.values(row));
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  return new Proxy(d1, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (prop === "batch") {
        return async (statements: D1PreparedStatement[]) => {
          const results = await target.batch(statements);
          for (const r of results) meter.rows += r.meta?.rows_read ?? 0;
          return results;
        };
      }
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

// 3. Matching, and 4. the name filters, through workerd's D1 over the run's state.
const { getPlatformProxy } = await import("wrangler");
const proxy = await getPlatformProxy<Record<string, D1Database> & { API_KEYS: KVNamespace }>({
  configPath: CONFIG,
  persist: { path: join(state, "v3") },
});
const meter = { rows: 0 };
const layout = config.databases.map((d) => d.binding);
const d1Of = (shard: string) => {
  const d1 = proxy.env[shard];
  if (!d1) throw new Error(`no ${shard}`);
  return counted(d1, meter);
};
const shardDbs = new Map(
  layout.map((shard) => [
    shard,
    { feed: database(d1Of(shard)), db: drizzle(d1Of(shard), { schema, casing: "snake_case" }) },
  ]),
);
const home = shardDbs.get(DEFAULT_SHARD);
if (!home) throw new Error("no default shard");
const wh: WebhookEnv = { db: home.db, shards: shardDbs, keys: proxy.env.API_KEYS };
await proxy.env.API_KEYS.put(digest, "", {
  metadata: { label: "Bench lender", created: new Date().toISOString(), status: "active", rateLimit: "unmetered" },
});
log("matching the delta's changes...");
const messages: DeliveryMessage[] = [];
const outbox = {
  sendBatch: async (batch: Iterable<MessageSendRequest<DeliveryMessage>>) =>
    void messages.push(...[...batch].map((m) => m.body)),
};
let matched = 0;
const matchStart = Date.now();
const matchCpu = ownCpu();
for (let more = true; more; ) {
  const done = await dispatch(wh, outbox);
  matched += done.changes;
  more = done.more;
}
const matchWall = (Date.now() - matchStart) / 1000;
const matchCpuSeconds = ownCpu() - matchCpu;
const matchRows = meter.rows;
const subscribers = new Set(messages.map((m) => m.subscription)).size;

log("the name filters, before the index and after...");
// The reader as it was before the index: the parent of the commit that added it (whatever is merged since).
const indexed = execFileSync("git", ["log", "--diff-filter=A", "--format=%H", "--", "src/db/nameIndex.ts"], {
  encoding: "utf8",
})
  .trim()
  .split("\n")
  .at(-1);
const baseCommit = execFileSync("git", ["rev-parse", `${indexed}^`], { encoding: "utf8" }).trim();
const old = join(WORK, "before");
rmSync(old, { recursive: true, force: true });
mkdirSync(old, { recursive: true });
execFileSync("sh", ["-c", `git archive ${baseCommit} src client/src package.json | tar -x -C ${old}`]);
const readers = {
  before: (await import(join(old, "src/changes/read.ts"))) as typeof import("../src/changes/read.ts"),
  after: await import("../src/changes/read.ts"),
};
/** A debtor with one change in the log, and the busiest lender's name, from the delta. */
const probe = (() => {
  const counts = new Map<string, number>();
  const lenders = new Map<string, number>();
  for (const line of readFileSync(delta, "utf8").trim().split("\n")) {
    const lien = JSON.parse(line) as {
      involved_parties: { debtor_parties: { name: string }[]; secured_parties: { name: string }[] };
    };
    for (const d of lien.involved_parties.debtor_parties) counts.set(d.name, (counts.get(d.name) ?? 0) + 1);
    for (const s of lien.involved_parties.secured_parties) lenders.set(s.name, (lenders.get(s.name) ?? 0) + 1);
  }
  const debtor = [...counts].find(([name, n]) => n === 1 && /^[A-Z][a-z]+ [A-Z][a-z]+ (LLC|Inc)/.test(name))?.[0];
  const lender = [...lenders].sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!debtor || !lender) throw new Error("no debtor or lender to probe");
  return { debtor, lender: lender.split(/[ ,]+/).slice(0, 2).join(" ") };
})();
async function pageRows(
  reader: typeof readers.after,
  filter: Parameters<typeof reader.shardChanges>[1],
  shards: string[],
) {
  const start = meter.rows;
  let found = 0;
  for (const shard of shards) {
    const part = await reader.shardChanges(shardDbs.get(shard)?.feed as never, filter, "oldest", 100);
    found += part.items.length;
  }
  return { rows: meter.rows - start, found };
}
const txShards = [...partsOf(config.layout, "TX")];
const filters: {
  name: string;
  filter: { debtorName?: string; securedParty?: string; state?: string };
  shards: string[];
}[] = [
  {
    name: `debtor_name=${probe.debtor}, every state (${layout.length} shards)`,
    filter: { debtorName: probe.debtor },
    shards: layout,
  },
  {
    name: `secured_party=${probe.lender}, every state (${layout.length} shards)`,
    filter: { securedParty: probe.lender },
    shards: layout,
  },
  {
    name: `secured_party=${probe.lender}&state=TX`,
    filter: { securedParty: probe.lender, state: "TX" },
    shards: txShards,
  },
];
const filterRows: { name: string; before: { rows: number; found: number }; after: { rows: number; found: number } }[] =
  [];
for (const f of filters) {
  filterRows.push({
    name: f.name,
    before: await pageRows(readers.before, f.filter, f.shards),
    after: await pageRows(readers.after, f.filter, f.shards),
  });
}
await proxy.dispose();

// 5. Commit to first delivery.
log(`commit to first delivery, ${TRIALS} times...`);
const arrivals = new Map<string, number>();
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk) => {
    body += chunk;
  });
  req.on("end", () => {
    const number = (JSON.parse(body) as { data: { initial_financing_number: string } }).data.initial_financing_number;
    if (!arrivals.has(number)) arrivals.set(number, performance.now());
    res.writeHead(204).end();
  });
}).listen(receiverPort, "127.0.0.1");
await once(receiver, "listening");
const port = await freePort();
const dev: ChildProcess = startDevServer(port, undefined, ["--persist-to", state], process.env);
const latencies: number[] = [];
try {
  await waitUntilUp(dev, `http://127.0.0.1:${port}`);
  {
    const { shards, dispose } = await openShards(target);
    const db = shards.databases.get(DEFAULT_SHARD);
    if (!db) throw new Error("no default shard");
    const parsed = parseWatchlist(new TextEncoder().encode("Latency Probe Holdings LLC"), "debtor");
    if (!parsed.ok) throw new Error(parsed.problem);
    await createSubscription(db, {
      publicId: newSubscriptionId(),
      keyDigest: digest,
      url: `http://127.0.0.1:${receiverPort}/latency`,
      types: null,
      states: null,
      watch: parsed.value,
      sealedSecret: await sealSecret(newSecret(), publicKey),
      starts: await newestChanges(shards.databases),
      now: new Date(),
    });
    await dispose();
  }
  const queues = await openWebhookQueues(target, port);
  if (!queues) throw new Error("no session");
  const { shards, dispose } = await openShards(target);
  try {
    for (let i = 0; i < TRIALS; i++) {
      const number = `LAT-${i}`;
      const ca = shards.databases.get(shardOf(config.layout, "CA", number));
      if (!ca) throw new Error("no CA shard");
      await upsertFilings(
        ca,
        [
          {
            state: "CA",
            number,
            filedAt: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
            kind: "standard",
            debtors: [
              {
                name: "Latency Probe Holdings LLC",
                type: "Organization",
                label: null,
                address: { street1: "1 Main St", city: "Oakland", state: "CA", zipCode: "94607" },
              },
            ],
            securedParties: [
              {
                name: "First Bench Bank",
                type: "Organization",
                label: null,
                address: { street1: "2 Main St", city: "Oakland", state: "CA", zipCode: "94607" },
              },
            ],
            amendments: [],
          },
        ],
        { source: "bench" },
      );
      const committed = performance.now();
      await queues.dispatch.send({ from: "bench" }, { contentType: "json" });
      for (let w = 0; w < 600 && !arrivals.has(number); w++) await new Promise((r) => setTimeout(r, 50));
      const at = arrivals.get(number);
      if (at === undefined) throw new Error(`${number} was not delivered within 30 s`);
      latencies.push(at - committed);
    }
  } finally {
    await dispose();
    await queues.dispose();
  }
} finally {
  if (dev.pid !== undefined && dev.exitCode === null) {
    const exited = once(dev, "exit");
    stopDevServer(dev);
    await exited;
  }
  receiver.close();
}
latencies.sort((a, b) => a - b);
const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? 0;

const machine = `${describeMachine()}; load average ${loadavg()
  .map((l) => l.toFixed(1))
  .join(", ")} at the end`;
const deltaChanges = matched;
const report = `# Webhooks benchmark

Run on ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC by \`npm run bench:webhooks -- --filings ${FILINGS}\`, on
${machine}. Local D1 files: loads written in-process, the dispatcher and
the feed's readers run in this process on workerd's D1 over the same files
(wrangler's getPlatformProxy), which counts rows read; wall times move with
whatever else the machine runs.

## Matching: ${fmt(SUBSCRIPTIONS)} subscriptions of ${NAMES} debtor names, a ${fmt(DELTA_CHANGED + DELTA_NEW)}-filing delta

${fmt(pool.length)} debtors stored (distinct match keys); each subscription watches ${NAMES} of them, drawn at random, each under one of its spellings
(${fmt(SUBSCRIPTIONS * NAMES)} names in all, so a debtor is watched by ${fmt((SUBSCRIPTIONS * NAMES) / pool.length, 2)} subscriptions on average).
The delta (${fmt(DELTA_CHANGED)} filings continued, ${fmt(DELTA_NEW)} new) loaded in ${fmt(loadWall, 1)} s wall, ${fmt(loadCpu, 1)} s CPU, and recorded ${fmt(deltaChanges)} changes.

| | total | per change |
|---|---|---|
| rows read (the changes with their filings and parties, the watchlists' index, the subscriptions) | ${fmt(matchRows)} | ${fmt(matchRows / deltaChanges, 1)} |
| CPU of the dispatcher's own work (this process) | ${fmt(matchCpuSeconds, 2)} s | ${fmt((matchCpuSeconds * 1e6) / deltaChanges, 0)} µs |
| wall, D1 round trips included | ${fmt(matchWall, 1)} s | ${fmt((matchWall * 1e3) / deltaChanges, 2)} ms |
| messages sent (one per subscription and change) | ${fmt(messages.length)}, to ${fmt(subscribers)} subscriptions | ${fmt(messages.length / deltaChanges, 2)} |

## The change feed's name index

- ${fmt(indexRows)} index rows for ${fmt(changeCount)} changes (${fmt(indexRows / changeCount, 2)} a change): ${fmt(indexBytes / 1024)} KiB with its index, ${fmt(indexBytes / changeCount, 1)} bytes a change (dbstat).
- A page of 100 (\`limit=100\`), rows read, on the ${fmt(changeCount)} changes of the log, before the index (the reader of ${baseCommit.slice(0, 7)}) and after:

| filter | before: rows read | changes found | after: rows read | changes found |
|---|---|---|---|---|
${filterRows.map((f) => `| \`${f.name}\` | ${fmt(f.before.rows)} | ${fmt(f.before.found)} | ${fmt(f.after.rows)} | ${fmt(f.after.found)} |`).join("\n")}

Before the index a page examined ten changes for each it could hold and
kept those naming the party, so a debtor with one change read a full
window and found it only if it was in the window; after it, a page reads
the party's own entries.

## From a load's commit to the first delivery

\`wrangler dev\` over the state, ${fmt(SUBSCRIPTIONS + 1)} subscriptions; ${TRIALS} times: one filing of a watched debtor
committed in-process (as \`npm run import\` commits), the dispatcher nudged
as the import nudges it (a message to the local dispatch queue), until a
local receiver has the webhook. The queues wait up to a second each to fill
a batch (\`max_batch_timeout = 1\`).

| median | p90 | p99 | fastest | slowest |
|---|---|---|---|---|
| ${fmt(quantile(0.5) / 1000, 2)} s | ${fmt(quantile(0.9) / 1000, 2)} s | ${fmt(quantile(0.99) / 1000, 2)} s | ${fmt((latencies[0] ?? 0) / 1000, 2)} s | ${fmt((latencies.at(-1) ?? 0) / 1000, 2)} s |
`;
writeFileSync(OUT, report);
console.log(report);
log(`written to ${OUT}`);
