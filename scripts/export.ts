/**
 * Writes every filing of a state as NDJSON, the format `npm run import`
 * reads, so data round-trips: export, then import into an empty database,
 * and the API answers the same.
 *
 *   npm run export -- --state CA --out ca.ndjson
 *   npm run export -- --state tx > tx.ndjson
 *   npm run export -- --state NY --out ny.ndjson --remote [--env preview]
 *
 * Only the shard that holds the state is read (src/db/shards.ts), or, for
 * a state split in parts, each part's in turn. Filings come in id order
 * (load order) within each, read a page at a time. Each line
 * is the public lookup's full filing (GET /filings: envelope B with
 * amendments, filing kind, lapse date source, filing office, collateral),
 * plus each address's `street2`. With --out, the file appears
 * only once complete (it is written under FILE.partial first).
 */
import { once } from "node:events";
import { createWriteStream, renameSync, rmSync } from "node:fs";
import type { Writable } from "node:stream";
import { partsOf } from "../src/db/shards.ts";
import { isStateCode } from "../src/domain/states.ts";
import { isoSeconds } from "../src/domain/time.ts";
import { exportFilings, feedLine } from "../src/feed/export.ts";
import { describeTarget, feedCommandLine, openShards } from "./feedDb.ts";
import { shardConfig } from "./shardConfig.ts";

const USAGE =
  "usage: npm run export -- --state XX [--out FILE] [--remote [--env production|preview]] [--persist-to DIR]";

const { values, target, fail: usage } = feedCommandLine(USAGE, { state: { type: "string" }, out: { type: "string" } });
const state = values.state?.trim().toUpperCase() || usage("--state is required");
if (!isStateCode(state)) usage(`--state ${values.state}: not a US state or territory code`);

const number = (n: number) => n.toLocaleString("en-US");
const partial = values.out ? `${values.out}.partial` : undefined;
const out: Writable = partial ? createWriteStream(partial) : process.stdout;

let count = 0;
let started = Date.now();
try {
  // A state's filings live in one shard (or in its parts' shards, when split): only those are opened and read.
  const config = await shardConfig(target.remote ? (target.env ?? "production") : undefined);
  const parts = [...partsOf(config.layout, state)];
  const { shards, dispose } = await openShards(target, parts);
  started = Date.now();
  console.error(`Exporting the filings of ${state} from ${parts.join(" and ")}, the ${describeTarget(target)}`);
  try {
    const today = isoSeconds(Date.now()).slice(0, 10);
    for (const shard of parts) {
      const db = shards.databases.get(shard)!;
      for await (const item of exportFilings(db, state)) {
        if (!out.write(`${JSON.stringify(feedLine(item, today))}\n`)) await once(out, "drain");
        count += 1;
        if (count % 1000 === 0) {
          const rate = Math.round(count / Math.max(0.001, (Date.now() - started) / 1000));
          if (process.stderr.isTTY) process.stderr.write(`\r  ${number(count)} filings, ${number(rate)}/s\u001b[K`);
          else if (count % 10_000 === 0) console.error(`  ${number(count)} filings, ${number(rate)}/s`);
        }
      }
    }
  } finally {
    await dispose();
  }
  if (partial) {
    out.end();
    await once(out, "finish");
    renameSync(partial, values.out!);
  }
} catch (err) {
  if (partial) {
    out.destroy();
    rmSync(partial, { force: true });
  }
  console.error(`\nExport failed: ${(err as Error).message}`);
  process.exit(1);
}
if (process.stderr.isTTY && count >= 1000) process.stderr.write("\n");
const seconds = (Date.now() - started) / 1000;
console.error(
  `Exported ${number(count)} filings of ${state}${values.out ? ` to ${values.out}` : ""} in ${seconds.toFixed(1)}s (${number(Math.round(count / Math.max(seconds, 0.001)))} filings/s)`,
);
