/**
 * Loading an office's bulk files in-process, as `npm run import -- --source
 * tx|fl-flr` does (scripts/bulkFiles.ts), from files held in memory: staged
 * (src/feed/sources/bulk.ts), assembled and loaded, the load recorded. And
 * the reads the Texas and Florida tests share.
 */
import { expect } from "vitest";
import { shardDb } from "../src/db/shards.ts";
import { emptySummary, sumOf } from "../src/feed/import.ts";
import type { Reject, Warning } from "../src/feed/read.ts";
import { advanceThrough, assembleStep, finishLoad } from "../src/feed/sources/assemble.ts";
import { assembling, type BulkFile, type BulkSource, stageBulk } from "../src/feed/sources/bulk.ts";
import { Unrecognised } from "../src/feed/sources/codes.ts";
import { crc32 } from "../src/feed/sources/zip.ts";
import type { Body } from "./bodies.ts";
import { fresh, readCount } from "./feeds.ts";
import { get, getJson, shardDatabases, testAddress } from "./helpers.ts";

export const db = shardDb(shardDatabases);

const bytesOf = (body: string | Uint8Array) => (typeof body === "string" ? new TextEncoder().encode(body) : body);

/** A file held in memory, read by ranges as one on disk is. */
export function memoryFile(name: string, body: string | Uint8Array): BulkFile {
  const bytes = bytesOf(body);
  return {
    name,
    size: bytes.length,
    read: async (start, end) => bytes.slice(start, end),
    stream: (start = 0, end = bytes.length) => new Response(bytes.slice(start, end)).body as ReadableStream<Uint8Array>,
  };
}

/** A zip archive holding `entry` deflated, as an office publishes one (a local header, the data, the central directory). */
export async function zipOf(entry: string, body: string | Uint8Array): Promise<Uint8Array> {
  const text = bytesOf(body);
  const deflated = new Uint8Array(
    await new Response(
      new Response(text).body?.pipeThrough(
        new CompressionStream("deflate-raw") as ReadableWritablePair<Uint8Array, Uint8Array>,
      ),
    ).arrayBuffer(),
  );
  const name = new TextEncoder().encode(entry);
  const crc = crc32(text);
  const local = new Uint8Array(30 + name.length);
  const l = new DataView(local.buffer);
  l.setUint32(0, 0x04034b50, true);
  l.setUint16(4, 20, true);
  l.setUint16(8, 8, true);
  l.setUint32(14, crc, true);
  l.setUint32(18, deflated.length, true);
  l.setUint32(22, text.length, true);
  l.setUint16(26, name.length, true);
  local.set(name, 30);
  const central = new Uint8Array(46 + name.length);
  const c = new DataView(central.buffer);
  c.setUint32(0, 0x02014b50, true);
  c.setUint16(4, 20, true);
  c.setUint16(6, 20, true);
  c.setUint16(10, 8, true);
  c.setUint32(16, crc, true);
  c.setUint32(20, deflated.length, true);
  c.setUint32(24, text.length, true);
  c.setUint16(28, name.length, true);
  central.set(name, 46);
  const end = new Uint8Array(22);
  const e = new DataView(end.buffer);
  e.setUint32(0, 0x06054b50, true);
  e.setUint16(8, 1, true);
  e.setUint16(10, 1, true);
  e.setUint32(12, central.length, true);
  e.setUint32(16, local.length + deflated.length, true);
  const out = new Uint8Array(local.length + deflated.length + central.length + end.length);
  let at = 0;
  for (const part of [local, deflated, central, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Stages `files` of `source`, assembles and loads what changed, and records the load. */
export async function loadBulk(source: BulkSource, files: BulkFile[]) {
  const rejects: Reject[] = [];
  const warnings: Warning[] = [];
  const problems: string[] = [];
  const unrecognised = new Unrecognised();
  const staged = await stageBulk(db, source, files, {
    onReject: (r) => void rejects.push(r),
    onProblem: (file, message) => void problems.push(`${file}: ${message}`),
  });
  await advanceThrough(db, source, staged.counts.newest);
  let summary = emptySummary();
  for (let after = ""; ; ) {
    const step = await assembleStep(shardDatabases, assembling(source, staged.tainted), after, {
      unrecognised,
      onReject: (r) => void rejects.push(r),
      onWarning: (w) => void warnings.push(w),
    });
    if (step.last === null) break;
    after = step.last;
    summary = sumOf(summary, step.summary);
  }
  await finishLoad(shardDatabases, source, `test ${source.id}`, summary, new Date());
  return {
    rows: staged.counts,
    failed: staged.failed,
    summary,
    rejects,
    warnings,
    problems,
    unrecognised: unrecognised.toJSON(),
  };
}

/** The public lookup's filing, which the test expects to be there. */
export async function lookup(number: string, state: string) {
  const res = await get(fresh(`/filings?initial_financing_number=${encodeURIComponent(number)}&state=${state}`), null, {
    headers: { "cf-connecting-ip": testAddress(readCount()) },
  });
  expect(res.status).toBe(200);
  const [filing] = (await res.json<Body<"/filings">>()).ucc_liens;
  if (!filing) throw new Error(`no filing ${state} ${number}`);
  return filing;
}

/** The filings `/debtors/search` finds by `name` in `state`. */
export const numbersOf = (name: string, state: string) =>
  getJson(fresh(`/debtors/search?name=${encodeURIComponent(name)}&state=${state}`) as "/debtors/search").then((b) =>
    b.ucc_liens.map((l) => l.initial_financing_number),
  );

/** The change feed of `state`: each change's type and filing number, oldest first. */
export const changesOf = (state: string) =>
  getJson(fresh(`/filings/changes?state=${state}&limit=100`) as "/filings/changes").then((b) =>
    b.changes.map((c) => [c.type, c.initial_financing_number]),
  );

/** The lien report of `name` in `state`: its summary and its filings' numbers. */
export const reportOf = (name: string, state: string) =>
  getJson(fresh(`/debtors/report?name=${encodeURIComponent(name)}&state=${state}`) as "/debtors/report").then((b) => ({
    summary: b.summary,
    numbers: b.filings.map((f) => f.initial_financing_number),
    through: b.report.states.find((s) => s.state === state)?.records_through,
  }));

/** The state's line of `/states`. */
export const stateOf = (state: string) =>
  getJson(fresh("/states") as "/states").then((b) => b.states.find((s) => s.state === state));
