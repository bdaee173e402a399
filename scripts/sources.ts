/**
 * `npm run import -- --source ct|co|or ...`: an office's open register
 * (src/feed/sources/, docs/sources/) loaded in-process into the local D1
 * files, from the portal's files or by a pull from the portal:
 *
 *   npm run import -- --source ct xfev-8smz.json
 *   npm run import -- --source co transactions.csv debtors.csv secured.csv collateral.csv
 *   npm run import -- --source ct --pull [--since YYYY-MM-DD] [--portal URL] [--page-size N] [--force]
 *   npm run import -- --source ct --pull --workflow [--port N]     # by the local npm start's PullSource Workflow
 *   npm run import -- --source ct --pull --remote [--env preview]  # by a deployed one (scripts/platformPull.ts)
 *   npm run import -- --source tx master-1.txt master-2.txt        # an office's bulk files (scripts/bulkFiles.ts)
 *   npm run import -- --source fl-flr Quarterly/FLR/
 *
 * Rows are staged first (every file, or every page of the pull), then the
 * filings whose rows are new or changed are assembled and loaded through
 * the ordinary import. A state's first load is its backfill and records no
 * changes, as `npm run import` decides for feed files (src/feed/backfills.ts).
 */
import { createReadStream, existsSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import { shardDb } from "../src/db/shards.ts";
import { emptySummary, type ImportSummary, sumOf } from "../src/feed/import.ts";
import { FeedFileError } from "../src/feed/read.ts";
import {
  advanceThrough,
  assembleStep,
  filingsPending,
  finishLoad,
  rowsWaiting,
  rowsWaitingAt,
} from "../src/feed/sources/assemble.ts";
import { assembling, FilesRefused, isBulkSource } from "../src/feed/sources/bulk.ts";
import { Unrecognised } from "../src/feed/sources/codes.ts";
import {
  datasetUrl,
  endPull,
  foundAnything,
  MAX_PAGE,
  MAX_RESTARTS,
  movedUnder,
  newPull,
  PullError,
  type PullPosition,
  pagesDone,
  pullPage,
  pullState,
  resumePull,
  STEP_PAGE,
  savePosition,
} from "../src/feed/sources/pull.ts";
import { SOURCES, sourceOf } from "../src/feed/sources/registry.ts";
import type { Source, SourceId } from "../src/feed/sources/source.ts";
import { addCounts, noCounts, sourceFormat, stageFile } from "../src/feed/sources/stage.ts";
import type { PullParams } from "../src/platform/pullSource.ts";
import { checkedBulk, stageBulkFiles } from "./bulkFiles.ts";
import { describeTarget, migrateLocal, openLocalShards, type Target } from "./feedDb.ts";
import { byteCounter, LinesWriter, number, rowsLine, summaryLine } from "./importOutput.ts";
import { localPullRunning, pullOnPlatform } from "./platformPull.ts";
import { Progress } from "./progress.ts";
import { refreshWithProgress } from "./refreshQueue.ts";
import { nudgeWebhooks } from "./webhookQueues.ts";

export interface SourceArguments {
  source: string;
  pull: boolean;
  since?: string;
  portal?: string;
  pageSize?: string;
  files: string[];
  target: Target;
  /**
   * `--workflow`: the pull runs in the local npm start's Workflow, whose
   * session is on `port` (default 8787); in-process, the session whose
   * webhook dispatcher is nudged after the load.
   */
  workflow: boolean;
  port?: string;
  /** `--force`: an in-process pull takes over the position of a Workflow pull of the source that may still run. */
  force: boolean;
  rejects?: string;
  warnings?: string;
  /** Options of feed files that a source load does not take, by name, when given. */
  others: string[];
  fail: (problem: string) => never;
}

const isDay = (text: string) =>
  /^\d{4}-\d{2}-\d{2}$/.test(text) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;

/** The source, its files or pull options, checked; `fail` (exit 2) names what does not fit. */
function checked(args: SourceArguments) {
  const { fail } = args;
  const source = sourceOf(args.source);
  if (!source) return fail(`--source ${args.source}: not one of ${Object.keys(SOURCES).join(", ")}`);
  if (args.others.length > 0) return fail(`--source does not take ${args.others.join(", ")}`);
  // Texas's and Florida's bulk files (src/feed/sources/bulk.ts): files only, in-process.
  if (isBulkSource(source)) {
    return { source, pull: null, bulk: checkedBulk(source, { ...args, remote: args.target.remote }) };
  }
  if (args.workflow && args.target.remote)
    return fail("--workflow is the local Workflow; --remote a deployed one: not both");
  const port = Number(args.port ?? 8787);
  if (args.port !== undefined && args.target.remote) return fail("--port is the local session's, not with --remote");
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return fail(`--port ${args.port}: not a port`);
  /** On the platform (a Workflow) rather than in-process. */
  const platform = args.workflow || args.target.remote ? { port } : null;
  if (args.force && (!args.pull || platform)) {
    return fail("--force is for an in-process --pull: it takes over the position of a Workflow pull of the source");
  }
  if (!args.pull) {
    if (platform) return fail("--source FILE... loads in-process; on the platform, a source is pulled (--pull)");
    for (const flag of ["since", "portal", "pageSize"] as const) {
      if (args[flag] !== undefined) fail(`--${flag === "pageSize" ? "page-size" : flag} is for --pull`);
    }
    if (args.files.length === 0) return fail("--source needs FILE... (the portal's JSON or CSV files) or --pull");
    for (const file of args.files) {
      if (!sourceFormat(file)) fail(`${file}: unknown format; name it .json or .csv, as the portal does`);
      if (!existsSync(file) || !statSync(file).isFile()) fail(`${file}: no such file`);
    }
    return { source, pull: null };
  }
  if (args.files.length > 0) return fail("--pull reads the portal: no FILE");
  if (args.since !== undefined && !isDay(args.since)) return fail(`--since ${args.since}: not a day (YYYY-MM-DD)`);
  let portal: string | undefined;
  if (args.portal !== undefined) {
    try {
      const url = new URL(args.portal);
      if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("not http(s)");
      portal = url.origin + url.pathname.replace(/\/+$/, "");
    } catch {
      return fail(`--portal ${args.portal}: not an http(s) URL`);
    }
  }
  const pageSize = args.pageSize === undefined ? MAX_PAGE : Number(args.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) {
    return fail(`--page-size ${args.pageSize}: not a whole number from 1 to ${number(MAX_PAGE)}`);
  }
  if (platform) {
    // A Workflow's page step stays within a Worker invocation's D1 queries: STEP_PAGE rows at most.
    if (args.pageSize !== undefined && pageSize > STEP_PAGE) {
      return fail(`--page-size ${args.pageSize}: a pull on the platform takes 1 to ${number(STEP_PAGE)} rows a page`);
    }
    const onPlatform: PullParams = {
      // A bulk source returned above: this is a portal's.
      source: source.id as SourceId,
      since: args.since ?? null,
      ...(portal ? { portal } : {}),
      ...(args.pageSize !== undefined ? { pageSize } : {}),
    };
    return {
      source,
      pull: { since: args.since ?? null, portal, pageSize },
      platform: { ...platform, params: onPlatform },
    };
  }
  return { source, pull: { since: args.since ?? null, portal, pageSize } };
}

/** A pull of the source under way by a Workflow, which an in-process pull does not take over unasked (exit 2). */
class PullUnderWay extends Error {
  override name = "PullUnderWay";
}

/**
 * Refuses (PullUnderWay) to go on while the saved position of `source`
 * names a Workflow pull that runs, or may run, on these databases: the
 * local session on `port` says it runs, or no session there can say. With
 * `force`, or once that pull has ended, its position is this pull's.
 */
async function checkNoWorkflowPull(source: Source, position: PullPosition | null, port: number, force: boolean) {
  const by = position?.by;
  if (!by || !position) return;
  const running = await localPullRunning(port, by);
  const where = `page ${number(position.pages)} saved, ${number(position.counts.rows)} rows read so far`;
  if (running.is === "ended") {
    console.error(`  the Workflow pull ${by} left its position (${where}) and has ended: this pull takes it over`);
    return;
  }
  if (force) {
    console.error(`  --force: this pull takes over the position of the Workflow pull ${by} (${where})`);
    return;
  }
  const how =
    running.is === "running"
      ? `${running.status} in the local session on port ${port}`
      : `no local session on port ${port} says whether it still runs`;
  throw new PullUnderWay(
    `a pull of ${source.id} is under way: the Workflow instance ${by} (${how}; ${where}). Let it finish (npm run import -- --status shows it), or add --force to take over its position if it is stale`,
  );
}

/** Statements in-process take many more bound parameters than D1's 100 (SQLite's limit is 32,766): fewer, larger ones. */
const LOCAL = { maxParams: 30_000, groupSize: 20_000 };

/** Debtors whose aggregates are rebuilt per batch at the end of a load. */
const REFRESH_PART = 50_000;

/** Loads the register; returns the exit status (0, 3 with rejects, 1 failed). */
export async function importSource(args: SourceArguments): Promise<number> {
  const checkedArgs = checked(args);
  const { source, pull } = checkedArgs;
  const bulk = "bulk" in checkedArgs ? checkedArgs.bulk : undefined;
  if ("platform" in checkedArgs && checkedArgs.platform) {
    const { port, params } = checkedArgs.platform;
    const rejects = new LinesWriter("rejects", args.rejects ?? `${source.id}-pull.rejects.ndjson`);
    const warnings = new LinesWriter("warnings", args.warnings ?? `${source.id}-pull.warnings.ndjson`);
    console.error(
      `Pulling ${source.office}'s register (${source.id}) on the platform of the ${describeTarget(args.target)}`,
    );
    let status = 1;
    try {
      status = await pullOnPlatform(args.target, port, source, params, { rejects, warnings });
    } catch (err) {
      console.error(`\nImport failed: ${(err as Error).message}`);
    } finally {
      await rejects.close();
      await warnings.close();
    }
    for (const [path, count] of rejects.written) console.log(`Rejects: ${number(count)} in ${path}`);
    for (const [path, count] of warnings.written) console.log(`Warnings: ${number(count)} in ${path}`);
    return status;
  }
  const started = Date.now();
  const now = new Date(started);
  const rejects = new LinesWriter("rejects", args.rejects ?? (pull ? `${source.id}-pull.rejects.ndjson` : undefined));
  const warnings = new LinesWriter(
    "warnings",
    args.warnings ?? (pull ? `${source.id}-pull.warnings.ndjson` : undefined),
  );
  const unrecognised = new Unrecognised();
  let rows = noCounts();
  let loaded: ImportSummary = emptySummary();
  let failed = false;
  let opened = false;
  try {
    await migrateLocal(args.target);
    const { shards, dispose } = await openLocalShards(args.target);
    opened = true;
    try {
      const db = shardDb(shards);
      console.error(
        `Importing ${source.office}'s register (${source.id}) into the ${describeTarget(args.target)}${pull ? ` by a pull from ${pull.portal ?? source.portal}` : ""}`,
      );
      let label: string;
      // A bulk source's filings with a line that could not be read are rejected whole (src/feed/sources/bulk.ts).
      let assembled: Source = source;
      let position: PullPosition | null = null;
      if (pull) {
        const state = await pullState(db, source);
        await checkNoWorkflowPull(source, state.position, Number(args.port ?? 8787), args.force);
        // A pull stopped part-way, here or by a Workflow (whose instance it names: it is this one's now).
        const stopped = state.position?.since === pull.since ? state.position : null;
        position = stopped ? { ...resumePull(stopped), by: undefined } : newPull(pull.since, state.changedSince);
        if (stopped) {
          console.error(
            pagesDone(source, position)
              ? `  resuming the pull stopped after its last page (${number(position.counts.rows)} rows read): assembling its filings`
              : `  resuming the pull stopped at page ${number(position.pages + 1)} (${number(position.counts.rows)} rows read)`,
          );
        } else if (position.changedAfter) {
          console.error(`  rows the portal changed after ${position.changedAfter} (the last pull began a day later)`);
        }
        await savePosition(db, source, position);
        while (!pagesDone(source, position)) {
          const table = position.table;
          const before = position;
          position = await pullPage(db, source, position, {
            portal: pull.portal,
            pageSize: pull.pageSize,
            appToken: process.env.SOCRATA_APP_TOKEN || undefined,
            now,
            ...LOCAL,
            onReject: (r) => rejects.write(r),
            onRetry: (message, ms) => console.error(`  ${message}; trying again in ${(ms / 1000).toFixed(1)}s`),
          });
          await savePosition(db, source, position);
          if (movedUnder(before, position)) {
            console.error(
              `  ${source.tables[table]?.title}: page ${number(position.pages)}: the rows before it moved (the office changed the dataset): reading it again from its first page (${position.restarts} of ${MAX_RESTARTS})`,
            );
            continue;
          }
          console.error(
            `  ${source.tables[table]?.title}: page ${number(position.pages)}: ${rowsLine(position.counts)} so far`,
          );
        }
        rows = position.counts;
        label = `pull ${source.id} ${datasetUrl(source, 0, pull.portal).replace(/\/resource\/.*$/, "")}`;
      } else if (bulk && isBulkSource(source)) {
        const staged = await stageBulkFiles(db, source, bulk, { rejects, warnings }, { now, ...LOCAL });
        assembled = assembling(source, staged.tainted);
        rows = staged.counts;
        failed ||= staged.failed;
        label = `import --source ${source.id} ${args.files.join(" ")}`;
      } else {
        for (const file of args.files) {
          rejects.clear(file);
          warnings.clear(file);
          const counter = byteCounter();
          const staging = new Progress(file);
          staging.phase("staging", statSync(file).size);
          const body = (Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>).pipeThrough(
            counter.stream,
          );
          const fileStarted = Date.now();
          try {
            const counts = await stageFile(db, source, file, body, {
              now,
              ...LOCAL,
              onReject: (r) => rejects.write(r),
              onProgress: (c) => staging.update(counter.bytes(), rowsLine(c)),
            }).finally(() => staging.drop());
            rows = addCounts(rows, counts);
            await advanceThrough(db, source, counts.newest);
            console.error(
              `  ${file} (${counts.table?.title ?? "no rows"}): ${rowsLine(counts)} in ${((Date.now() - fileStarted) / 1000).toFixed(1)}s`,
            );
          } catch (err) {
            if (!(err instanceof FeedFileError)) throw err;
            // As a broken feed file: it stops itself only, keeping the rows staged before the problem.
            failed = true;
            console.error(`  ${file}: not fully read: ${err.message}`);
          }
        }
        label = `import --source ${source.id} ${args.files.join(" ")}`;
      }
      // The filings whose rows are new or changed, a step at a time (a Workflow's steps would be these).
      const progress = new Progress("");
      const pending = await filingsPending(db, source);
      progress.phase("assembling and loading filings", pending);
      let filingsDone = 0;
      for (let after = ""; ; ) {
        const step = await assembleStep(shards, assembled, after, {
          now,
          // The state's first load is its backfill (src/feed/backfills.ts): decided by the first step, completed by finishLoad.
          deferRefresh: true,
          unrecognised,
          maxParams: LOCAL.maxParams,
          onReject: (r) => rejects.write(r),
          onWarning: (w) => warnings.write(w),
        });
        if (step.last === null) break;
        after = step.last;
        loaded = sumOf(loaded, step.summary);
        filingsDone += step.filings;
        progress.update(filingsDone, `${number(filingsDone)} of ${number(pending)} filings`);
      }
      progress.end(`${number(filingsDone)} filings: ${summaryLine(loaded)}`, filingsDone);
      // A register's backfill queues millions of debtors: a bounded part of the queue at a time.
      await refreshWithProgress(shards, progress, { part: REFRESH_PART });
      // Files that gave no row, or a pull that found nothing (and nothing left to assemble), record no load.
      const found = pull ? foundAnything({ rows, filings: loaded }) : rows.rows > 0 || loaded.read > 0;
      if (found) await finishLoad(shards, source, label, loaded, now);
      if (pull && position) {
        const summary = { rows, pages: position.pages, filings: loaded, unrecognised: unrecognised.toJSON() };
        if (!(await endPull(db, source, position, summary, now))) {
          console.error(
            "  found nothing new: nothing written; the next pull asks again from where the last pull that found rows began",
          );
        }
      }
      const waiting = await rowsWaiting(db, source);
      if (waiting > 0) {
        // Colorado's party for its transaction; New York City's for its document, or for what its reference names.
        console.error(`  ${number(waiting)} rows wait for the row that gives their filing (read later, they join it):`);
        for (const r of await rowsWaitingAt(db, source, 5)) {
          console.error(`    ${r.file} line ${number(r.line)} (${r.tab}${r.part ? ` ${r.part}` : ""})`);
        }
      }
    } finally {
      await dispose();
    }
  } catch (err) {
    if (err instanceof PullUnderWay || err instanceof FilesRefused) {
      // Nothing read or written: refused as arguments are.
      console.error(`Refused: ${err.message}`);
      return 2;
    }
    failed = true;
    const why = err instanceof PullError || err instanceof FeedFileError ? err.message : (err as Error).message;
    console.error(`\nImport failed: ${why}`);
    if (opened && pull) {
      console.error("The rows read so far are staged; running the same pull again resumes at the page it stopped on.");
    }
  } finally {
    await rejects.close();
    await warnings.close();
  }
  const ms = Date.now() - started;
  // Webhooks (src/webhooks/): the local session matches what this load committed (a backfill commits no change).
  if (opened && loaded.inserted + loaded.updated > 0) {
    const port = Number(args.port ?? 8787);
    const said = await nudgeWebhooks(args.target, port, "import --source").catch(
      (err) => `webhooks: not nudged (${err.message})`,
    );
    console.error(`  ${said}`);
  }
  if (opened) {
    console.log(`Rows: ${rowsLine(rows)}`);
    console.log(`Imported: ${summaryLine(loaded, ms)}`);
    if (unrecognised.size > 0)
      console.log(`Not recognised (kept as the office's words or read by a general rule): ${unrecognised.describe()}`);
  }
  for (const [path, count] of rejects.written) console.log(`Rejects: ${number(count)} in ${path}`);
  for (const [path, count] of warnings.written) console.log(`Warnings: ${number(count)} in ${path}`);
  return failed ? 1 : rows.rejected + loaded.rejected > 0 ? 3 : 0;
}
