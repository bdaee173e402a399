/**
 * Loads filing feeds into D1. Run through npm, which supplies the right Node:
 *
 *   npm run import -- feeds/ca.ndjson feeds/tx.csv
 *   npm run import -- feed.ndjson --rejects /tmp/rejects.ndjson
 *   npm run import -- feed.ndjson --remote               # production's database
 *   npm run import -- feed.ndjson --remote --env preview
 *
 * Formats by extension: .ndjson / .jsonl (one filing per line in the API's
 * envelope B lien shape) and .csv (one row per party or amendment); see the
 * docs/data-feeds.md. Filings are keyed by state and
 * initial financing number: new ones are inserted, changed ones replaced,
 * identical ones left alone, so importing a file twice changes nothing.
 *
 * Bad filings go to a rejects file (default FILE.rejects.ndjson; one JSON
 * object a line with file, line, reason and raw) and never stop the good
 * ones. Exit status: 0 all loaded, 3 loaded with rejects, 1 failed, 2 usage.
 */

import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync, rmSync, statSync, type WriteStream } from "node:fs";
import { Readable } from "node:stream";
import { refreshQueued } from "../src/db/load.ts";
import { type ImportSummary, importFeed } from "../src/feed/import.ts";
import { FeedFileError, feedFormat, type Reject } from "../src/feed/read.ts";
import { BulkImport, isEmpty } from "./bulkImport.ts";
import { describeTarget, feedCommandLine, migrateLocal, openDatabase } from "./feedDb.ts";

const USAGE =
  "usage: npm run import -- FILE... [--rejects PATH] [--no-bulk] [--remote [--env production|preview]] [--persist-to DIR]\n" +
  "  FILE: .ndjson/.jsonl (one filing per line, envelope B lien shape) or .csv (one row per party)";

const {
  values,
  positionals: files,
  target,
  fail: usage,
} = feedCommandLine(USAGE, { rejects: { type: "string" }, "no-bulk": { type: "boolean" } }, true);
if (files.length === 0) usage("no FILE given");
for (const file of files) {
  if (!feedFormat(file)) usage(`${file}: unknown format; name it .ndjson, .jsonl or .csv`);
  if (!existsSync(file) || !statSync(file).isFile()) usage(`${file}: no such file`);
}

const number = (n: number) => n.toLocaleString("en-US");

/** Rejects of one run, to one file per input (or the one --rejects file), created only when needed. */
class RejectsWriter {
  private streams = new Map<string, WriteStream>();
  readonly written = new Map<string, number>();

  pathFor(file: string) {
    return values.rejects ?? `${file}.rejects.ndjson`;
  }

  /** Clears a rejects file left by an earlier run, so the one on disk always belongs to this run. */
  clear(file: string) {
    if (!this.streams.has(this.pathFor(file))) rmSync(this.pathFor(file), { force: true });
  }

  async write(reject: Reject) {
    const path = this.pathFor(reject.file);
    let stream = this.streams.get(path);
    if (!stream) {
      stream = createWriteStream(path, { flags: "w" });
      this.streams.set(path, stream);
    }
    this.written.set(path, (this.written.get(path) ?? 0) + 1);
    if (!stream.write(`${JSON.stringify(reject)}\n`)) await once(stream, "drain");
  }

  async close() {
    for (const stream of this.streams.values()) {
      stream.end();
      await once(stream, "finish");
    }
  }
}

/** A progress bar on a terminal (by bytes read), a line per 10% otherwise. */
function progress(file: string, size: number, started: number) {
  let bytes = 0;
  let lastDecile = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const report = (s: ImportSummary) => {
    const pct = size === 0 ? 100 : Math.min(100, Math.floor((bytes / size) * 100));
    const rate = Math.round(s.read / Math.max(0.001, (Date.now() - started) / 1000));
    const line = `${number(s.read)} filings, ${number(rate)}/s, ${number(s.rejected)} rejected`;
    if (process.stderr.isTTY) {
      const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".");
      process.stderr.write(`\r  [${bar}] ${String(pct).padStart(3)}% ${line}\u001b[K`);
    } else if (Math.floor(pct / 10) > lastDecile) {
      lastDecile = Math.floor(pct / 10);
      console.error(`  ${file}: ${pct}% ${line}`);
    }
  };
  const done = () => {
    if (process.stderr.isTTY) process.stderr.write("\n");
  };
  return { counter, report, done };
}

const rejects = new RejectsWriter();
const total: ImportSummary = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
let started = Date.now();
/** Some file was not (fully) imported. */
let failed = false;
/** The import stopped on an error (the database's, usually). */
let aborted = false;
let opened = false;
const add = (s: ImportSummary) => {
  for (const k of Object.keys(total) as (keyof ImportSummary)[]) total[k] += s[k];
};

try {
  if (!target.remote) migrateLocal(target);
  const { db, sqlite, dispose } = await openDatabase(target);
  opened = true;
  // An empty local database loads in bulk (scripts/bulkImport.ts): a backfill.
  const bulk = sqlite && !values["no-bulk"] && isEmpty(sqlite) ? new BulkImport(sqlite) : undefined;
  console.error(
    `Importing ${files.length === 1 ? files[0] : `${files.length} files`} into the ${describeTarget(target)}${bulk ? ", empty: bulk mode" : ""} (ready in ${((Date.now() - started) / 1000).toFixed(1)}s)`,
  );
  started = Date.now();
  try {
    for (const file of files) {
      rejects.clear(file);
      const fileStarted = Date.now();
      const bar = progress(file, statSync(file).size, fileStarted);
      const body = (Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>).pipeThrough(
        bar.counter,
      );
      /** What is written so far: the summary after the last group. */
      let written: ImportSummary = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
      try {
        const options = {
          source: `import ${file}`,
          // Locally the aggregates are rebuilt once, after the last file (below).
          deferRefresh: !target.remote,
          onReject: (r: Reject) => rejects.write(r),
          onProgress: (p: ImportSummary) => {
            written = p;
            bar.report(p);
          },
        };
        const s = await (bulk ? bulk.importFeed(db, file, body, options) : importFeed(db, file, body, options));
        bar.report(s);
        bar.done();
        add(s);
        if (files.length > 1) console.error(`  ${file}: ${summaryLine(s, Date.now() - fileStarted)}`);
      } catch (err) {
        bar.done();
        if (!(err instanceof FeedFileError)) {
          add(written);
          throw err;
        }
        // A file that cannot be read at all (a bad CSV header) stops only itself.
        failed = true;
        console.error(`  ${file}: not imported: ${err.message}`);
      }
    }
  } finally {
    try {
      // Also after a failure: what was written gets its indexes and aggregates.
      const phase = Date.now();
      if (bulk) await bulk.finish(db, (step) => console.error(`  ${step}...`));
      else if (!target.remote) {
        console.error("  rebuilding the aggregates of the debtors loaded...");
        await refreshQueued(db);
      }
      if (!target.remote) console.error(`  finished in ${((Date.now() - phase) / 1000).toFixed(1)}s`);
    } finally {
      await dispose();
    }
  }
} catch (err) {
  failed = true;
  aborted = true;
  console.error(`\nImport failed: ${(err as Error).message}`);
  if (opened) {
    console.error("Filings written before the failure stay; importing again is safe (unchanged filings are skipped).");
  }
} finally {
  await rejects.close();
}

function summaryLine(s: ImportSummary, ms: number): string {
  const repeated = s.read - s.rejected - s.inserted - s.updated - s.unchanged;
  const seconds = ms / 1000;
  return [
    `${number(s.read)} filings read: ${number(s.inserted)} inserted, ${number(s.updated)} updated, ${number(s.unchanged)} unchanged, ${number(s.rejected)} rejected`,
    repeated > 0 ? `, ${number(repeated)} repeated (the last kept)` : "",
    ` in ${seconds.toFixed(1)}s (${number(Math.round(s.read / Math.max(seconds, 0.001)))} filings/s)`,
  ].join("");
}

if (opened)
  console.log(`${aborted ? "Imported before the failure" : "Imported"}: ${summaryLine(total, Date.now() - started)}`);
for (const [path, count] of rejects.written) console.log(`Rejects: ${number(count)} in ${path}`);
process.exit(failed ? 1 : total.rejected > 0 ? 3 : 0);
