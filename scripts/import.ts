/**
 * Loads filing feeds into D1. Run through npm, which supplies the right Node:
 *
 *   npm run import -- feeds/ca.ndjson feeds/tx.csv feeds/co.xml
 *   npm run import -- feed.ndjson --rejects /tmp/rejects.ndjson --warnings /tmp/warnings.ndjson
 *   npm run import -- county.xml --state IL              # records whose FilingOffice names no state
 *   npm run import -- feed.ndjson --workflow             # through the local npm start's Workflow
 *   npm run import -- feed.ndjson --remote               # through production's Workflow
 *   npm run import -- feed.ndjson --remote --env preview
 *   npm run import -- --status [--remote]                # the loads and pulls run through the Workflows
 *   npm run import -- --source ct --pull --workflow      # an office's register pulled by the Workflow (scripts/sources.ts)
 *
 * Formats by extension: .ndjson / .jsonl (one filing per line in the API's
 * envelope B lien shape), .csv (one row per party or amendment) and .xml
 * (IACA-style bulk files, one FileDetail per filing or amendment); see
 * docs/feeds/. Each filing goes to its state's shard (wrangler.toml,
 * docs/sharding.md). Filings are keyed by state and initial financing
 * number: new ones are inserted, changed ones replaced (XML records are
 * merged into what is stored), identical ones left alone, so importing a
 * file twice changes nothing.
 *
 * Locally the file is read in-process into the local D1 files. With
 * --workflow or --remote it is put in that environment's feeds bucket and
 * loaded there by the LoadFeed Workflow (src/platform/,
 * scripts/platformLoad.ts), which the command follows to its end.
 *
 * Unusable records go to a rejects file (default FILE.rejects.ndjson; one
 * JSON object a line with file, line, reason and raw) and never stop the
 * good ones; records loaded with a repair or a gap are listed in a warnings
 * file (default FILE.warnings.ndjson: file, line, filing, reason). Exit
 * status: 0 all loaded (warnings or not), 3 loaded with rejects, 1 failed
 * (a file unreadable part-way keeps what loaded before), 2 usage.
 */

import { createReadStream, existsSync, statSync } from "node:fs";
import type { DatabaseSync } from "node:sqlite";
import { Readable } from "node:stream";
import { shardDb } from "../src/db/shards.ts";
import { isStateCode } from "../src/domain/states.ts";
import { BackfillRefused, Backfills, type Declared } from "../src/feed/backfills.ts";
import { emptySummary, type ImportSummary, sumOf, writtenBefore } from "../src/feed/import.ts";
import { FeedFileError, feedFormat } from "../src/feed/read.ts";
import type { FirstReading } from "../src/feed/repeats.ts";
import { emptyShards, importSharded } from "../src/feed/shardedImport.ts";
import { BULK_GROUP, BulkImport, finishBulkImports } from "./bulk/import.ts";
import { endBulkLoad, isBackfilling, waitForBulkWriter } from "./bulk/load.ts";
import { describeTarget, feedCommandLine, migrateLocal, openLocalShards } from "./feedDb.ts";
import { readFirst } from "./firstReading.ts";
import { byteCounter, LinesWriter, number, summaryLine, writtenDetail } from "./importOutput.ts";
import { loadOnPlatform, openPlatform, printStatus } from "./platformLoad.ts";
import { Progress } from "./progress.ts";
import { refreshWithProgress } from "./refreshQueue.ts";
import { importSource } from "./sources.ts";
import { nudgeWebhooks } from "./webhookQueues.ts";

const USAGE =
  "usage: npm run import -- FILE... [--rejects PATH] [--warnings PATH] [--state XX] [--backfill [--force]] [--no-bulk | --workflow [--port N] | --remote [--env production|preview]] [--persist-to DIR]\n" +
  "       npm run import -- --status [--port N | --remote [--env production|preview]] [--persist-to DIR]\n" +
  "       npm run import -- --source ct|co|or|nyc-acris (FILE... | --pull [--since YYYY-MM-DD] [--portal URL] [--page-size N] [--force | --workflow [--port N] | --remote [--env production|preview]]) [--rejects PATH] [--warnings PATH] [--persist-to DIR]\n" +
  "       npm run import -- --source tx|fl-flr FILE|DIR... [--rejects PATH] [--warnings PATH] [--persist-to DIR]\n" +
  "  FILE: .ndjson/.jsonl (one filing per line, envelope B lien shape), .csv (one row per party) or .xml (IACA-style bulk file)\n" +
  "  --state XX: jurisdiction of records that name none (XML whose FilingOffice is not a state code)\n" +
  "  --backfill: the files are their states' backfill, announced by no change (refused for a state that holds filings, unless --force)\n" +
  "  --pull --force: take over the position of a Workflow pull of the source that is stale (refused while it may run)\n" +
  "  --workflow: load through the Workflow of the local npm start (port 8787 or --port); --remote: of a deployed environment\n" +
  "  --port N: the local npm start's port (8787), whose webhook dispatcher an in-process import nudges\n" +
  "  --status: the loads and pulls run through the Workflows, newest first\n" +
  "  --source: an office's open register (docs/sources/): its portal's .json or .csv files, or --pull from the portal;\n" +
  "    tx, fl-flr: the office's bulk files (Texas's fixed-width unloads; Florida's FLR sets, .txt or .zip, a directory for all in it)";

const {
  values,
  positionals: files,
  target,
  fail: usage,
} = feedCommandLine(
  USAGE,
  {
    rejects: { type: "string" },
    warnings: { type: "string" },
    state: { type: "string" },
    "no-bulk": { type: "boolean" },
    workflow: { type: "boolean" },
    port: { type: "string" },
    status: { type: "boolean" },
    source: { type: "string" },
    pull: { type: "boolean" },
    since: { type: "string" },
    portal: { type: "string" },
    "page-size": { type: "string" },
    backfill: { type: "boolean" },
    force: { type: "boolean" },
  },
  true,
);
// An office's open register (scripts/sources.ts).
if ([values.source, values.pull, values.since, values.portal, values["page-size"]].some((v) => v !== undefined)) {
  process.exit(
    await importSource({
      source: values.source ?? usage("--pull, --since, --portal and --page-size are for --source"),
      pull: values.pull === true,
      since: values.since,
      portal: values.portal,
      pageSize: values["page-size"],
      files,
      target,
      workflow: values.workflow === true,
      port: values.port,
      force: values.force === true,
      rejects: values.rejects,
      warnings: values.warnings,
      others: (["state", "no-bulk", "status", "backfill"] as const)
        .filter((o) => values[o] !== undefined)
        .map((o) => `--${o}`),
      fail: usage,
    }),
  );
}
if (values.workflow && target.remote) usage("--workflow is the local Workflow; --remote a deployed one: not both");
if (values.port !== undefined && target.remote) usage("--port is the local session's, not with --remote");
const port = Number(values.port ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 65_535) usage(`--port ${values.port}: not a port`);
if (values.status) {
  if (files.length > 0 || values.workflow) usage("--status takes no FILE and no --workflow");
  // Each load's status is its Workflow instance's, asked of the local session on --port (or the deployed environment).
  await printStatus(target, port);
  process.exit(0);
}
if (files.length === 0) usage("no FILE given");
if (values.force && !values.backfill) usage("--force goes with --backfill");
/** What the operator says of the load (src/feed/backfills.ts). */
const declared: Declared = values.backfill ? { backfill: true, force: values.force === true } : undefined;
/** Through a Workflow (local or deployed) rather than in-process. */
const onPlatform = values.workflow || target.remote;
for (const file of files) {
  if (!feedFormat(file)) usage(`${file}: unknown format; name it .ndjson, .jsonl, .csv or .xml`);
  if (!existsSync(file) || !statSync(file).isFile()) usage(`${file}: no such file`);
}
const defaultState = values.state?.trim().toUpperCase();
if (defaultState !== undefined && !isStateCode(defaultState))
  usage(`--state ${values.state}: not a US state or territory code`);

const rejects = new LinesWriter("rejects", values.rejects);
const warnings = new LinesWriter("warnings", values.warnings);
/** Queued debtors refreshed at a time after a delta (the parts refreshQueued takes alone): each part moves the bar. */
const REFRESH_PART = 5_000;
const total: ImportSummary = emptySummary();
let started = Date.now();
/** Some file was not (fully) imported. */
let failed = false;
/** The import stopped on an error (the database's, usually). */
let aborted = false;
let opened = false;
/** The import recorded changes (not a backfill): webhooks have something to send. */
let recorded = false;
const add = (s: ImportSummary) => Object.assign(total, sumOf(total, s));

/** In-process, into the local D1 files. */
async function inProcess() {
  await migrateLocal(target);
  const { shards, sqlite, dispose } = await openLocalShards(target);
  opened = true;
  // Empty local databases load in bulk (scripts/bulk/import.ts): every state a backfill.
  const empties = new Set(await emptyShards(shards));
  const empty = !values["no-bulk"] && [...sqlite.keys()].every((shard) => empties.has(shard));
  const source = `import ${files.join(" ")}`;
  const bulk = empty ? await beginBulk(sqlite, source) : undefined;
  if (empty && !bulk)
    console.error(
      "Another import is loading these empty databases in bulk: this one waited for it and loads as a delta.",
    );
  // A bulk load that was stopped: this import loads the rest, and ends it if it completes.
  const resumed = bulk ? [] : [...sqlite].filter(([, file]) => isBackfilling(file));
  if (resumed.length > 0) {
    console.error(
      `The bulk load of ${resumed.map(([shard]) => shard).join(", ")} was interrupted: this import loads the rest of it, and ends it if it completes.`,
    );
  }
  // One set of decisions for the run: a state first met in any of its files is backfilled by all of them.
  const backfills = new Backfills(shards, source, new Date(), {}, declared);
  const shardCount = shards.layout.shards.length;
  console.error(
    `Importing ${files.length === 1 ? files[0] : `${files.length} files`} into the ${describeTarget(target)}${shardCount > 1 ? ` (${shardCount} shards)` : ""}${bulk ? ", empty: bulk mode" : ""} (ready in ${((Date.now() - started) / 1000).toFixed(1)}s)`,
  );
  started = Date.now();
  // Filings a file gives more than once are compared in their last version
  // only (src/feed/repeats.ts), which takes a first reading; it also names
  // the files' states, each decided (or refused) before anything is
  // written. A bulk load compares nothing (it holds every repeat back
  // anyway) and backfills every state; but a CSV file's first reading also
  // finds filings whose rows are not adjacent, which are read as one.
  const readings = new Map<string, FirstReading>();
  for (const file of files.filter((f) => !bulk || feedFormat(f) === "csv")) {
    readings.set(file, await readFirst(file, defaultState));
  }
  if (!bulk) {
    const states = [...readings.values()].flatMap((r) => [...r.states]);
    const backfilling = await backfills.backfilling(states);
    recorded = states.some((state) => !backfilling.has(state));
    for (const [file, reading] of readings) describeBackfills(file, backfilling, reading.states);
  }
  /** Every file was read to its end (some may have had rejects, none stopped). */
  let complete = false;
  try {
    for (const file of files) {
      rejects.clear(file);
      warnings.clear(file);
      const fileStarted = Date.now();
      const now = new Date(fileStarted);
      const repeats = readings.get(file)?.repeats;
      if (repeats && repeats.size > 0) {
        console.error(
          `  ${file}: ${number(repeats.size)} ${repeats.size === 1 ? "filing" : "filings"} given more than once; each is compared with what is stored in its last version`,
        );
      }
      // The share of the file read when a group is written: its records and those before them.
      const counter = byteCounter();
      const bar = new Progress(file);
      bar.phase("writing", statSync(file).size);
      const body = (Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>).pipeThrough(
        counter.stream,
      );
      /** What is written so far: the summary after the last group. */
      let written: ImportSummary = emptySummary();
      try {
        const options: Parameters<typeof importSharded>[3] = {
          now,
          source: `import ${file}`,
          backfills,
          ...(repeats ? { repeats } : {}),
          ...(defaultState ? { defaultState } : {}),
          // The aggregates are rebuilt once, after the last file (below).
          deferRefresh: true,
          onReject: (r) => rejects.write(r),
          onWarning: (w) => warnings.write(w),
          onProgress: (p) => {
            written = p;
            bar.update(counter.bytes(), writtenDetail(p, bar.elapsed()));
          },
        };
        // Each filing to its state's shard (src/feed/shardedImport.ts).
        const s = await importSharded(
          shards,
          file,
          body,
          bulk
            ? {
                ...options,
                bulkWriters: new Map([...bulk].map(([shard, b]) => [shard, b.writer()])),
                groupSize: BULK_GROUP,
              }
            : options,
        );
        bar.end(writtenDetail(s, bar.elapsed()), counter.bytes());
        add(s);
        if (files.length > 1) console.error(`  ${file}: ${summaryLine(s, Date.now() - fileStarted)}`);
      } catch (err) {
        bar.end(undefined, counter.bytes());
        if (!(err instanceof FeedFileError)) {
          add(written);
          throw err;
        }
        // A file that cannot be read (a bad CSV header, a broken XML file)
        // stops only itself, keeping what loaded before the problem.
        failed = true;
        const before = writtenBefore(err);
        if (before.read > 0) {
          add(before);
          console.error(
            `  ${file}: not fully imported: ${err.message}\n  ${file}: before that: ${summaryLine(before, Date.now() - fileStarted)}`,
          );
        } else console.error(`  ${file}: not imported: ${err.message}`);
      }
    }
    complete = !failed;
  } finally {
    try {
      // Also after a failure: what was written gets its indexes and aggregates.
      const phase = Date.now();
      const finishing = new Progress("");
      if (bulk) {
        const dbOf = (shard: string) => shardDb(shards, shard);
        const later = await finishBulkImports(bulk, dbOf, (w) => warnings.write(w), finishing);
        total.inserted += later.inserted;
        total.pending += later.pending;
        // Every shard finished and every file read: the bulk load is over, everywhere at once.
        if (complete) for (const b of bulk.values()) b.end();
      } else {
        await refreshWithProgress(shards, finishing, { part: REFRESH_PART });
        if (complete) for (const [, file] of resumed) endBulkLoad(file);
      }
      // Every file read to its end: the backfills the run began or went on with are complete.
      if (complete) await backfills.complete(new Date());
      console.error(`  finished in ${((Date.now() - phase) / 1000).toFixed(1)}s`);
    } finally {
      await dispose();
    }
  }
}

/**
 * Begins a bulk load of every shard, or of none: undefined when another
 * import began one first (it then waits for that import's writing to end,
 * and loads as an ordinary import).
 */
async function beginBulk(
  sqlite: Map<string, DatabaseSync>,
  source: string,
): Promise<Map<string, BulkImport> | undefined> {
  const bulk = new Map<string, BulkImport>();
  for (const [shard, file] of sqlite) {
    const b = BulkImport.begin(file, source);
    if (!b) {
      // Imports begin the shards in the same order: whoever has the first has them all.
      if (bulk.size > 0)
        throw new Error(`another import began a bulk load of ${shard} but not of the shards before it`);
      for (const other of sqlite.values()) await waitForBulkWriter(other);
      return undefined;
    }
    bulk.set(shard, b);
  }
  return bulk;
}

/** One line naming the states of `file` that it backfills, if any. */
function describeBackfills(file: string, backfilling: ReadonlySet<string>, states: ReadonlySet<string>) {
  const mine = [...states].filter((s) => backfilling.has(s)).sort();
  if (mine.length === 0) return;
  console.error(
    `  ${file}: the backfill of ${mine.join(", ")}: ${mine.length === 1 ? "its" : "their"} filings are loaded without announcing them in the change feed (docs/monitoring.md)`,
  );
}

/** Through the LoadFeed Workflow of the local session or of a deployed environment. */
async function viaPlatform() {
  // Locally, npm start applied the migrations; remotely, the deploy did.
  const platform = await openPlatform(target, port);
  opened = true;
  console.error(
    `Importing ${files.length === 1 ? files[0] : `${files.length} files`} through ${platform.describe} (ready in ${((Date.now() - started) / 1000).toFixed(1)}s)`,
  );
  started = Date.now();
  try {
    for (const file of files) {
      const result = await loadOnPlatform(
        platform,
        file,
        defaultState,
        { rejects, warnings },
        declared ? (declared.force ? "force" : "yes") : undefined,
      );
      if (result.loadedBefore) {
        // These bytes loaded before: nothing was loaded now, and the summary is that load's.
        console.error(
          `  ${file}: already loaded, by ${result.loadedBefore.id} (finished ${result.loadedBefore.at}): ${summaryLine(result.summary)}`,
        );
        continue;
      }
      add(result.summary);
      if (result.error) {
        // As a file that breaks in-process: it stops itself only, keeping what loaded.
        failed = true;
        console.error(
          `  ${file}: not fully imported: ${result.error}\n  ${file}: before that: ${summaryLine(result.summary, result.ms)}`,
        );
      } else if (files.length > 1) console.error(`  ${file}: ${summaryLine(result.summary, result.ms)}`);
    }
  } finally {
    await platform.dispose();
  }
}

try {
  await (onPlatform ? viaPlatform() : inProcess());
} catch (err) {
  if (err instanceof BackfillRefused) {
    // Decided before anything was written: nothing is loaded.
    console.error(`Refused: ${err.message}`);
    await rejects.close();
    await warnings.close();
    process.exit(2);
  }
  failed = true;
  aborted = true;
  console.error(`\nImport failed: ${(err as Error).message}`);
  if (opened) {
    console.error(
      "Every group of filings written before the failure is kept whole. The next import (or npm run db:migrate, or npm start) first finishes what this one left undone; running this import again then loads the rest and leaves what is loaded unchanged.",
    );
  }
} finally {
  await rejects.close();
  await warnings.close();
}

// Webhooks (src/webhooks/): the local session matches what this in-process import committed.
if (opened && !onPlatform && recorded && total.inserted + total.updated > 0) {
  const said = await nudgeWebhooks(target, port, "import").catch((err) => `webhooks: not nudged (${err.message})`);
  console.error(`  ${said}`);
}
if (opened)
  console.log(`${aborted ? "Imported before the failure" : "Imported"}: ${summaryLine(total, Date.now() - started)}`);
for (const [path, count] of rejects.written) console.log(`Rejects: ${number(count)} in ${path}`);
for (const [path, count] of warnings.written) console.log(`Warnings: ${number(count)} in ${path}`);
process.exit(failed ? 1 : total.rejected > 0 ? 3 : 0);
