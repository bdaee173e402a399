/**
 * Offices that publish bulk files and no portal (Texas's fixed-width
 * unloads, Florida's federal lien registrations: docs/sources/). The
 * adapter's reader says which files are read, in what order and as which of
 * its tables; each file (or the one text a zip of it holds) is staged as a
 * portal's rows are (stage.ts), and its filings are then assembled as any
 * register's (assemble.ts).
 *
 * Before a row is written the whole set is checked: a set the reader
 * refuses (Florida's without its filings file) and a zip that does not open
 * stop the load with nothing written. A file not read to its end leaves
 * its rows staged; a load that reads all its files also replaces, for a
 * source whose loads do (Texas), the rows earlier loads staged for every
 * filing it names. A line that cannot be read is a reject, and so is the
 * filing it names in that load (`assembling`): a filing never loads
 * without one of its records.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { D1_MAX_PARAMS, type Db } from "../../db/database.ts";
import { sourceRows } from "../../db/schema.ts";
import { recodedMessage } from "../lines.ts";
import { FeedFileError } from "../read.ts";
import type { RowRead } from "./soda.ts";
import type { Source, SourceTable } from "./source.ts";
import { addCounts, noCounts, type StageCounts, type StageOptions, stageReads } from "./stage.ts";
import { type BulkFile, entryStream, isZip, type ZipEntry, zipEntries } from "./zip.ts";

export type { BulkFile };

/** A file to read, as the reader planned it. */
export interface BulkInput {
  file: BulkFile;
  table: SourceTable;
  /** The office's date the file's name gives (a Florida daily set's), as YYYY-MM-DD. */
  day?: string;
}

/** How an office's bulk files are read. */
interface BulkReader {
  /** Whether a file of a directory given is one of the source's; without it, a directory is not read. */
  accepts?(name: string): boolean;
  /** The files in the order they are read, each with its table; or why the files given are refused. */
  plan(files: BulkFile[]): BulkInput[] | { refused: string };
  /** The rows of a file's text. */
  rows(input: BulkInput, text: ReadableStream<Uint8Array>): AsyncGenerator<RowRead>;
  /** Why a file is left out, found before anything is staged (Florida's events of another length); null to read it. */
  check?(input: BulkInput, open: () => Promise<ReadableStream<Uint8Array>>): Promise<string | null>;
  /** Fields holding the office's dates (YYYY-MM-DD): the newest is the state's data_through. */
  dates: readonly string[];
  /**
   * The filings a line that cannot be read may name, read where a number's
   * positions are (more than one where its length leaves the layout in
   * doubt); none when its text does not say.
   */
  filingsOf(input: BulkInput, raw: string): readonly string[];
}

export interface BulkSource extends Source {
  bulk: BulkReader;
}

export const isBulkSource = (source: Source): source is BulkSource => "bulk" in source;

/** The files given do not make a set the source reads (Florida's without its `flrf`): nothing was written. */
export class FilesRefused extends Error {
  override name = "FilesRefused";
}

/** The files of `names` a reader plans from: refused, or in order. */
export function planFiles(source: BulkSource, files: BulkFile[]): BulkInput[] {
  const plan = source.bulk.plan(files);
  if ("refused" in plan) throw new FilesRefused(plan.refused);
  return plan;
}

const baseName = (path: string) => path.replace(/^.*[\\/]/, "");

/** The entry of a zip to read: its only file, or the one named as the archive is (`flrf.zip`, `FLRF.TXT`). */
function entryOf(file: BulkFile, entries: ZipEntry[]): ZipEntry {
  const files = entries.filter((e) => !e.name.endsWith("/"));
  if (files.length === 1 && files[0]) return files[0];
  const stem = baseName(file.name)
    .replace(/\.zip$/i, "")
    .toLowerCase();
  const named = files.filter(
    (e) =>
      baseName(e.name)
        .toLowerCase()
        .replace(/\.[^.]*$/, "") === stem,
  );
  if (named.length === 1 && named[0]) return named[0];
  throw new FeedFileError(
    `${file.name}: the zip archive holds ${files.length} files (${files.map((e) => e.name).join(", ")}): which one to read is not known`,
  );
}

/** How to open a planned file's text: the file itself, or the entry its zip holds. */
async function opener(input: BulkInput) {
  const { file } = input;
  if (!(await isZip(file))) return { zipped: false, size: file.size, open: async () => file.stream() };
  const entry = entryOf(file, await zipEntries(file));
  return { zipped: true, size: entry.size, open: () => entryStream(file, entry) };
}

/** `text` passed through as it is, `seen.bytes` counting what has passed (a file's progress). */
function counted(text: ReadableStream<Uint8Array>, seen: { bytes: number }): ReadableStream<Uint8Array> {
  return text.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    }),
  );
}

/** Reads a stream to its end (a zip entry's checks run as it is read). */
async function drain(text: ReadableStream<Uint8Array>) {
  const reader = text.getReader();
  for (;;) if ((await reader.read()).done) return;
}

export interface BulkOptions extends Pick<StageOptions, "now" | "onReject" | "maxParams" | "groupSize"> {
  /** After each file is staged: what it holds (its table's title), its counts and how long it took. */
  onFile?(file: string, title: string, counts: StageCounts, ms: number): void;
  /** A file left out, not read to its end, or read in another encoding than UTF-8, and why. */
  onProblem?(file: string, message: string): void;
  /** After each group of a file's rows is written: its bytes read of `total` (its text's, unzipped), and its counts so far. */
  onProgress?(file: string, bytes: number, total: number, counts: StageCounts): void;
}

/**
 * The load's mark on the rows it reads, for a source whose loads replace
 * what they name: short, since every staged row holds it (and the index of
 * `part` with it).
 */
const newRun = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1296).toString(36)}`;

/** What the rows of one file showed as they passed. */
interface Seen {
  rows: number;
  /** Lines that were not UTF-8, read as Windows-1252 (fixedWidth.ts): the first's number, and how many. */
  recoded: { first: number; count: number } | null;
  /** The newest office date among them, none after `latest`. */
  newest: string | null;
  latest: string;
}

/** The rows of `reads` as they pass: counted, their newest office date kept, a bad line's filing marked. */
async function* watched(
  reads: AsyncIterable<RowRead>,
  input: BulkInput,
  bulk: BulkReader,
  seen: Seen,
  tainted: Tainted,
) {
  for await (const read of reads) {
    seen.rows += 1;
    if (read.recoded) {
      seen.recoded ??= { first: read.line, count: 0 };
      seen.recoded.count += 1;
    }
    if ("fields" in read) {
      for (const column of bulk.dates) {
        const day = read.fields[column];
        if (day !== undefined && day <= seen.latest && (seen.newest === null || day > seen.newest)) seen.newest = day;
      }
    } else {
      for (const filing of bulk.filingsOf(input, read.raw)) {
        if (!tainted.has(filing)) tainted.set(filing, `${input.file.name} line ${read.line}: ${read.error}`);
      }
    }
    yield read;
  }
}

/** Filings a line of the load could not be read for, each with the first such line and why. */
type Tainted = Map<string, string>;

/**
 * `source` as it assembles the filings of a load: a filing one of whose
 * lines could not be read is a reject as a whole (the record it would have
 * had is missing), so it keeps what was stored before rather than loading
 * without that record.
 */
export function assembling(source: Source, tainted: ReadonlyMap<string, string>): Source {
  if (tainted.size === 0) return source;
  return {
    ...source,
    assemble(filing, rows, unrecognised) {
      const bad = tainted.get(filing);
      if (bad === undefined) return source.assemble(filing, rows, unrecognised);
      const placed = [...rows].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
      const [first] = placed;
      if (!first) return [];
      return [
        {
          entry: {},
          rows: placed,
          from: { filing: first, debtors: [], secured: [], amendments: [] },
          notes: [],
          reject: `filing ${filing}: not loaded, since a record of it could not be read (${bad}); what was stored before is kept`,
        },
      ];
    },
  };
}

/**
 * Stages the files of a bulk source: planned (a refusal is a FilesRefused),
 * every zip opened and checked and every file the reader leaves out said
 * (a zip that does not open is a FeedFileError), all before a row is
 * written; then each file in order. A file that breaks part-way is said
 * (`onProblem`) and the others are read. Returns the rows' counts (`newest`:
 * the newest office date, for data_through), how many files were not read
 * to their end, and the filings of lines that could not be read (for
 * `assembling`).
 */
export async function stageBulk(
  db: Db,
  source: BulkSource,
  files: BulkFile[],
  options: BulkOptions = {},
): Promise<{ counts: StageCounts; failed: number; tainted: Tainted }> {
  const { bulk } = source;
  const tainted: Tainted = new Map();
  const inputs = planFiles(source, files);
  const opened: { input: BulkInput; size: number; open: () => Promise<ReadableStream<Uint8Array>> }[] = [];
  for (const input of inputs) {
    const { zipped, size, open } = await opener(input);
    // Read through once: a damaged archive stops the load before anything is written.
    if (zipped) await drain(await open());
    const why = bulk.check ? await bulk.check(input, open) : null;
    if (why !== null) options.onProblem?.(input.file.name, `${why}: left out`);
    else opened.push({ input, size, open });
  }
  const now = options.now ?? new Date();
  const latest = new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);
  const run = source.replaces ? newRun() : null;
  let counts = noCounts();
  let failed = 0;
  let partial = false;
  for (const { input, size, open } of opened) {
    const started = Date.now();
    const read = { bytes: 0 };
    const table: SourceTable =
      run === null ? input.table : { ...input.table, key: (row) => marked(input.table.key(row), run) };
    const seen: Seen = {
      rows: 0,
      recoded: null,
      newest: input.day !== undefined && input.day <= latest ? input.day : null,
      latest,
    };
    try {
      const reads = watched(bulk.rows(input, counted(await open(), read)), input, bulk, seen, tainted);
      const staged = await stageReads(db, source, reads, {
        file: input.file.name,
        table,
        now,
        onReject: options.onReject,
        onProgress: (c) => options.onProgress?.(input.file.name, read.bytes, size, c),
        maxParams: options.maxParams,
        groupSize: options.groupSize,
      });
      const fileCounts = { ...staged, newest: seen.newest };
      counts = addCounts(counts, fileCounts);
      if (seen.recoded) options.onProblem?.(input.file.name, recodedMessage(seen.recoded));
      options.onFile?.(input.file.name, input.table.title, fileCounts, Date.now() - started);
    } catch (err) {
      if (!(err instanceof FeedFileError)) throw err;
      failed += 1;
      // A file that gave rows before it broke may hold only part of a filing's records.
      if (seen.rows > 0) partial = true;
      options.onProblem?.(input.file.name, `not fully read: ${err.message}`);
    }
  }
  if (run !== null && !partial) await supersede(db, source, run, options.maxParams ?? D1_MAX_PARAMS);
  return { counts, failed, tainted };
}

/** A row's key with the load's mark as its part. */
function marked(key: ReturnType<SourceTable["key"]>, run: string): ReturnType<SourceTable["key"]> {
  return "error" in key ? key : { ...key, part: run };
}

function chunk<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Deletes the rows earlier loads staged for the filings the load `run`
 * read, which it did not read again (a debtor a daily update no longer
 * lists, a collateral line gone), and marks those filings to be assembled
 * again. Returns how many filings lost rows.
 */
async function supersede(db: Db, source: Source, run: string, maxParams: number): Promise<number> {
  // Without DISTINCT: the list is read from the index of `part` (the load's rows), not from every row of the source.
  const named = db
    .select({ filing: sourceRows.filing })
    .from(sourceRows)
    .where(and(eq(sourceRows.source, source.id), eq(sourceRows.part, run)));
  const gone = await db
    .delete(sourceRows)
    .where(
      and(eq(sourceRows.source, source.id), sql`${sourceRows.part} is not ${run}`, inArray(sourceRows.filing, named)),
    )
    .returning({ filing: sourceRows.filing });
  const filings = [...new Set(gone.flatMap((g) => (g.filing === null ? [] : [g.filing])))];
  const statements = chunk(filings, maxParams - 5).map((part) =>
    db
      .update(sourceRows)
      .set({ pending: true })
      .where(and(eq(sourceRows.source, source.id), eq(sourceRows.part, run), inArray(sourceRows.filing, part))),
  );
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
  return filings.length;
}
