/**
 * Rows written by a load, per table, on a seeded state (D1 bills a row
 * written as about a thousand rows read):
 *
 *   npm run bench:writes -- --persist-to DIR [--state CA] [--count 1000] [--work DIR] [--json FILE]
 *
 * DIR is a state directory `npm run seed -- --filings N --state CA
 * --persist-to DIR` filled. The state's shard file is copied into the
 * work directory and loaded there, as an import loads (upsertFilings
 * with the refresh deferred, then refreshQueued), one kind of change at a
 * time, `count` filings each:
 * - new filings dated today (lapsing five years on);
 * - stored live filings given a collateral amendment, a continuation (those
 *   lapsing within six months, as continuations are filed) or a termination,
 *   each amendment dated today;
 * - one day of the daily job (src/changes/daily.ts): tomorrow's lapses.
 * Rows written are each statement's changes as SQLite counts them (a row
 * inserted, updated or deleted); D1 counts each index entry written beside
 * its row too. Printed as a table, and as JSON with --json.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { generateFilings } from "../seed/generate.ts";
import { runDaily } from "../src/changes/daily.ts";
import { refreshQueued, storedFilingStatements, storedRows, upsertFilings } from "../src/db/load.ts";
import type { AmendmentRecord, FilingRecord, FilingRows } from "../src/db/records.ts";
import { partsOf } from "../src/db/shards.ts";
import type { StateCode } from "../src/domain/states.ts";
import { isoSeconds } from "../src/domain/time.ts";
import { recordOf } from "../src/feed/merge.ts";
import { commandLine, usageError } from "./commandLine.ts";
import { Counting } from "./countingStatements.ts";
import { localD1Database, openLocalD1File } from "./localD1.ts";
import { localFiles, shardConfig } from "./shardConfig.ts";

const USAGE = "usage: npm run bench:writes -- --persist-to DIR [--state CA] [--count 1000] [--work DIR] [--json FILE]";
const { values } = commandLine(USAGE, {
  options: {
    "persist-to": { type: "string" },
    state: { type: "string", default: "CA" },
    count: { type: "string", default: "1000" },
    work: { type: "string", default: ".wrangler/bench-writes" },
    json: { type: "string" },
  },
});
const persistTo = values["persist-to"];
const state = (values.state ?? "CA").toUpperCase() as StateCode;
const count = Number(values.count);
if (!persistTo) usageError(USAGE, "--persist-to is required");
if (!Number.isInteger(count) || count < 1) usageError(USAGE, `--count ${values.count}: not a whole number of filings`);

const config = await shardConfig();
const shard = partsOf(config.layout, state)[0];
const source = localFiles(config, persistTo).find((f) => f.shard.binding === shard)?.file;
if (!source) throw new Error(`no shard for ${state}`);
const work = resolve(values.work ?? ".wrangler/bench-writes");
mkdirSync(work, { recursive: true });
const file = join(work, "bench.sqlite");
rmSync(file, { force: true });
console.error(`copying ${source} (${state}'s shard, ${shard}) to ${file}...`);
copyFileSync(source, file);
const sqlite = openLocalD1File(file);
const counting = new Counting(sqlite);
const db = localD1Database(sqlite, counting);
const scalar = (text: string, ...params: (string | number)[]) =>
  Number((sqlite.prepare(text).get(...params) as { n: number }).n);
const filings = scalar("select count(*) as n from filings where state = ?", state);

const now = new Date();
const today = now.toISOString().slice(0, 10);
const stamp = isoSeconds(now);

const taken = new Set<string>();
/** `count` stored live filings of the state matching `where` (spread over it by id), as records. */
async function stored(where: string): Promise<FilingRecord[]> {
  const rows = sqlite
    .prepare(
      `select number from filings where state = ? and terminated_at is null and lapse_date is not null and ${where} order by (id * 7919) % 10007, id`,
    )
    .all(state) as { number: string }[];
  const numbers = rows.map((r) => r.number).filter((n) => !taken.has(n));
  const chosen: FilingRows[] = [];
  for (let i = 0; i < numbers.length && chosen.length < count; i += 100) {
    const [old, debtors, secured, amended] = await db.batch(storedFilingStatements(db, numbers.slice(i, i + 100)));
    for (const r of storedRows(old, debtors, secured, amended)) {
      if (r.filing.state === state && chosen.length < count) chosen.push(r);
    }
  }
  for (const r of chosen) taken.add(r.filing.number);
  return chosen.map(recordOf);
}

const amended = (records: FilingRecord[], suffix: string, amendment: Omit<AmendmentRecord, "number" | "filedAt">) =>
  records.map((r) => ({
    ...r,
    amendments: [...r.amendments, { ...amendment, number: `${r.number}-${suffix}`, filedAt: stamp }],
  }));

/** Rows written loading `records` as an import does, by table. */
async function loaded(records: FilingRecord[]): Promise<Map<string, number>> {
  counting.take();
  await upsertFilings(db, records, { now, refresh: false, source: "bench:writes" });
  await refreshQueued(db);
  return counting.take();
}

interface Result {
  change: string;
  items: number;
  written: Record<string, number>;
}
const results: Result[] = [];
const record = (change: string, items: number, written: Map<string, number>) =>
  results.push({ change, items, written: Object.fromEntries([...written].sort((a, b) => b[1] - a[1])) });

// New filings dated today: the generator's filings of the state, renumbered.
const fresh = [...generateFilings({ filings: count, seed: 4_343, now: now.getTime(), state })]
  .slice(0, count)
  .map((r, i) => ({
    ...r,
    number: `${r.number}-W${i}`,
    filedAt: isoSeconds(Date.parse(`${today}T00:00:00Z`) + ((i * 37) % 86_000) * 1000),
    amendments: [],
  }));
console.error(`${fresh.length} new filings...`);
record("new filing", fresh.length, await loaded(fresh));

const lapseDay = (offset: number) => Math.floor(now.getTime() / 86_400_000) + offset;
for (const [change, where, suffix, kind, description] of [
  ["collateral amendment", "1", "K", "collateral_change", "Amendment - Collateral"],
  ["continuation", `lapse_date between ${lapseDay(1)} and ${lapseDay(182)}`, "C", "continuation", "Continuation"],
  ["termination", "1", "T", "termination", "Termination"],
] as const) {
  const records = await stored(where);
  console.error(`${records.length} filings, ${change}...`);
  record(change, records.length, await loaded(amended(records, suffix, { kind, description })));
}

// One day of the daily job: today's lapses marked done, then tomorrow's recorded.
await runDaily(db, now, 90);
counting.take();
const tomorrow = new Date(now.getTime() + 86_400_000);
await runDaily(db, tomorrow, 90);
const daily = counting.take();
// Lapses recorded: one change each (the local handle reports no counts of its own).
record("lapse day (per lapse)", daily.get("changes") ?? 0, daily);
sqlite.close();

const total = (r: Result) => Object.values(r.written).reduce((a, b) => a + b, 0);
/** The running totals of the counted lists (src/db/tallies.ts), and the per-debtor tables the refresh rebuilds. */
const COUNTS = ["facet_tallies", "facet_counts", "stale_tallies", "lapse_set_changes"];
const AGGREGATES = ["debtor_addresses", "debtor_address_sets", "debtor_links", "debtor_link_sets", "debtor_names"];
const sumOf = (r: Result, tables: string[]) => tables.reduce((n, t) => n + (r.written[t] ?? 0), 0);
const fmt = (n: number, digits = 1) => n.toLocaleString("en-US", { maximumFractionDigits: digits });
console.log(`Rows written in ${state} (${fmt(filings, 0)} filings), ${today}, ${count} of each:\n`);
console.log(
  "| change | items | rows written | per item | counts per item | aggregates per item | by table (per item) |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const r of results) {
  const per = (n: number) => (r.items > 0 ? n / r.items : 0);
  const tables = Object.entries(r.written)
    .filter(([, n]) => n > 0)
    .map(([t, n]) => `${t} ${fmt(per(n))}`)
    .join(", ");
  console.log(
    `| ${r.change} | ${fmt(r.items, 0)} | ${fmt(total(r), 0)} | ${fmt(per(total(r)))} | ${fmt(per(sumOf(r, COUNTS)))} | ${fmt(per(sumOf(r, AGGREGATES)))} | ${tables} |`,
  );
}
if (values.json) writeFileSync(values.json, JSON.stringify({ state, filings, today, count, results }, null, 2));
rmSync(file, { force: true });
