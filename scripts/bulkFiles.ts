/**
 * The files given to `npm run import -- --source tx|fl-flr` (the offices
 * that publish bulk files: src/feed/sources/bulk.ts) as files read by byte
 * ranges from disk; a directory given stands for every file in it the
 * source reads (Florida's sets), in name order.
 */
import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import type { Db } from "../src/db/database.ts";
import { advanceThrough } from "../src/feed/sources/assemble.ts";
import {
  type BulkFile,
  type BulkOptions,
  type BulkSource,
  FilesRefused,
  planFiles,
  stageBulk,
} from "../src/feed/sources/bulk.ts";
import type { StageCounts } from "../src/feed/sources/stage.ts";
import type { LinesWriter } from "./importOutput.ts";
import { rowsLine } from "./importOutput.ts";
import { Progress } from "./progress.ts";

/** A file on disk, read by ranges. */
function diskFile(path: string): BulkFile {
  const size = statSync(path).size;
  return {
    name: path,
    size,
    async read(start, end) {
      const handle = await open(path, "r");
      try {
        const bytes = new Uint8Array(Math.max(0, Math.min(end, size) - start));
        let at = 0;
        while (at < bytes.length) {
          const { bytesRead } = await handle.read(bytes, at, bytes.length - at, start + at);
          if (bytesRead === 0) break;
          at += bytesRead;
        }
        return bytes.subarray(0, at);
      } finally {
        await handle.close();
      }
    },
    stream(start = 0, end = size) {
      if (end <= start) return new Response(new Uint8Array()).body as ReadableStream<Uint8Array>;
      return Readable.toWeb(createReadStream(path, { start, end: end - 1 })) as unknown as ReadableStream<Uint8Array>;
    },
  };
}

/**
 * The files `paths` name for `source`, or why they cannot be read: a path
 * that is not there, or a directory where the source reads none.
 */
export function bulkFiles(source: BulkSource, paths: string[]): BulkFile[] | { problem: string } {
  const out: BulkFile[] = [];
  for (const path of paths) {
    if (!existsSync(path)) return { problem: `${path}: no such file or directory` };
    if (statSync(path).isDirectory()) {
      const accepts = source.bulk.accepts;
      if (!accepts) return { problem: `${path}: a directory: give ${source.id}'s files themselves` };
      const names = readdirSync(path)
        .filter((name) => accepts(name) && statSync(join(path, name)).isFile())
        .sort();
      if (names.length === 0) return { problem: `${path}: holds none of ${source.id}'s files` };
      out.push(...names.map((name) => diskFile(join(path, name))));
    } else if (statSync(path).isFile()) out.push(diskFile(path));
    else return { problem: `${path}: not a file` };
  }
  return out;
}

/** What `--source` was given, as far as a bulk source reads it. */
interface BulkArguments {
  pull: boolean;
  since?: string;
  portal?: string;
  pageSize?: string;
  workflow: boolean;
  remote: boolean;
  files: string[];
  fail: (problem: string) => never;
}

/**
 * The files of a bulk source, checked before anything is opened for
 * writing: no pull options, files that are there, and a set the source
 * reads (Florida's refused without its flrf file); `fail` (exit 2) says
 * what does not fit.
 */
export function checkedBulk(source: BulkSource, args: BulkArguments): BulkFile[] {
  const { fail } = args;
  const options = [
    ["--pull", args.pull],
    ["--since", args.since !== undefined],
    ["--portal", args.portal !== undefined],
    ["--page-size", args.pageSize !== undefined],
    ["--workflow", args.workflow],
    ["--remote", args.remote],
  ] as const;
  const given = options.filter(([, on]) => on).map(([flag]) => flag);
  if (given.length > 0) {
    return fail(`--source ${source.id} reads the office's bulk files, in-process: not ${given.join(", ")}`);
  }
  if (args.files.length === 0) return fail(`--source ${source.id} needs FILE... (the office's files)`);
  const files = bulkFiles(source, args.files);
  if ("problem" in files) return fail(files.problem);
  try {
    planFiles(source, files);
  } catch (err) {
    if (err instanceof FilesRefused) return fail(`Refused: ${err.message}`);
    throw err;
  }
  return files;
}

/**
 * Stages a bulk source's files into the local state (src/feed/sources/bulk.ts),
 * saying on stderr what each gave and any file left out or not read to
 * its end; moves the state's data_through. Returns the rows' counts,
 * whether a file failed, and the filings of lines that could not be read.
 */
export async function stageBulkFiles(
  db: Db,
  source: BulkSource,
  files: BulkFile[],
  out: { rejects: LinesWriter; warnings: LinesWriter },
  options: Omit<BulkOptions, "onReject" | "onFile" | "onProblem">,
): Promise<{ counts: StageCounts; failed: boolean; tainted: ReadonlyMap<string, string> }> {
  for (const file of files) {
    out.rejects.clear(file.name);
    out.warnings.clear(file.name);
  }
  // A file's staging as it goes (a master unload's takes minutes), then its own line when it ends.
  let staging: { file: string; progress: Progress } | undefined;
  const { counts, failed, tainted } = await stageBulk(db, source, files, {
    ...options,
    onReject: (r) => out.rejects.write(r),
    onProgress: (file, bytes, total, c) => {
      if (staging?.file !== file) {
        staging = { file, progress: new Progress(file) };
        staging.progress.phase("staging", total);
      }
      staging.progress.update(bytes, rowsLine(c));
    },
    onFile: (file, title, c, ms) => {
      staging?.progress.drop();
      staging = undefined;
      console.error(`  ${file} (${title}): ${rowsLine(c)} in ${(ms / 1000).toFixed(1)}s`);
    },
    onProblem: (file, message) => {
      staging?.progress.drop();
      staging = undefined;
      console.error(`  ${file}: ${message}`);
    },
  });
  await advanceThrough(db, source, counts.newest);
  return { counts, failed: failed > 0, tainted };
}
