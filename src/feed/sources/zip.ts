/**
 * Reading a zip archive as offices publish their files in one (Florida's
 * `flrf.zip` holds `FLRF.TXT`), with nothing but the platform: the central
 * directory at the archive's end says where each entry's bytes are, and
 * DecompressionStream("deflate-raw") inflates them as a stream (in workerd
 * and in Node alike). An entry's CRC-32 and size are checked as it is read,
 * so a damaged archive is an error naming the file, never text cut short.
 */
import { FeedFileError } from "../read.ts";

/** A file read by byte ranges: one on disk (scripts/bulkFiles.ts) or in memory (tests). */
export interface BulkFile {
  /** As given (a path), for messages and places. */
  name: string;
  size: number;
  /** Bytes `start` to `end` (exclusive). */
  read(start: number, end: number): Promise<Uint8Array>;
  /** Bytes `start` to `end` (exclusive; default: the whole file) as a stream. */
  stream(start?: number, end?: number): ReadableStream<Uint8Array>;
}

/** One entry of the archive's central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  crc: number;
  compressed: number;
  size: number;
  /** Where its local header starts. */
  offset: number;
}

const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const MAX_COMMENT = 0xffff;

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const u64 = (d: DataView, at: number) => Number(d.getBigUint64(at, true));

/** Whether `file` starts as a zip archive does. */
export async function isZip(file: BulkFile): Promise<boolean> {
  if (file.size < 4) return false;
  return view(await file.read(0, 4)).getUint32(0, true) === LOCAL;
}

/** The entries of the zip archive `file`; a FeedFileError naming the file when it is not one that opens. */
export async function zipEntries(file: BulkFile): Promise<ZipEntry[]> {
  const broken = (why: string) => new FeedFileError(`${file.name}: the zip archive does not open: ${why}`);
  const tailStart = Math.max(0, file.size - (22 + MAX_COMMENT));
  const tail = await file.read(tailStart, file.size);
  const t = view(tail);
  let eocd = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (t.getUint32(i, true) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw broken("no end of central directory (not a zip, or cut short)");
  let count = t.getUint16(eocd + 10, true);
  let size = t.getUint32(eocd + 12, true);
  let offset = t.getUint32(eocd + 16, true);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    // ZIP64: the locator just before the end record names the larger record.
    const at = eocd - 20;
    if (at < 0 || t.getUint32(at, true) !== EOCD64_LOCATOR) throw broken("a ZIP64 archive without its locator");
    const record = view(await file.read(u64(t, at + 8), u64(t, at + 8) + 56));
    if (record.getUint32(0, true) !== EOCD64) throw broken("the ZIP64 end record is not where its locator says");
    count = u64(record, 32);
    size = u64(record, 40);
    offset = u64(record, 48);
  }
  if (offset + size > file.size) throw broken("the central directory lies past the end of the file (cut short?)");
  const directory = await file.read(offset, offset + size);
  const d = view(directory);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > directory.length || d.getUint32(at, true) !== CENTRAL)
      throw broken(`central directory entry ${i + 1}`);
    const nameLength = d.getUint16(at + 28, true);
    const extraLength = d.getUint16(at + 30, true);
    const commentLength = d.getUint16(at + 32, true);
    const flags = d.getUint16(at + 8, true);
    const name = new TextDecoder().decode(directory.subarray(at + 46, at + 46 + nameLength));
    if (flags & 1) throw broken(`${name} is encrypted`);
    const entry: ZipEntry = {
      name,
      method: d.getUint16(at + 10, true),
      crc: d.getUint32(at + 16, true),
      compressed: d.getUint32(at + 20, true),
      size: d.getUint32(at + 24, true),
      offset: d.getUint32(at + 42, true),
    };
    // ZIP64 sizes and offset, in that order, for those the entry marks as too large.
    const extra = directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    const e = view(extra);
    for (let x = 0; x + 4 <= extra.length; x += 4 + e.getUint16(x + 2, true)) {
      if (e.getUint16(x, true) !== 1) continue;
      let y = x + 4;
      for (const key of ["size", "compressed", "offset"] as const) {
        if (entry[key] === 0xffffffff && y + 8 <= extra.length) {
          entry[key] = u64(e, y);
          y += 8;
        }
      }
    }
    entries.push(entry);
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32 of `bytes`, continued from `crc` (0 to start). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = (CRC_TABLE[(c ^ (bytes[i] ?? 0)) & 0xff] ?? 0) ^ (c >>> 8);
  return ~c >>> 0;
}

/** The text of `entry`, inflated and checked against its CRC-32 and size as it streams. */
export async function entryStream(file: BulkFile, entry: ZipEntry): Promise<ReadableStream<Uint8Array>> {
  const broken = (why: string) =>
    new FeedFileError(`${file.name}: the zip archive does not open: ${entry.name}: ${why}`);
  const header = view(await file.read(entry.offset, Math.min(file.size, entry.offset + 30)));
  if (header.byteLength < 30 || header.getUint32(0, true) !== LOCAL)
    throw broken("no local header where the directory says");
  const start = entry.offset + 30 + header.getUint16(26, true) + header.getUint16(28, true);
  if (start + entry.compressed > file.size) throw broken("its data lies past the end of the file (cut short?)");
  if (entry.method !== STORED && entry.method !== DEFLATED) {
    throw broken(`compression method ${entry.method} (only stored and deflated entries are read)`);
  }
  const raw = file.stream(start, start + entry.compressed);
  const text =
    entry.method === STORED
      ? raw
      : raw.pipeThrough(new DecompressionStream("deflate-raw") as ReadableWritablePair<Uint8Array, Uint8Array>);
  let crc = 0;
  let size = 0;
  const check = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      crc = crc32(chunk, crc);
      size += chunk.byteLength;
      controller.enqueue(chunk);
    },
    flush() {
      if (size !== entry.size) throw broken(`${size} bytes inflated where the directory says ${entry.size}`);
      if (crc !== entry.crc) throw broken("its CRC-32 does not match (damaged)");
    },
  });
  const reader = text.pipeThrough(check).getReader();
  // An inflater's own failure (corrupt data) is named as the archive's.
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (err) {
        controller.error(
          err instanceof FeedFileError ? err : broken(`it does not inflate (${(err as Error).message})`),
        );
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
