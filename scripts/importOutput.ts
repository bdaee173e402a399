/**
 * What `npm run import` shows and writes, in-process or on the platform
 * (scripts/platformLoad.ts): the rejects and warnings files, what its
 * progress (scripts/progress.ts) says of a file, and the summary line.
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
 * Counts the bytes of a file's stream as they pass through `stream` (the
 * share of the file read), telling `onBytes` of each chunk when given.
 */
export function byteCounter(onBytes?: (bytes: number) => void) {
  let bytes = 0;
  const stream = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      controller.enqueue(chunk);
      onBytes?.(bytes);
    },
  });
  return { stream, bytes: () => bytes };
}

/** What a writing phase says (scripts/progress.ts): the records written so far, and their pace over `ms`. */
export function writtenDetail(s: ImportSummary, ms: number): string {
  const rate = Math.round(s.read / Math.max(0.001, ms / 1000));
  return `${number(s.read)} records written or rejected (${number(s.rejected)} rejected, ${number(s.warned)} with warnings), ${number(rate)}/s`;
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
