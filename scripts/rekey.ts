/**
 * Recomputes the stored name keys of every shard from the stored names
 * (src/db/rekey.ts), after a change to the name rules of
 * src/domain/names.ts, and the lien report's traits of each filing (its
 * collateral categories, a funding company among its lenders) after a
 * change to src/domain/collateral.ts or securedPartyKinds.ts, or after
 * migration 0023, and each secured party's debtor industries after
 * migration 0031; docs/deploying.md says when. Run through npm:
 *
 *   npm run db:rekey                              # the local D1 state
 *   npm run db:rekey -- --remote                  # production's databases
 *   npm run db:rekey -- --remote --env preview
 *
 * Only rows whose key changed are written, with the aggregates and counts
 * that derive from them, so running it again changes nothing; then the
 * change feed's name index is rewritten from the keys (also what fills it
 * for changes recorded before the index existed). Progress and
 * the summary go to stderr. Exit status: 0 done, 1 failed (what was done
 * stays, and running again carries on), 2 usage.
 */
import { reindexChanges } from "../src/changes/reindex.ts";
import { rekeyStored } from "../src/db/rekey.ts";
import { describeTarget, feedCommandLine, migrateLocal, openShards } from "./feedDb.ts";

const USAGE = "usage: npm run db:rekey -- [--remote [--env production|preview]] [--persist-to DIR]";

const { target } = feedCommandLine(USAGE, {});
const number = (n: number) => n.toLocaleString("en-US");

try {
  if (!target.remote) await migrateLocal(target);
  const { shards, dispose } = await openShards(target);
  console.error(`Re-keying the names stored in the ${describeTarget(target)}`);
  try {
    for (const [shard, db] of shards.databases) {
      const started = Date.now();
      let tenths = 0;
      const summary = await rekeyStored(db, {
        onPage: (s, done, last) => {
          const line = `  ${shard}: ${number(done)} of ${number(last)} filing ids, ${number(s.debtors)} debtor and ${number(s.lenders)} lender keys, ${number(s.industries)} filings' lender industries rewritten`;
          if (process.stderr.isTTY) process.stderr.write(`\r${line}\u001b[K`);
          else if (Math.floor((10 * done) / last) > tenths) {
            tenths = Math.floor((10 * done) / last);
            console.error(line);
          }
        },
      });
      if (process.stderr.isTTY) process.stderr.write("\r\u001b[K");
      const seconds = (Date.now() - started) / 1000;
      console.error(
        `  ${shard}: ${number(summary.filings)} filings read; ${number(summary.debtors)} debtor keys, ${number(summary.lenders)} lender keys, ${number(summary.traits)} filings' traits and ${number(summary.industries)} filings' lender industries rewritten, ${number(summary.digestTimes)} report digests given their oldest live filing's time, in ${seconds.toFixed(1)}s`,
      );
      // The change feed's name index follows the parties' keys (src/changes/reindex.ts).
      const changes = await reindexChanges(db);
      console.error(`  ${shard}: the name index of ${number(changes)} changes rewritten`);
    }
  } finally {
    await dispose();
  }
} catch (err) {
  console.error(`\nRe-keying failed: ${(err as Error).message}\nWhat was rewritten stays; running again carries on.`);
  process.exit(1);
}
