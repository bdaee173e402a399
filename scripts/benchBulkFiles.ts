/**
 * Generated bulk files of the offices that publish them, for
 * `npm run bench:sources` (scripts/benchSources.ts): a Texas master unload
 * of N filings in the 2013 layout (about six records a filing: master, its
 * own UCC record, one or two debtors, a secured party, one or two
 * collateral lines, sometimes an amendment), and a Florida quarterly set of
 * N liens, zipped as the office posts it (`flrf.zip` holding `FLRF.TXT`,
 * ...; a fifth of the liens with an event, in the published layout).
 * Written a line at a time; the same seed gives the same files.
 */
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { crc32, createDeflateRaw } from "node:zlib";
import { flLine } from "../src/feed/sources/flLayout.ts";
import { txLine } from "../src/feed/sources/txLayout.ts";

function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const LAST = ["SMITH", "JOHNSON", "RIVERA", "NGUYEN", "GARCIA", "OBRIEN", "KOWALSKI", "PATEL", "MURPHY", "CHEN"];
const FIRST = ["MARIA", "JOHN", "AN", "KATHLEEN", "DAVID", "ROSA", "PAUL", "LEAH", "THOMAS", "INGRID"];
const WORDS = ["HARBOR", "ELM", "SUMMIT", "RIVER", "GRANITE", "MAPLE", "PIONEER", "CEDAR", "ATLAS", "BEACON"];
const LENDERS = ["FROST BANK", "WELLS FARGO BANK, N.A.", "JOHN DEERE FINANCIAL", "ALLY BANK", "TEXAS CAPITAL BANK"];
const CITIES = [
  ["HOUSTON", "77002"],
  ["DALLAS", "75201"],
  ["AUSTIN", "78701"],
  ["MIAMI", "33130"],
  ["TAMPA", "33602"],
] as const;
const COLLATERAL =
  "ALL INVENTORY, EQUIPMENT, ACCOUNTS, CHATTEL PAPER AND GENERAL INTANGIBLES, NOW OWNED OR HEREAFTER ACQUIRED, AND PROCEEDS.";

const pick = <T>(r: () => number, list: readonly T[]) => list[Math.floor(r() * list.length)] as T;
/** A day from `from` to `to` (years) as YYYYMMDD. */
const day = (r: () => number, from: number, to: number) =>
  new Date(Date.UTC(from, 0, 1) + Math.floor(r() * (to - from) * 365) * 86_400_000)
    .toISOString()
    .slice(0, 10)
    .replaceAll("-", "");
/** YYYYMMDD `years` later (the 29th of February as the 28th). */
const plusYears = (d: string, years: number) =>
  `${Number(d.slice(0, 4)) + years}${d.slice(4) === "0229" ? "0228" : d.slice(4)}`;
const mdy = (ymd: string) => `${ymd.slice(4, 8)}${ymd.slice(0, 4)}`;

/** Writes `lines` to `path`, each ended by CRLF; returns how many. */
async function writeLines(path: string, lines: Iterable<string>): Promise<number> {
  const out = createWriteStream(path);
  let n = 0;
  let buffer: string[] = [];
  for (const line of lines) {
    buffer.push(line);
    n += 1;
    if (buffer.length >= 2000) {
      if (!out.write(`${buffer.join("\r\n")}\r\n`)) await once(out, "drain");
      buffer = [];
    }
  }
  if (buffer.length > 0) out.write(`${buffer.join("\r\n")}\r\n`);
  out.end();
  await once(out, "finish");
  return n;
}

/** Texas's master unload of `filings` filings, as one file; returns its records (trailer aside). */
export async function texasMaster(dir: string, filings: number): Promise<{ path: string; records: number }> {
  const r = random(11);
  function* lines(): Generator<string> {
    for (let i = 0; i < filings; i++) {
      const filing = String(100_000_000_000 + i);
      const line = (code: string, values: Record<string, string>) => txLine(2013, { code, filing, ...values });
      const filed = day(r, 2016, 2026);
      const federal = r() < 0.08;
      yield line("1", { type: federal ? "F" : "", status: "A", expires: plusYears(filed, federal ? 10 : 5) });
      yield line("6", { record: String(1_000_000_000 + i), amendment: "MR", filed, time: "0930", entered: filed });
      const [city, zip] = pick(r, CITIES);
      const address = { street: `${i % 900} MAIN ST`, city, state: "TX", zip, country: "USA" };
      for (let d = r() < 0.3 ? 2 : 1; d > 0; d--) {
        if (r() < 0.35) yield line("3", { last: pick(r, LAST), first: pick(r, FIRST), middle: "A", ...address });
        else yield line("2", { name: `${pick(r, WORDS)} ${pick(r, WORDS)} ${i} LLC`, ...address });
      }
      yield line("4", { name: federal ? "INTERNAL REVENUE SERVICE" : pick(r, LENDERS), ...address });
      yield line("7", { seq: "000001", text: COLLATERAL.slice(0, 80) });
      if (r() < 0.7) yield line("7", { seq: "000002", text: COLLATERAL.slice(80) });
      if (r() < 0.3) {
        const type = pick(r, ["C", "AM", "T"]);
        yield line("6", { record: String(2_000_000_000 + i), amendment: type, filed: day(r, 2026, 2026.8) });
      }
    }
  }
  const path = join(dir, "tx-master.txt");
  const records = await writeLines(
    path,
    (function* () {
      yield* lines();
      yield `9${"0".repeat(9)}`.padEnd(506, " ");
    })(),
  );
  return { path, records: records - 1 };
}

/** `text`'s lines in a zip holding one deflated entry (sizes in a data descriptor, as streaming archivers write). */
async function writeZip(path: string, entry: string, lines: Iterable<string>): Promise<number> {
  const out = createWriteStream(path);
  const name = Buffer.from(entry);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(0x08, 6);
  local.writeUInt16LE(8, 8);
  local.writeUInt16LE(name.length, 26);
  out.write(local);
  out.write(name);
  const deflate = createDeflateRaw();
  let compressed = 0;
  deflate.on("data", (chunk: Buffer) => {
    compressed += chunk.length;
    out.write(chunk);
  });
  let crc = 0;
  let size = 0;
  let n = 0;
  let buffer: string[] = [];
  const flush = async () => {
    const bytes = Buffer.from(`${buffer.join("\r\n")}\r\n`);
    buffer = [];
    crc = crc32(bytes, crc);
    size += bytes.length;
    if (!deflate.write(bytes)) await once(deflate, "drain");
  };
  for (const line of lines) {
    buffer.push(line);
    n += 1;
    if (buffer.length >= 2000) await flush();
  }
  if (buffer.length > 0) await flush();
  deflate.end();
  await once(deflate, "end");
  const descriptor = Buffer.alloc(16);
  descriptor.writeUInt32LE(0x08074b50, 0);
  descriptor.writeUInt32LE(crc >>> 0, 4);
  descriptor.writeUInt32LE(compressed, 8);
  descriptor.writeUInt32LE(size, 12);
  out.write(descriptor);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(0x08, 8);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(crc >>> 0, 16);
  central.writeUInt32LE(compressed, 20);
  central.writeUInt32LE(size, 24);
  central.writeUInt16LE(name.length, 28);
  const centralAt = 30 + name.length + compressed + 16;
  out.write(central);
  out.write(name);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(46 + name.length, 12);
  end.writeUInt32LE(centralAt, 16);
  out.write(end);
  out.end();
  await once(out, "finish");
  return n;
}

/** Florida's quarterly set of `liens` liens, zipped; returns the four paths and their records. */
export async function floridaQuarterly(dir: string, liens: number): Promise<{ paths: string[]; records: number }> {
  const r = random(12);
  const number = (i: number) => `${String(10 + (i % 16)).padStart(2, "0")}FLR${String(i).padStart(7, "0")}`;
  const status = () => {
    const x = r();
    return x < 0.75 ? "A" : x < 0.9 ? "L" : "T";
  };
  function* filings(): Generator<string> {
    const s = random(13);
    for (let i = 0; i < liens; i++) {
      // Filed before any event or cancellation of the set (2024 on).
      const filed = day(s, 2010, 2024);
      const state = status();
      yield flLine("flrf", {
        document: number(i),
        filed: mdy(filed),
        pages: "00001",
        total_pages: "00001",
        status: state,
        type: "F",
        assessed: mdy(filed),
        cancelled: state === "T" ? mdy(day(s, 2024, 2026)) : "00000000",
        expires: mdy(plusYears(filed, 10)),
        utility: "N",
        events: "00000",
        debtors_ever: "00001",
        secured_ever: "00001",
        debtors: "00001",
        secured: "00001",
      });
    }
  }
  const party = (kind: "flrd" | "flrs", i: number, seq: number, name: string, format: string) => {
    const [city, zip] = pick(r, CITIES);
    return flLine(kind, {
      type: "F",
      document: number(i),
      name,
      format,
      street1: `${i % 700} OCEAN DR`,
      city,
      state: "FL",
      zip,
      country: "US",
      seq: String(seq).padStart(5, "0"),
      relation: "C",
      original: "Y",
      status: "A",
    });
  };
  function* debtors(): Generator<string> {
    for (let i = 0; i < liens; i++) {
      for (let d = 1; d <= (r() < 0.3 ? 2 : 1); d++) {
        yield r() < 0.5
          ? party("flrd", i, d, `${pick(r, FIRST)} ${pick(r, LAST)}`, "P")
          : party("flrd", i, d, `${pick(r, WORDS)} ${pick(r, WORDS)} ${i} INC`, "C");
      }
    }
  }
  function* secured(): Generator<string> {
    for (let i = 0; i < liens; i++) yield party("flrs", i, 1, "INTERNAL REVENUE SERVICE", "C");
  }
  function* events(): Generator<string> {
    for (let i = 0; i < liens; i += 5) {
      yield flLine("flre", {
        event: `26FLR${String(i).padStart(7, "0")}`,
        document: number(i),
        actions: "00001",
        event_seq: "00001",
        pages: "00001",
        date: mdy(day(r, 2025, 2026)),
        action_seq: "00001",
        action: "RNC",
        description: "NOTICE OF REFILING",
        party: "D",
      });
    }
  }
  const paths: string[] = [];
  let records = 0;
  for (const [kind, lines] of [
    ["flrf", filings()],
    ["flrd", debtors()],
    ["flrs", secured()],
    ["flre", events()],
  ] as const) {
    const path = join(dir, `${kind}.zip`);
    records += await writeZip(path, `${kind.toUpperCase()}.TXT`, lines);
    paths.push(path);
  }
  return { paths, records };
}
