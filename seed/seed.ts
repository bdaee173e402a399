/**
 * Loads generated filings into the local D1 databases, each filing into its
 * state's shard (wrangler.toml, src/db/shards.ts), and registers the local
 * development key. Run through npm, which supplies the right Node:
 *
 *   npm run seed                        # 20,000 filings, replacing local data
 *   npm run seed -- --filings 1000000   # a million, for benchmarks
 *   npm run seed -- --seed 7            # other (still deterministic) data
 *   npm run seed -- --filings 5000000 --state CA   # every filing in one state
 *
 * With --if-empty (used by `npm start`) it leaves existing data alone.
 * It migrates the databases it seeds first (scripts/migrate.ts's check,
 * half a second when they are up to date), after reading its options, so
 * `--help` or a wrong option touches nothing. With --persist-to DIR it
 * seeds that wrangler state directory (as `wrangler dev --persist-to DIR`
 * reads it) instead of .wrangler/state.
 * With --out FILE it writes the generated filings as an NDJSON feed for
 * `npm run import` instead (bulk import benchmarks), touching no database.
 * Only local state is ever touched: the D1 files under .wrangler/state and
 * the local KV namespace.
 */
import { once } from "node:events";
import { createWriteStream, statSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";
import { beginBulkLoad, endBulkLoad, finishBulkWrite, writeShardedFilings } from "../scripts/bulk/load.ts";
import { commandLine, usageError } from "../scripts/commandLine.ts";
import { localD1Database, openLocalD1File } from "../scripts/localD1.ts";
import { localFiles, MIGRATE_STATUS, migrateAll, shardConfig } from "../scripts/shardConfig.ts";
import { recordLoad, refreshQueued, upsertFilings } from "../src/db/load.ts";
import { shardOf } from "../src/db/shards.ts";
import { isStateCode } from "../src/domain/states.ts";
import { lienLine } from "../src/feed/export.ts";
import { generateDelta, generatedCount, generateFilings, seedSource } from "./generate.ts";
import { putLocalKey } from "./localKv.ts";

/** The key the README's examples use. It exists in local state only. */
export const LOCAL_DEV_KEY = "local-dev-key";

const TABLES = [
  "facet_counts",
  "facet_tallies",
  "stale_tallies",
  "debtor_addresses",
  "debtor_address_sets",
  "debtor_links",
  "debtor_link_sets",
  "debtors_to_refresh",
  "debtor_sound_keys",
  "debtor_names",
  "pending_amendments",
  "amendments",
  "debtor_parties",
  "secured_parties",
  "filings",
  "data_loads",
  "bulk_load",
  "changes",
  "change_names",
  "change_marks",
  "state_loads",
  "state_backfills",
  "state_summaries",
  "feed_loads",
  "load_keys",
  "held_copies",
  // An office's staged rows name filings the seed replaces: a later load of the register assembles them again.
  "source_rows",
  "source_pulls",
  // Webhooks: the subscriptions' starts, positions and delivery log name changes, which are replaced too.
  "webhook_subscriptions",
  "webhook_names",
  "webhook_positions",
  "webhook_deliveries",
];

const USAGE =
  "usage: npm run seed -- [--filings N] [--seed N] [--state XX] [--if-empty | --out FILE] [--persist-to DIR]";
const { values } = commandLine(USAGE, {
  options: {
    filings: { type: "string", default: "20000" },
    seed: { type: "string", default: "20250908" },
    "if-empty": { type: "boolean", default: false },
    "persist-to": { type: "string" },
    out: { type: "string" },
    state: { type: "string" },
  },
});
const count = Number(values.filings);
const seed = Number(values.seed);
const state = values.state?.toUpperCase();
if (!Number.isInteger(count) || count < 1)
  usageError(USAGE, `--filings ${values.filings}: not a whole number of filings`);
if (!Number.isInteger(seed)) usageError(USAGE, `--seed ${values.seed}: not a whole number`);
if (state !== undefined && !isStateCode(state))
  usageError(USAGE, `--state ${values.state}: not a US state or territory code`);
const generating = { filings: count, seed, state };

if (values.out) {
  const started = Date.now();
  const out = createWriteStream(values.out);
  const today = new Date(started).toISOString().slice(0, 10);
  let written = 0;
  const total = generatedCount(count);
  const report = progressReporter(total);
  for (const record of generateFilings({ ...generating, now: started })) {
    if (!out.write(`${JSON.stringify(lienLine(record, today))}\n`)) await once(out, "drain");
    written += 1;
    if (written % 1000 === 0 || written === total) report(written);
  }
  out.end();
  await once(out, "finish");
  const megabytes = (statSync(values.out).size / 1_048_576).toFixed(0);
  console.log(
    `\nWrote ${written.toLocaleString()} filings as NDJSON to ${values.out} (${megabytes} MB) in ${((Date.now() - started) / 1000).toFixed(1)}s.`,
  );
  process.exit(0);
}

const persistTo = values["persist-to"];
await putLocalKey(
  LOCAL_DEV_KEY,
  { label: "local development", created: new Date().toISOString(), status: "active" },
  persistTo,
);

// Every shard of wrangler.toml's layout (src/db/shards.ts): each filing goes to its state's (its part's of a split state).
const config = await shardConfig();
// Only what migrating changed is said: `npm start` has migrated, and summarized that, before it seeds.
await migrateAll(config, { remote: false, ...(persistTo ? { persistTo } : {}) }, (line) => {
  if (!line.endsWith(`: ${MIGRATE_STATUS.upToDate}`)) console.log(line);
});
const shards = new Map(localFiles(config, persistTo).map(({ shard, file }) => [shard.binding, openLocalD1File(file)]));
const rowsOf = (db: DatabaseSync, table: string) =>
  Number((db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n);
const existing = [...shards.values()].reduce((sum, db) => sum + rowsOf(db, "filings"), 0);
if (values["if-empty"] && existing > 0) {
  console.log(`Local database already holds ${existing.toLocaleString()} filings; not seeding.`);
} else {
  const started = Date.now();
  const total = generatedCount(count);
  console.log(
    `Seeding ${total.toLocaleString()} filings (${count.toLocaleString()} generated and ${(total - count).toLocaleString()} shaped like office data; seed ${seed}${state ? `, every one in ${state}` : ""}) into ${shards.size === 1 ? "the local D1 database" : `${shards.size} local D1 shards`}...`,
  );
  const source = seedSource(count, seed, state);
  for (const db of shards.values()) {
    db.exec("begin");
    for (const table of TABLES) db.exec(`delete from ${table}`);
    db.exec("commit");
    // Give the space of the data just deleted back, so the size reported is this load's.
    db.exec("vacuum");
    // Secondary indexes are built once at the end instead of maintained row
    // by row; the database records that it is mid-load (scripts/bulk/load.ts).
    beginBulkLoad(db, source);
  }
  writeShardedFilings(
    shards,
    (record) => shardOf(config.layout, record.state, record.number),
    generateFilings({ ...generating, now: started }),
    progressReporter(total),
    started,
  );
  const phase = timer(started);
  console.log(`\n  filings written (${phase()}); building indexes, debtor aggregates and running totals...`);
  for (const [shard, db] of shards) {
    finishBulkWrite(db);
    // Every shard records the load, as an import does: its data_loaded_at, and
    // each state it holds loaded now (GET /states), with no office date.
    const held = db.prepare("select place from facet_counts where scope = 's' and name = '' and facet = '*'").all() as {
      place: string;
    }[];
    await recordLoad(localD1Database(db), source, total, new Date(), new Map(held.map((s) => [s.place, null])));
    endBulkLoad(db);
    db.exec("pragma wal_checkpoint(truncate)");
    const megabytes = (statSync(db.location()!).size / 1_048_576).toFixed(0);
    console.log(`  ${shard}: ${rowsOf(db, "filings").toLocaleString()} filings, ${megabytes} MB (${phase()})`);
  }
  // A day's delta over the backfill (seed/generate.ts): the change feed's first changes.
  const delta = [...generateDelta({ ...generating, now: started })];
  let changed = 0;
  for (const [shard, db] of shards) {
    const mine = delta.filter((r) => shardOf(config.layout, r.state, r.number) === shard);
    // Aggregates and running totals once, after every group, as an import does (not once a group).
    const local = localD1Database(db);
    const done = await upsertFilings(local, mine, { source: `${source} (delta)`, now: new Date(), refresh: false });
    await refreshQueued(local);
    changed += done.inserted + done.updated;
  }
  console.log(
    `  a day's delta: ${changed.toLocaleString()} filings new or changed, recorded in the change feed (${phase()})`,
  );
  const rows = [...shards.values()].reduce((sum, db) => TABLES.reduce((n, t) => n + rowsOf(db, t), sum), 0);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const megabytes = [...shards.values()].reduce((sum, db) => sum + statSync(db.location()!).size, 0) / 1_048_576;
  console.log(
    `\nSeeded ${total.toLocaleString()} filings, ${rows.toLocaleString()} rows in all, in ${seconds}s; ${shards.size === 1 ? "database" : `${shards.size} databases`} ${megabytes.toFixed(0)} MB.`,
  );
}
for (const db of shards.values()) db.close();
console.log(`Local API key: ${LOCAL_DEV_KEY}`);

/** Seconds since the previous call (the first: since `from`), as text. */
function timer(from: number) {
  let last = from;
  return () => {
    const now = Date.now();
    const text = `${((now - last) / 1000).toFixed(1)}s`;
    last = now;
    return text;
  };
}

/** A progress bar on a terminal, a line per 10% otherwise. */
function progressReporter(total: number) {
  let lastDecile = 0;
  const started = Date.now();
  return (written: number) => {
    const pct = Math.floor((written / total) * 100);
    const rate = Math.round(written / Math.max(0.001, (Date.now() - started) / 1000));
    if (process.stdout.isTTY) {
      const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".");
      process.stdout.write(`\r  [${bar}] ${pct}% ${written.toLocaleString()} filings, ${rate.toLocaleString()}/s`);
    } else if (Math.floor(pct / 10) > lastDecile) {
      lastDecile = Math.floor(pct / 10);
      console.log(`  ${pct}% ${written.toLocaleString()} filings, ${rate.toLocaleString()}/s`);
    }
  };
}
