/**
 * What `npm run import` shows and writes, in-process or on the platform
 * (scripts/platformLoad.ts): the rejects and warnings files, the progress
 * bar or lines, and the summary line.
 */
import { once } from "node:events";
import { createWriteStream, rmSync, type WriteStream } from "node:fs";
import type { ImportSummary } from "../src/feed/import.ts";
import type { Place } from "../src/feed/read.ts";
import type { StageCounts } from "../src/feed/sources/stage.ts";

export const number = (n: number) => n.toLocaleString("en-US");

/**
 * Lines of one kind (rejects, warnings) of one run: to one file per input
 * (FILE.SUFFIX) or to the one `shared` file, created only when needed.
 */
export class LinesWriter {
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
 * Progress of one file: a bar on a terminal, else a line whenever another
 * tenth of the file has been read since the last one. `report` takes the
 * summary so far and the bytes read (by default, those counted by
 * `counter`, which the file's stream passes through): in-process that runs
 * a little ahead of the records written; on the platform it is what the
 * load has written.
 */
export function progress(file: string, size: number, started: number) {
  let bytes = 0;
  let lastDecile = 0;
  const counter = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const report = (s: ImportSummary, read = bytes) => {
    const pct = size === 0 ? 100 : Math.min(100, Math.floor((read / size) * 100));
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

/**
 * `N records read: ...`: what an import did (filings counted once per group
 * they were written in), and in how long when `ms` is given.
 */
export function summaryLine(s: ImportSummary, ms?: number): string {
  const seconds = (ms ?? 0) / 1000;
  return [
    `${number(s.read)} records read: ${number(s.inserted)} inserted, ${number(s.updated)} updated, ${number(s.unchanged)} unchanged, ${number(s.rejected)} rejected; ${number(s.warned)} loaded with warnings`,
    s.amendments > 0
      ? `; ${number(s.amendments)} amendment records, ${number(s.pending)} waiting for their filing`
      : "",
    s.repeated > 0 ? `; ${number(s.repeated)} repeated (the last kept)` : "",
    ms === undefined
      ? ""
      : ` in ${seconds.toFixed(1)}s (${number(Math.round(s.read / Math.max(seconds, 0.001)))} records/s)`,
  ].join("");
}

/** `N rows read: ...`: what staging an office's rows did (scripts/sources.ts), in-process or on the platform. */
export function rowsLine(c: StageCounts): string {
  return `${number(c.rows)} rows read: ${number(c.changed)} new or changed, ${number(c.rows - c.changed - c.rejected)} unchanged, ${number(c.rejected)} rejected`;
}
