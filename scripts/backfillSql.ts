/**
 * Writes each local shard's data as one SQL file for a remote backfill:
 *
 *   npm run import -- state-bulk-file.xml          # into EMPTY local databases: bulk mode
 *   npm run backfill:sql -- --out backfill.sql     # this script: backfill.DB.sql, backfill.DB_2.sql, ...
 *   npx wrangler d1 execute DB --remote --env production --file backfill.DB.sql -y   # one per shard
 *
 * With one shard (SHARD_STATES = {}) the file is FILE itself, for DB.
 * A remote import (`npm run import -- FILE --remote`) costs two round trips
 * per 100 filings; `wrangler d1 execute --file` instead uploads one file
 * that D1 imports on its side, the fastest way wrangler offers to fill a
 * database. The file holds the rows of every table of src/db/schema.ts
 * (aggregates included, so nothing is rebuilt remotely) and no schema: the
 * remote database must be migrated (`npm run deploy` does it) and empty.
 * It is `wrangler d1 export --local --no-schema` restricted to those tables,
 * leaving out D1's own migrations journal, which the remote database
 * already has, and lender_industry_lapses, which its triggers write as the
 * secured parties arrive, except for debtor_sound_keys: its rows are 63-bit integers,
 * which wrangler's export writes through JavaScript numbers and rounds
 * (234725057430028292 comes out as 234725057430028300), so this script
 * appends them itself, read as BigInts.
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, statSync } from "node:fs";
import { getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "../src/db/schema.ts";
import { isBackfilling } from "./bulk/load.ts";
import { commandLine, usageError } from "./commandLine.ts";
import { openLocalD1File } from "./localD1.ts";
import { localFiles, shardConfig } from "./shardConfig.ts";

const USAGE = "usage: npm run backfill:sql -- --out FILE";
const out =
  commandLine(USAGE, { options: { out: { type: "string" } } }).values.out ?? usageError(USAGE, "--out is required");

/** Tables whose integers do not fit a JavaScript number: written here, not by wrangler. */
const WIDE = getTableName(schema.debtorSoundKeys);
/** Local bookkeeping of a bulk load (scripts/bulk/load.ts), not data. */
const LOCAL_ONLY = getTableName(schema.bulkLoad);
/** Written by triggers as its rows' secured parties are (migration 0035): the remote database writes it itself. */
const KEPT_BY_TRIGGERS = getTableName(schema.lenderIndustryLapses);
const tables = Object.values(schema)
  .filter((value) => is(value, SQLiteTable))
  .map((table) => getTableName(table))
  .filter((t) => t !== LOCAL_ONLY && t !== KEPT_BY_TRIGGERS);
const started = Date.now();
const exported = tables.filter((t) => t !== WIDE);
const config = await shardConfig();
const files = localFiles(config);
// A database a stopped load left without its indexes and aggregates is not a backfill to send.
for (const { shard, file } of files) {
  const sqlite = openLocalD1File(file);
  try {
    if (isBackfilling(sqlite)) {
      console.error(
        `${shard.binding}: its local bulk load did not finish; run npm run db:migrate to finish it, then the same import again to load the rest`,
      );
      process.exit(1);
    }
  } finally {
    sqlite.close();
  }
}
/** One file per shard: FILE itself for one shard, else FILE with the binding before its extension. */
const outOf = (binding: string) =>
  files.length === 1 ? out : out.replace(/(\.sql)?$/, (ext) => `.${binding}${ext || ".sql"}`);
const next: string[] = [];
for (const { shard, file } of files) {
  const target = outOf(shard.binding);
  execFileSync(
    "wrangler",
    [
      "d1",
      "export",
      shard.binding,
      "--local",
      "--no-schema",
      "--output",
      target,
      ...exported.flatMap((t) => ["--table", t]),
    ],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  const sqlite = openLocalD1File(file);
  try {
    const ids = sqlite.prepare(`select id from "${WIDE}" order by id`);
    ids.setReadBigInts(true);
    ids.setReturnArrays(true);
    let batch: string[] = [];
    const flush = () => {
      if (batch.length > 0) appendFileSync(target, `INSERT INTO "${WIDE}" ("id") VALUES ${batch.join(",")};\n`);
      batch = [];
    };
    for (const [id] of ids.iterate() as Iterable<[bigint]>) {
      batch.push(`(${id})`);
      if (batch.length === 1_000) flush();
    }
    flush();
  } finally {
    sqlite.close();
  }
  const megabytes = (statSync(target).size / 1_048_576).toFixed(1);
  console.error(`Wrote the rows of ${tables.length} tables of ${shard.binding} to ${target} (${megabytes} MB).`);
  next.push(`npx wrangler d1 execute ${shard.binding} --remote --env production --file ${target} -y`);
}
console.error(`Done in ${((Date.now() - started) / 1000).toFixed(1)}s. Next, for each shard:`);
for (const line of next) console.error(`  ${line}`);
