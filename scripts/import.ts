/**
 * Loads filing feeds into D1. Run through npm, which supplies the right Node:
 *
 *   npm run import -- feeds/ca.ndjson feeds/tx.csv feeds/co.xml
 *   npm run import -- feed.ndjson --rejects /tmp/rejects.ndjson --warnings /tmp/warnings.ndjson
 *   npm run import -- county.xml --state IL              # records whose FilingOffice names no state
 *   npm run import -- feed.ndjson --remote               # production's database
 *   npm run import -- feed.ndjson --remote --env preview
 *
 * Formats by extension: .ndjson / .jsonl (one filing per line in the API's
 * envelope B lien shape), .csv (one row per party or amendment) and .xml
 * (IACA-style bulk files, one FileDetail per filing or amendment); see
 * docs/data-feeds.md. Each filing goes to its state's shard (wrangler.toml,
 * docs/sharding.md). Filings are keyed by state and initial financing
 * number: new ones are inserted, changed ones replaced (XML records are
 * merged into what is stored), identical ones left alone, so importing a
 * file twice changes nothing.
 *
 * Unusable records go to a rejects file (default FILE.rejects.ndjson; one
 * JSON object a line with file, line, reason and raw) and never stop the
 * good ones; records loaded with a repair or a gap are listed in a warnings
 * file (default FILE.warnings.ndjson: file, line, filing, reason). Exit
 * status: 0 all loaded (warnings or not), 3 loaded with rejects, 1 failed
 * (a file unreadable part-way keeps what loaded before), 2 usage.
 */

import { once } from "node:events";
import { createReadStream, createWriteStream, existsSync, rmSync, statSync, type WriteStream } from "node:fs";
import { Readable } from "node:stream";
import { refreshQueued } from "../src/db/load.ts";
import { isStateCode } from "../src/domain/states.ts";
import { emptySummary, type ImportSummary } from "../src/feed/import.ts";
import { FeedFileError, feedFormat, type Place, readFeed } from "../src/feed/read.ts";
import { findRepeats } from "../src/feed/repeats.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { BULK_GROUP, BulkImport, isEmpty } from "./bulk/import.ts";
import { endBulkLoad, isBackfilling } from "./bulk/load.ts";
import { describeTarget, feedCommandLine, migrateLocal, openShards } from "./feedDb.ts";

const USAGE =
  "usage: npm run import -- FILE... [--rejects PATH] [--warnings PATH] [--state XX] [--no-bulk] [--remote [--env production|preview]] [--persist-to DIR]\n" +
  "  FILE: .ndjson/.jsonl (one filing per line, envelope B lien shape), .csv (one row per party) or .xml (IACA-style bulk file)\n" +
  "  --state XX: jurisdiction of records that name none (XML whose FilingOffice is not a state code)";

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
  },
  true,
);
if (files.length === 0) usage("no FILE given");
for (const file of files) {
  if (!feedFormat(file)) usage(`${file}: unknown format; name it .ndjson, .jsonl, .csv or .xml`);
  if (!existsSync(file) || !statSync(file).isFile()) usage(`${file}: no such file`);
}
const defaultState = values.state?.trim().toUpperCase();
if (defaultState !== undefined && !isStateCode(defaultState))
  usage(`--state ${values.state}: not a US state or territory code`);

const number = (n: number) => n.toLocaleString("en-US");

/**
 * Lines of one kind (rejects, warnings) of one run: to one file per input
 * (FILE.SUFFIX) or to the one `shared` file, created only when needed.
 */
class LinesWriter {
  private streams = new Map<string, WriteStream>();
  readonly written = new Map<string, number>();

  private readonly suffix: string;
  private readonly shared: string | undefined;

  constructor(suffix: string, shared: string | undefined) {
    this.suffix = suffix;
    this.shared = shared;
  }

  pathFor(file: string) {
    return this.shared ?? `${file}.${this.suffix}.ndjson`;
  }

  /** Clears a file left by an earlier run, so the one on disk always belongs to this run. */
  clear(file: string) {
    if (!this.streams.has(this.pathFor(file))) rmSync(this.pathFor(file), { force: true });
  }

  async write(line: Place) {
    const path = this.pathFor(line.file);
    let stream = this.streams.get(path);
    if (!stream) {
      stream = createWriteStream(path, { flags: "w" });
      this.streams.set(path, stream);
    }
    this.written.set(path, (this.written.get(path) ?? 0) + 1);
    if (!stream.write(`${JSON.stringify(line)}\n`)) await once(stream, "drain");
  }

  async close() {
    for (const stream of this.streams.values()) {
      stream.end();
      await once(stream, "finish");
    }
  }
}

/**
 * Progress after each group of records written: a bar on a terminal, else a
 * line whenever another tenth of the file has been read since the last one.
 * The percentage is of the file's bytes read, which runs a little ahead of
 * the records written.
 */
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
    const line = `of the file read; ${number(s.read)} records written or rejected (${number(s.rejected)} rejected, ${number(s.warned)} with warnings), ${number(rate)}/s`;
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

const rejects = new LinesWriter("rejects", values.rejects);
const warnings = new LinesWriter("warnings", values.warnings);
const total: ImportSummary = emptySummary();
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
  if (!target.remote) await migrateLocal(target);
  const { shards, sqlite, dispose } = await openShards(target);
  opened = true;
  // Empty local databases load in bulk (scripts/bulk/import.ts): a backfill.
  const empty = sqlite && !values["no-bulk"] && [...sqlite.values()].every(isEmpty);
  const source = `import ${files.join(" ")}`;
  const bulk = empty ? new Map([...sqlite].map(([shard, file]) => [shard, new BulkImport(file, source)])) : undefined;
  // Shards whose backfill was stopped: this import loads the rest of it, and ends it if it runs to its end.
  const resumed = bulk ? [] : [...(sqlite ?? [])].filter(([, file]) => isBackfilling(file));
  // A first load into a shard (--no-bulk into an empty one too) is a backfill: it records no changes.
  const first = bulk ? [] : [...(sqlite ?? [])].filter(([, file]) => isEmpty(file));
  if (resumed.length > 0) {
    console.error(
      `The backfill of ${resumed.map(([shard]) => shard).join(", ")} was interrupted: this import loads the rest of it, recording no changes, and ends it if it completes.`,
    );
  }
  const shardCount = shards.layout.shards.length;
  console.error(
    `Importing ${files.length === 1 ? files[0] : `${files.length} files`} into the ${describeTarget(target)}${shardCount > 1 ? ` (${shardCount} shards)` : ""}${bulk ? ", empty: bulk mode" : ""} (ready in ${((Date.now() - started) / 1000).toFixed(1)}s)`,
  );
  started = Date.now();
  /** Every file was read to its end (some may have had rejects, none stopped). */
  let complete = false;
  try {
    for (const file of files) {
      rejects.clear(file);
      warnings.clear(file);
      const fileStarted = Date.now();
      const now = new Date(fileStarted);
      const stream = () => Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>;
      // Filings the file gives more than once are compared in their last
      // version only (src/feed/repeats.ts), which takes a first reading. A
      // bulk load compares nothing: it holds every repeat back anyway.
      const repeats = bulk ? undefined : await findRepeats(readFeed(file, stream(), { now, defaultState }));
      if (repeats && repeats.size > 0) {
        console.error(
          `  ${file}: ${number(repeats.size)} ${repeats.size === 1 ? "filing" : "filings"} given more than once; each is compared with what is stored in its last version`,
        );
      }
      const bar = progress(file, statSync(file).size, fileStarted);
      const body = stream().pipeThrough(bar.counter);
      /** What is written so far: the summary after the last group. */
      let written: ImportSummary = emptySummary();
      try {
        const options: Parameters<typeof importSharded>[3] = {
          now,
          source: `import ${file}`,
          ...(repeats ? { repeats } : {}),
          // The rest of an interrupted backfill records no changes, as the backfill would not have.
          backfilling: new Set([...resumed, ...first].map(([shard]) => shard)),
          ...(defaultState ? { defaultState } : {}),
          // Locally the aggregates are rebuilt once, after the last file (below).
          deferRefresh: !target.remote,
          onReject: (r) => rejects.write(r),
          onWarning: (w) => warnings.write(w),
          onProgress: (p) => {
            written = p;
            bar.report(p);
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
        // A file that cannot be read (a bad CSV header, a broken XML file)
        // stops only itself, keeping what loaded before the problem.
        failed = true;
        const before = (err as FeedFileError & { summary?: ImportSummary }).summary;
        if (before && before.read > 0) {
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
      if (bulk) {
        for (const [shard, b] of bulk) {
          const later = await b.finish(
            shards.databases.get(shard)!,
            (step) => console.error(`  ${shardCount > 1 ? `${shard}: ` : ""}${step}...`),
            (w) => warnings.write(w),
          );
          total.inserted += later.inserted;
          total.pending += later.pending;
        }
        // Every shard finished and every file read: the backfill is over, everywhere at once.
        if (complete) for (const b of bulk.values()) b.end();
      } else if (!target.remote) {
        console.error("  rebuilding the aggregates of the debtors loaded...");
        for (const db of shards.databases.values()) await refreshQueued(db);
        if (complete) for (const [, file] of resumed) endBulkLoad(file);
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
    console.error(
      "Every group of filings written before the failure is kept whole. The next import (or npm run db:migrate, or npm start) first finishes what this one left undone; running this import again then loads the rest and leaves what is loaded unchanged.",
    );
  }
} finally {
  await rejects.close();
  await warnings.close();
}

/** `N records read: ...`: what the import did (filings counted once per group they were written in). */
function summaryLine(s: ImportSummary, ms: number): string {
  const seconds = ms / 1000;
  return [
    `${number(s.read)} records read: ${number(s.inserted)} inserted, ${number(s.updated)} updated, ${number(s.unchanged)} unchanged, ${number(s.rejected)} rejected; ${number(s.warned)} loaded with warnings`,
    s.amendments > 0
      ? `; ${number(s.amendments)} amendment records, ${number(s.pending)} waiting for their filing`
      : "",
    s.repeated > 0 ? `; ${number(s.repeated)} repeated (the last kept)` : "",
    ` in ${seconds.toFixed(1)}s (${number(Math.round(s.read / Math.max(seconds, 0.001)))} records/s)`,
  ].join("");
}

if (opened)
  console.log(`${aborted ? "Imported before the failure" : "Imported"}: ${summaryLine(total, Date.now() - started)}`);
for (const [path, count] of rejects.written) console.log(`Rejects: ${number(count)} in ${path}`);
for (const [path, count] of warnings.written) console.log(`Warnings: ${number(count)} in ${path}`);
process.exit(failed ? 1 : total.rejected > 0 ? 3 : 0);
