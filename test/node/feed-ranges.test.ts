/**
 * Reading a feed in byte ranges, as the platform's load steps do
 * (src/platform/): each range starts at the resume point the last one
 * returned (through JSON, as a step's checkpoint travels) and stops at the
 * first record boundary at or past its end. Whatever the range size, the
 * ranges together read exactly what one read of the whole file does: every
 * record once, whole, with the file's own line numbers, and the same error
 * where a file breaks.
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { joinBytes } from "../../src/feed/bytes.ts";
import { type FeedItem, type ReadOptions, type Resume, readFeed } from "../../src/feed/read.ts";

const root = resolve(import.meta.dirname, "../..");
const NOW = new Date("2026-06-01T00:00:00Z");

/** `bytes` as a stream of `size`-byte chunks, so characters and tags are cut everywhere. */
function chunked(bytes: Uint8Array, size = 7): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

interface Outcome {
  items: FeedItem[];
  error: string | null;
}

async function whole(file: string, bytes: Uint8Array, chunk = 7): Promise<Outcome> {
  const items: FeedItem[] = [];
  try {
    for await (const item of readFeed(file, chunked(bytes, chunk), { now: NOW })) items.push(item);
  } catch (err) {
    return { items, error: (err as Error).message };
  }
  return { items, error: null };
}

async function inRanges(
  file: string,
  bytes: Uint8Array,
  size: number,
  chunk = 7,
): Promise<Outcome & { ranges: number }> {
  const items: FeedItem[] = [];
  let from: Resume | undefined;
  let ranges = 0;
  try {
    for (;;) {
      const start = from?.byte ?? 0;
      const options: ReadOptions = { now: NOW, from, until: { byte: start + size } };
      const read = readFeed(file, chunked(bytes.subarray(start), chunk), options);
      ranges += 1;
      let next = await read.next();
      while (!next.done) {
        items.push(next.value);
        next = await read.next();
      }
      if (next.value === null) break;
      expect(next.value.byte).toBeGreaterThan(start);
      from = JSON.parse(JSON.stringify(next.value)) as Resume;
    }
  } catch (err) {
    return { items, error: (err as Error).message, ranges };
  }
  return { items, error: null, ranges };
}

const fixture = (name: string) => new Uint8Array(readFileSync(join(root, "test/fixtures", name)));
const utf8 = (text: string) => new TextEncoder().encode(text);
/** Text whose characters are all under U+0100, as windows-1252 bytes (Latin-1 there). */
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
/** `text` as UTF-16 after a byte-order mark, in either byte order. */
function utf16(text: string, littleEndian: boolean): Uint8Array {
  const view = new DataView(new ArrayBuffer(text.length * 2 + 2));
  view.setUint16(0, 0xfeff, littleEndian);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2 + 2, text.charCodeAt(i), littleEndian);
  return new Uint8Array(view.buffer);
}

function officeXml(encoding: string, records: number): string {
  const detail = (i: number) => `
      <FileDetail>
        <TransType Type="Initial"/>
        <FileNumber>R${i}</FileNumber>
        <FileDate>20250305 1420</FileDate>
        <FilingOffice>CO</FilingOffice>
        <Debtors><DebtorName><Names>
          <OrganizationName>MÜLLER &amp; FILS ${i} SÀRL</OrganizationName>
          <City>DENVER</City><State>CO</State><PostalCode>80202</PostalCode>
        </Names></DebtorName></Debtors>
        <Secured><Names><OrganizationName>BANQUE ${i}</OrganizationName></Names></Secured>
        <Collateral><ColText><![CDATA[Équipement <tout> n° ${i}]]></ColText></Collateral>
      </FileDetail>`;
  return `<?xml version="1.0" encoding="${encoding}"?>
<ucc:Document xmlns:ucc="urn:iaca:ucc" note="a &quot;quoted&quot;&#10;attribute">
  <ucc:Record>
    <ucc:Results>${Array.from({ length: records }, (_, i) => detail(i)).join("")}
    </ucc:Results>
  </ucc:Record>
</ucc:Document>
`;
}

const CSV_HEADER =
  "filing_state,filing_number,filing_date,filing_kind,role,party_type,name,category,street1,street2,city,state,zip,country,amendment_number,amendment_date,amendment_description";
const row = (number: string, role: string, name: string, date = "") =>
  `IL,${number},${date},,${role},Organization,${name},,1 Main St,,Springfield,IL,62701,US,,,`;

const FILES: [string, Uint8Array][] = [
  ["feed.ndjson", fixture("feed.ndjson")],
  ["mixed.ndjson", fixture("mixed.ndjson")],
  ["office.ndjson", fixture("office.ndjson")],
  ["feed.csv", fixture("feed.csv")],
  ["office.csv", fixture("office.csv")],
  ["office.xml", fixture("office.xml")],
  ["office-later.xml", fixture("office-later.xml")],
  [
    "bom-crlf.ndjson",
    utf8(
      `\uFEFF${new TextDecoder().decode(fixture("feed.ndjson")).replaceAll("\n", "\r\n\r\n")}not json\r\n{"no":"newline at the end"}`,
    ),
  ],
  [
    "broken.csv",
    utf8(
      [
        CSV_HEADER,
        row("C-1", "debtor", "First", "2025-01-15"),
        row("C-1", "secured", "Bank"),
        // A row whose filing cannot be told spoils the filings on both sides of it.
        row("C-2", "debtor", '"Lost" Row', "2025-01-15").replace("IL,C-2", '"IL,C-2'),
        row("C-3", "debtor", "Third", "2025-01-15"),
        row("C-3", "secured", '"Bank, ""Quoted""\nacross lines"'),
        row("C-4", "amendment", "").replace(",,,", ",C-4-A,2025-02-01,Continuation"),
        row("C-5", "debtor", '"never closed', "2025-01-15"),
        row("C-6", "debtor", "Sixth", "2025-01-15"),
        "",
      ].join("\n"),
    ),
  ],
  // Lines that are not UTF-8 read as windows-1252, as a whole read does; a multi-line CSV record among them.
  ["latin.ndjson", latin1(new TextDecoder().decode(fixture("office.ndjson")))],
  ["latin.csv", latin1(new TextDecoder().decode(fixture("office.csv")).replaceAll("Cascadia Crab", "Cascadía Crab"))],
  ["utf8.xml", utf8(`\uFEFF${officeXml("UTF-8", 12)}`)],
  ["latin.xml", latin1(officeXml("windows-1252", 12))],
];

describe("reading a feed in ranges", () => {
  for (const [file, bytes] of FILES) {
    it(`reads ${file} in ranges of 1, 57, 400 and 4,096 bytes exactly as in one read`, async () => {
      const expected = await whole(file, bytes);
      expect(expected.error).toBeNull();
      expect(expected.items.length).toBeGreaterThan(0);
      // Decoded in the declared encoding (windows-1252 too), not replaced.
      expect(JSON.stringify(expected.items)).not.toContain("\uFFFD");
      for (const size of [1, 57, 400, 4096]) {
        const ranges = await inRanges(file, bytes, size);
        expect(ranges.items, `ranges of ${size} bytes`).toEqual(expected.items);
        expect(ranges.error).toBeNull();
        if (size === 1) expect(ranges.ranges).toBeGreaterThanOrEqual(expected.items.length);
      }
    });
  }

  it("stops a truncated XML file in its last range with the whole read's message, the same records before it", async () => {
    const text = officeXml("UTF-8", 6);
    const bytes = utf8(text.slice(0, text.lastIndexOf("<FileDetail>") + 40));
    const expected = await whole("cut.xml", bytes);
    expect(expected.error).toMatch(
      /the file ends inside the <FileDetail> begun at line \d+ \(line \d+, column \d+, byte/,
    );
    for (const size of [1, 300]) expect(await inRanges("cut.xml", bytes, size)).toMatchObject(expected);
  });

  it("ends where a well-formed XML file breaks after a record, naming the same line, column and byte", async () => {
    const text = officeXml("UTF-8", 4).replace("</ucc:Results>", "</ucc:Results></Unopened>");
    const expected = await whole("bad.xml", utf8(text));
    expect(expected.error).toMatch(/^not well-formed XML at line \d+, column \d+, byte [\d,]+: /);
    for (const size of [1, 300]) expect(await inRanges("bad.xml", utf8(text), size)).toMatchObject(expected);
  });

  it("reads no record past the place an XML file breaks, even in the same chunk", async () => {
    let closed = 0;
    const text = officeXml("UTF-8", 5).replace(/<\/FileDetail>/g, (end) => (++closed === 2 ? `${end}</Oops>` : end));
    const bytes = utf8(text);
    const expected = await whole("oops.xml", bytes, bytes.length);
    expect(expected.error).toMatch(/^not well-formed XML at line \d+, column \d+, byte [\d,]+: Unexpected close tag/);
    expect(expected.items).toHaveLength(2);
    for (const size of [1, 300]) expect(await inRanges("oops.xml", bytes, size)).toMatchObject(expected);
  });

  it("reads a line of a UTF-8 file that is not UTF-8 as windows-1252, says so on its record, and ends no range after it in its chunk", async () => {
    // One line written as Latin-1 (Ü and À a byte each) in a UTF-8 file.
    const lines = officeXml("UTF-8", 5).split(/(?<=\n)/);
    const bytes = joinBytes(lines.map((line) => (line.includes("FILS 2") ? latin1(line) : utf8(line))));
    // In one chunk, every record end after that line is in the same decoded text.
    const expected = await whole("bad-byte.xml", bytes, bytes.length);
    expect(JSON.stringify(expected.items)).not.toContain("\uFFFD");
    const names = expected.items.map((item) => ("record" in item ? item.record.debtors[0]?.name : undefined));
    expect(names).toEqual([0, 1, 2, 3, 4].map((i) => `MÜLLER & FILS ${i} SÀRL`));
    // Only record 3 holds that line (line 35), and only its warning says so.
    const told = expected.items.map((item) => "warning" in item && /not UTF-8/.test(item.warning?.reason ?? ""));
    expect(told).toEqual([false, false, true, false, false]);
    expect(JSON.stringify(expected.items[2])).toContain(
      "; line 35 is not UTF-8: read as Windows-1252 (Latin-1), one character a byte; check a name of such a line reads right",
    );
    // Cut every 7 bytes, within the line and its characters, it reads the same.
    expect(await whole("bad-byte.xml", bytes)).toEqual(expected);
    const ranges = await inRanges("bad-byte.xml", bytes, 1, bytes.length);
    expect(ranges.items).toEqual(expected.items);
    // Ranges end after records 1 and 2; records 3 to 5 come in the third.
    expect(ranges.ranges).toBe(3);
  });

  it("reads a Shift_JIS file, whose characters cannot be cut at a byte, in one range", async () => {
    const bytes = utf8(officeXml("Shift_JIS", 3).replace(/[^ -~\n]/g, "?"));
    const expected = await whole("sjis.xml", bytes);
    expect(expected.items).toHaveLength(3);
    expect(await inRanges("sjis.xml", bytes, 1)).toEqual({ ...expected, ranges: 1 });
  });

  it("reads a UTF-16 file by its byte-order mark, either byte order, cut at any byte, in one range", async () => {
    const expected = await whole("latin.xml", latin1(officeXml("windows-1252", 3)));
    for (const littleEndian of [true, false]) {
      // Its declaration, NULs between the letters, is not read; the mark is.
      const bytes = utf16(officeXml("UTF-16", 3), littleEndian);
      expect(await whole("latin.xml", bytes)).toEqual(expected);
      expect(await inRanges("latin.xml", bytes, 1)).toEqual({ ...expected, ranges: 1 });
    }
  });

  it("reads each run of a CSV filing's rows alike, within a range or across ranges, each carrying its run", async () => {
    const text = [
      CSV_HEADER,
      row("E-1", "debtor", "First", "2025-01-15"),
      row("E-2", "debtor", "Second", "2025-01-15"),
      row("E-1", "debtor", "First Again", "2025-01-15"),
    ].join("\n");
    // The reader keeps nothing from one run to the next: the importer reads E-1's two runs together.
    const runs = (o: Outcome) => o.items.map((i) => (i.csv && "rows" in i.csv ? i.csv.key.number : "none"));
    for (const bytes of [4096, 1]) {
      const read = await inRanges("apart.csv", utf8(text), bytes);
      expect(read.items.map((i) => ("reject" in i ? i.reject.reason : "loaded"))).toEqual([
        "loaded",
        "loaded",
        "loaded",
      ]);
      expect(runs(read)).toEqual(["E-1", "E-2", "E-1"]);
    }
  });
});
