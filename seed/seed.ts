/**
 * Loads generated filings into the local D1 database and registers the
 * local development key. Run through npm, which supplies the right Node:
 *
 *   npm run seed                      # 20,000 filings, replacing local data
 *   npm run seed -- --filings 200000  # a larger data set
 *   npm run seed -- --seed 7          # other (still deterministic) data
 *
 * With --if-empty (used by `npm start`) it leaves existing data alone.
 * Only the local database is ever touched: the proxy has no remote bindings.
 */
import { parseArgs } from "node:util";
import { type AnyD1Database, drizzle } from "drizzle-orm/d1";
import { getPlatformProxy } from "wrangler";
import { insertFilings, recordLoad } from "../src/db/load.ts";
import * as schema from "../src/db/schema.ts";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { generateFilings } from "./generate.ts";

/** The key the README's examples use. It exists in local state only. */
export const LOCAL_DEV_KEY = "local-dev-key";

interface LocalKv {
  put(key: string, value: string, options: { metadata: KeyMetadata }): Promise<void>;
}

const { values } = parseArgs({
  options: {
    filings: { type: "string", default: "20000" },
    seed: { type: "string", default: "20250908" },
    "if-empty": { type: "boolean", default: false },
  },
});
const count = Number(values.filings);
const seed = Number(values.seed);
if (!Number.isInteger(count) || count < 1 || !Number.isInteger(seed)) {
  console.error("usage: npm run seed -- [--filings N] [--seed N] [--if-empty]");
  process.exit(2);
}

const proxy = await getPlatformProxy<{ DB: AnyD1Database; API_KEYS: LocalKv }>({
  configPath: "wrangler.toml",
  remoteBindings: false,
});
try {
  const db = drizzle(proxy.env.DB, { schema, casing: "snake_case" });

  const metadata: KeyMetadata = { label: "local development", created: new Date().toISOString(), status: "active" };
  await proxy.env.API_KEYS.put(await hashKey(LOCAL_DEV_KEY), "", { metadata });

  const existing = await db.$count(schema.filings);
  if (values["if-empty"] && existing > 0) {
    console.log(`Local database already holds ${existing.toLocaleString()} filings; not seeding.`);
  } else {
    const started = Date.now();
    console.log(`Seeding ${count.toLocaleString()} filings (seed ${seed}) into the local D1 database...`);
    // Children first: the foreign keys point at filings.
    await db.batch([
      db.delete(schema.amendments),
      db.delete(schema.debtorParties),
      db.delete(schema.securedParties),
      db.delete(schema.filings),
      db.delete(schema.dataLoads),
      db.delete(schema.debtorNameSounds),
      db.delete(schema.debtorNames),
    ]);
    const progress = progressReporter(count);
    await insertFilings(db, generateFilings({ filings: count, seed, now: started }), 1, progress);
    await recordLoad(db, `seed --filings ${count} --seed ${seed}`, count);
    const tables = [schema.filings, schema.debtorParties, schema.securedParties, schema.amendments] as const;
    const counts = await Promise.all(tables.map((t) => db.$count(t)));
    const rows = counts.reduce((sum, n) => sum + n, 0);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(`\nSeeded ${rows.toLocaleString()} rows (${count.toLocaleString()} filings) in ${seconds}s.`);
  }
  console.log(`Local API key: ${LOCAL_DEV_KEY}`);
} finally {
  await proxy.dispose();
}

/** A progress bar on a terminal, a line per 10% otherwise. */
function progressReporter(total: number) {
  let lastDecile = -1;
  return (written: number) => {
    const pct = Math.floor((written / total) * 100);
    if (process.stdout.isTTY) {
      const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".");
      process.stdout.write(`\r  [${bar}] ${pct}% ${written.toLocaleString()} filings`);
    } else if (Math.floor(pct / 10) > lastDecile) {
      lastDecile = Math.floor(pct / 10);
      console.log(`  ${pct}% ${written.toLocaleString()} filings`);
    }
  };
}
