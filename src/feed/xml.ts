/**
 * IACA-style XML bulk files: one `<FileDetail>` per initial filing or
 * amendment, wherever it sits in the document (`Record/Results/FileDetail`
 * in the published bulk layouts). Each is read into the feed's lien shape
 * (schema.ts), so it is validated and normalized like an NDJSON line.
 *
 * The file streams through sax (a maintained, strict, dependency-free
 * streaming parser): only the FileDetail being read is held, as a small
 * tree, so memory stays flat whatever the file's size. The encoding comes
 * from a byte-order mark (UTF-8, UTF-16) or else the XML declaration (UTF-8
 * by default; bulk files are often windows-1252). A file that is not
 * well-formed, or ends early, stops with a FeedFileError naming the line,
 * column and byte; the records before it have been read.
 *
 * Element values are read from the element's text or, when it has none,
 * from its attribute (`<TransType Type="Initial"/>`,
 * `<AltFilingType AltType="StateLien"/>`): offices publish both forms.
 * Element names are matched without case or namespace prefix.
 */
/// <reference path="./sax.d.ts" />
import sax, { type Tag } from "sax";
import { isStateCode } from "../domain/states.ts";
import { joinBytes } from "./bytes.ts";
import { FeedFileError } from "./csv.ts";

/** One FileDetail: its place in the file, its text, and the lien-shaped object it reads as. */
export interface XmlRecord {
  line: number;
  endLine: number;
  raw: string;
  lien: Record<string, unknown>;
  /** Where reading can start again after it (none when its end's byte is not known exactly). */
  resume?: XmlResume;
  /** The file's `ThruDate` read before the record (the office's as-of date), as written. */
  thruDate?: string;
  /** Its lines that were not UTF-8 in a UTF-8 file, read as windows-1252, by number. */
  recoded?: number[];
}

/**
 * What reading an XML file needs to start again just after a FileDetail:
 * the byte and line there, the document's encoding (declared only at its
 * start), the column (for messages) and the start tags of the elements
 * open around it (the root, `Record`, `Results`), which the parser reads
 * first so that it resumes inside them; and the file's ThruDate, if one
 * came before.
 */
export interface XmlResume {
  byte: number;
  line: number;
  /** `thruDate`: the office's as-of date read before that point, which the records after it still carry. */
  xml: { encoding: string; column: number; open: string[]; thruDate?: string };
}

interface Node {
  name: string;
  attributes: Record<string, string>;
  children: Node[];
  text: string;
}

/** FileDetail text beyond this many characters is not one record but a broken file. */
const MAX_RECORD_CHARS = 16 * 1024 * 1024;
const LF = 0x0a;
const RECORD = "filedetail";

const local = (name: string) => name.slice(name.indexOf(":") + 1).toLowerCase();

const children = (node: Node | undefined, name: string) => node?.children.filter((c) => c.name === name) ?? [];
const child = (node: Node | undefined, name: string) => node?.children.find((c) => c.name === name);

/** Descendants named `name`, at any depth. */
function descendants(node: Node, name: string, out: Node[] = []): Node[] {
  for (const c of node.children) {
    if (c.name === name) out.push(c);
    descendants(c, name, out);
  }
  return out;
}

/** An element's value: its own text, or else its (first non-empty) attribute; null when it has neither. */
function value(node: Node | undefined): string | null {
  if (!node) return null;
  const text = node.text.trim();
  if (text !== "") return text;
  const attribute = Object.values(node.attributes).find((v) => v.trim() !== "");
  return attribute?.trim() ?? null;
}

const field = (node: Node | undefined, name: string) => value(child(node, name));

/** "No value" codes of IACA enumerations. */
const NONE = /^(no(alt)?type|noaction|noaltname|none|)$/i;

/** An individual's structured name as offices display it: `LAST, FIRST MIDDLE SUFFIX`. */
function individualName(n: Node): string | null {
  const last = field(n, "lastname");
  const rest = ["firstname", "middlename", "suffix"].map((f) => field(n, f)).filter(Boolean);
  if (!last) return rest.length > 0 ? rest.join(" ") : null;
  return rest.length > 0 ? `${last}, ${rest.join(" ")}` : last;
}

/** A party element (`Names`, or a `DebtorName` without one) in the lien shape. */
function party(n: Node) {
  const organization = field(n, "organizationname");
  const individual = child(n, "individualname");
  const name = organization ?? (individual ? individualName(individual) : null);
  const type = organization ? "Organization" : individual ? "Individual" : null;
  return {
    name,
    type,
    address: {
      street1: field(n, "mailaddress") ?? field(n, "mailaddress1") ?? field(n, "address1"),
      street2: field(n, "mailaddress2") ?? field(n, "address2"),
      city: field(n, "city"),
      state: field(n, "state"),
      zip_code: field(n, "postalcode") ?? field(n, "zipcode"),
      country: field(n, "country"),
    },
  };
}

/** The parties under `group` (Debtors or Secured): each `Names`, or each entry without one. */
function parties(group: Node | undefined) {
  if (!group) return [];
  return group.children.flatMap((entry) => {
    if (entry.name === "names") return [party(entry)];
    const names = children(entry, "names");
    return names.length > 0 ? names.map(party) : [party(entry)];
  });
}

/** FileDate with FileTime when a file gives the time apart (`20130522` and `1700`). */
function fileDate(detail: Node, date: string, time: string): string | null {
  const day = field(detail, date);
  const clock = field(detail, time);
  if (day && clock && /^\d{8}$/.test(day) && /^\d{2}:?\d{2}(:?\d{2})?$/.test(clock)) {
    return `${day} ${clock.replace(/:/g, "")}`;
  }
  return day;
}

/** The office's amendment description: its types and actions (`AmendmentParties - DebtorAdd`). */
function amendmentDescription(detail: Node, transType: string | null): string {
  const codes = (name: string) => [
    ...new Set(
      descendants(detail, name)
        .map(value)
        .filter((v): v is string => v !== null && !NONE.test(v)),
    ),
  ];
  const types = codes("amendmenttype");
  const actions = codes("amendmentaction");
  const description = [types.join(", "), actions.join(", ")].filter(Boolean).join(" - ");
  return description || transType || "Amendment";
}

/** A FileDetail in the lien shape: a filing, or an amendment line (schema.ts). */
function lienOf(detail: Node): Record<string, unknown> {
  const transType = field(detail, "transtype");
  const fileNumber = field(detail, "filenumber");
  const original = field(detail, "originalfilenumber") ?? field(detail, "initialfilenumber");
  const initial =
    transType !== null
      ? /initial|original|ucc-?1\b|^new/i.test(transType)
      : original === null || original === fileNumber;
  const office = field(detail, "filingoffice");
  const state = office && isStateCode(office.toUpperCase()) ? office.toUpperCase() : undefined;
  const collateral = descendants(detail, "coltext")
    .map((c) => c.text)
    .join("\n");
  const debtors = parties(child(detail, "debtors"));
  const secured = parties(child(detail, "secured"));
  if (initial) {
    const kind = field(detail, "altfilingtype");
    return {
      initial_financing_number: fileNumber ?? original,
      initial_financing_date:
        fileDate(detail, "filedate", "filetime") ?? fileDate(detail, "originalfiledate", "filetime"),
      jurisdiction_state: state,
      ...(kind && !NONE.test(kind) ? { filing_kind: kind } : {}),
      estimated_lien_lapse_date: field(detail, "lapsedate"),
      filing_office: office,
      collateral,
      involved_parties: { debtor_parties: debtors, secured_parties: secured },
      amendments: [],
    };
  }
  return {
    initial_financing_number: original,
    jurisdiction_state: state,
    amendment_financing_number: fileNumber,
    amendment_financing_date: fileDate(detail, "filedate", "filetime"),
    amendment_financing_type_description: amendmentDescription(detail, transType),
    amendment_lapse_date: field(detail, "lapsedate"),
    amendment_collateral: collateral,
    involved_parties: { debtor_parties: debtors, secured_parties: secured },
  };
}

const XML_FIELDS: Record<string, string> = {
  initial_financing_number: "FileNumber",
  initial_financing_date: "FileDate",
  jurisdiction_state: "FilingOffice",
  filing_kind: "AltFilingType",
  estimated_lien_lapse_date: "LapseDate",
  filing_office: "FilingOffice",
  collateral: "Collateral/ColText",
  amendment_financing_number: "FileNumber",
  amendment_financing_date: "FileDate",
  amendment_financing_type_description: "AmendmentType",
  amendment_lapse_date: "LapseDate",
  amendment_collateral: "Collateral/ColText",
  name: "OrganizationName or IndividualName",
  type: "OrganizationName or IndividualName",
  street1: "MailAddress",
  street2: "MailAddress2",
  city: "City",
  state: "State",
  zip_code: "PostalCode",
  country: "Country",
};

/** A lien-shape path as the XML elements it came from: `Debtors name 1 PostalCode`. */
export function xmlLabel(path: readonly PropertyKey[]): string {
  const [top, list, index, ...rest] = path;
  if (top === "involved_parties" && typeof index === "number") {
    const group = list === "debtor_parties" ? "Debtors" : "Secured";
    const field = String(rest.at(-1) ?? "");
    return `${group} name ${index + 1}${rest.length > 0 ? ` ${XML_FIELDS[field] ?? field}` : ""}`;
  }
  if (top === "involved_parties") return list === "debtor_parties" ? "Debtors" : "Secured";
  return XML_FIELDS[String(top)] ?? String(top || "FileDetail");
}

/** Length in bytes of `text` in the file's encoding (exact for UTF-8 and single-byte encodings). */
function byteLength(text: string, utf8: boolean): number {
  if (!utf8) return text.length;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * The encoding of an XML file by its first bytes (XML 1.0 appendix F): a
 * byte-order mark's, or UTF-16's when `<?` is written in it without one;
 * else the one its declaration names (UTF-8 when none). A UTF-16 file's
 * declaration, NULs between its letters, does not read as ASCII, so the
 * bytes are looked at first.
 */
function declaredEncoding(head: Uint8Array): string {
  const starts = (...bytes: number[]) => bytes.every((byte, i) => head[i] === byte);
  if (starts(0xff, 0xfe) || starts(0x3c, 0, 0x3f, 0)) return "utf-16le";
  if (starts(0xfe, 0xff) || starts(0, 0x3c, 0, 0x3f)) return "utf-16be";
  if (starts(0xef, 0xbb, 0xbf)) return "utf-8";
  let ascii = "";
  for (const b of head.subarray(0, 256)) ascii += String.fromCharCode(b);
  return /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii)?.[1] ?? "utf-8";
}

/**
 * WHATWG encodings with characters of several bytes other than UTF-8: their
 * text cannot be cut at a known byte, so a file in one is read in one go.
 */
const MULTI_BYTE = new Set([
  "utf-16le",
  "utf-16be",
  "gbk",
  "gb18030",
  "big5",
  "euc-jp",
  "iso-2022-jp",
  "shift_jis",
  "euc-kr",
]);

/** How many of `bytes` end on a whole UTF-8 character (the rest waits for the next chunk). */
function wholeCharacters(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0 && i >= bytes.length - 3; i--) {
    const b = bytes[i] ?? 0;
    if ((b & 0xc0) === 0x80) continue;
    const length = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + length > bytes.length ? i : bytes.length;
  }
  return bytes.length;
}

const escapeAttribute = (value: string) => value.replace(/[&<"\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`);

/** A start tag as read, for reading again when resuming inside its element. */
const startTag = (tag: Tag) =>
  `<${tag.name}${Object.entries(tag.attributes)
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("")}>`;

/** Open elements whose start tags a resume point carries at most (bytes of tags): past it, no resume there. */
const MAX_OPEN_TAGS = 16_384;

/**
 * The FileDetail records of an XML file, in order. With `from`, `body` holds
 * the file from just after a FileDetail (a resume point of an earlier read)
 * to its end, and line numbers, bytes and messages stay the file's own.
 */
export async function* xmlRecords(body: ReadableStream<Uint8Array>, from?: XmlResume): AsyncGenerator<XmlRecord> {
  const reader = body.getReader();
  let encoding = from?.xml.encoding;
  /** Decodes a piece of whole characters; the first piece of a file drops a byte-order mark. */
  let decode: ((bytes: Uint8Array) => string) | undefined;
  /** Decodes the stream for encodings whose characters cannot be cut at a byte (MULTI_BYTE). */
  let streaming: TextDecoder | undefined;
  let utf8 = true;
  /** Bytes of a character begun at the end of the last chunk. */
  let carry: Uint8Array = new Uint8Array(0);
  /** Text (parser positions) of the lines of a UTF-8 file that were not UTF-8, read as windows-1252, and their lines. */
  let recoded: { from: number; to: number; line: number }[] = [];
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const latin = new TextDecoder("windows-1252");
  const parser = sax.parser(true, { trim: false, normalize: false, position: true });

  /** Text written to the parser from `bufferStart` on (characters): the record being read. */
  let buffer = "";
  let bufferStart = 0;
  /**
   * The piece of text being parsed: its first character's parser position,
   * its first byte in the file, and the first character from which bytes are
   * no longer exact (an undecodable UTF-8 sequence, or an encoding that
   * cannot be cut): Infinity when all are.
   */
  let pieceText = "";
  let pieceChars = 0;
  let pieceBytes = from?.byte ?? 0;
  let pieceExactTo = Number.POSITIVE_INFINITY;
  /** Bytes counted so far into the piece, so each position costs only the characters since the last. */
  let countedChars = 0;
  let countedBytes = 0;
  /** Characters of the resume prefix (the open elements' start tags), which the file's first line does not hold. */
  let prefixChars = 0;
  const lineBase = (from?.line ?? 1) - 1;
  const columnBase = from?.xml.column ?? 0;

  const stack: Node[] = [];
  /** Start tags of the open elements outside FileDetail records. */
  const outer: string[] = [];
  let recordStart = -1;
  let recordLine = 0;
  const ready: XmlRecord[] = [];
  let failure: Error | undefined;
  let rootSeen = from !== undefined;
  /** The office's as-of date (`ThruDate`, outside the records), and whether it is being read. */
  let thruDate = from?.xml.thruDate;
  let inThruDate = false;

  /** File byte of the parser position `position` (characters). */
  const byteAt = (position: number): number => {
    const i = Math.max(0, Math.min(pieceText.length, position - pieceChars));
    if (i < countedChars) {
      countedChars = 0;
      countedBytes = 0;
    }
    countedBytes += byteLength(pieceText.slice(countedChars, i), utf8);
    countedChars = i;
    return pieceBytes + countedBytes;
  };
  const fileLine = () => parser.line + 1 + lineBase;

  /**
   * `piece` of a UTF-8 file that did not all decode, line by line: a line
   * that is not UTF-8 is read as windows-1252, one character a byte (as
   * Latin-1 bulk files that declare no encoding are written), and noted for
   * the records it falls in, rather than read with U+FFFD for its bytes.
   */
  const recode = (piece: Uint8Array): string => {
    /** Parser position of the piece's first character. */
    const at = pieceChars + pieceText.length;
    let text = "";
    let line = fileLine();
    for (let start = 0; start < piece.length; line++) {
      const lf = piece.indexOf(LF, start);
      const end = lf === -1 ? piece.length : lf + 1;
      const bytes = piece.subarray(start, end);
      start = end;
      try {
        text += strict.decode(bytes);
      } catch {
        const part = latin.decode(bytes);
        recoded.push({ from: at + text.length, to: at + text.length + part.length, line });
        text += part;
      }
    }
    return text;
  };
  const fileColumn = () => (parser.line === 0 ? parser.column - prefixChars + columnBase : parser.column);

  /** Line, column and byte of the parser, for messages. */
  const where = () =>
    `line ${fileLine()}, column ${fileColumn() + 1}, byte ${byteAt(parser.position).toLocaleString("en-US")}`;

  parser.onopentag = (tag) => {
    const name = local(tag.name);
    rootSeen = true;
    if (recordStart < 0 && name === "thrudate") {
      inThruDate = true;
      thruDate = tag.attributes.Date ?? tag.attributes.date ?? "";
    }
    if (recordStart < 0 && name !== RECORD) {
      outer.push(startTag(tag));
      return;
    }
    const node: Node = { name, attributes: tag.attributes, children: [], text: "" };
    if (recordStart < 0) {
      recordStart = parser.startTagPosition - 1;
      recordLine = fileLine();
    } else stack.at(-1)?.children.push(node);
    stack.push(node);
  };
  parser.ontext = (text) => {
    const open = stack.at(-1);
    if (open) open.text += text;
    else if (inThruDate) thruDate = `${thruDate ?? ""}${text}`.trim();
  };
  parser.oncdata = parser.ontext;
  parser.onclosetag = () => {
    inThruDate = false;
    const node = stack.pop();
    if (!node) {
      outer.pop();
      return;
    }
    if (stack.length > 0) return;
    // The parser reads on after a problem within the text written; nothing past it is a record.
    if (failure) return;
    const raw = buffer.slice(recordStart - bufferStart, parser.position - bufferStart);
    const lines = recoded.filter((r) => r.to > recordStart && r.from < parser.position).map((r) => r.line);
    const exact = parser.position - pieceChars <= pieceExactTo;
    const byte = byteAt(parser.position);
    const open = outer.reduce((n, t) => n + t.length, 0) <= MAX_OPEN_TAGS ? [...outer] : undefined;
    ready.push({
      line: recordLine,
      endLine: fileLine(),
      raw,
      lien: lienOf(node),
      ...(thruDate ? { thruDate } : {}),
      ...(lines.length > 0 ? { recoded: [...new Set(lines)] } : {}),
      ...(exact && open && encoding
        ? {
            resume: {
              byte,
              line: fileLine(),
              xml: { encoding, column: fileColumn(), open, ...(thruDate ? { thruDate } : {}) },
            },
          }
        : {}),
    });
    recordStart = -1;
  };
  parser.onerror = (error) => {
    const reason = error.message.split("\n")[0];
    failure ??= new FeedFileError(
      reason === "Unclosed root tag"
        ? `the file ends before its root element is closed (${where()}): it looks truncated`
        : reason === "Unexpected end"
          ? `the file ends inside markup (${where()}): it looks truncated`
          : `not well-formed XML at ${where()}: ${reason}`,
    );
  };

  /** Parses `text`, which starts at byte `start` of the file and spans `bytes` bytes, exact up to character `exactTo`. */
  const write = (text: string, start: number, exactTo: number) => {
    pieceChars += pieceText.length;
    pieceText = text;
    pieceBytes = start;
    pieceExactTo = exactTo;
    countedChars = 0;
    countedBytes = 0;
    buffer += text;
    parser.write(text);
    // Keep only the record being read (its raw text); drop what is done.
    const keepFrom = recordStart >= 0 ? recordStart : parser.position;
    buffer = buffer.slice(keepFrom - bufferStart);
    bufferStart = keepFrom;
    if (recoded.length > 0) recoded = recoded.filter((r) => r.to > keepFrom);
    if (buffer.length > MAX_RECORD_CHARS) {
      failure ??= new FeedFileError(
        `the <FileDetail> begun at line ${recordLine} runs past ${MAX_RECORD_CHARS.toLocaleString("en-US")} characters (${where()}): the file is broken`,
      );
    }
  };

  let finished = false;
  /** File byte where the next chunk's text starts. */
  let next = from?.byte ?? 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      finished = done;
      let bytes: Uint8Array = value ?? new Uint8Array(0);
      if (!decode && !streaming) {
        // The declaration is read from the first 256 bytes, however the stream cuts them.
        if (!encoding && !done && carry.length + bytes.length < 256) {
          carry = joinBytes([carry, bytes]);
          continue;
        }
        bytes = joinBytes([carry, bytes]);
        carry = new Uint8Array(0);
        encoding ??= declaredEncoding(bytes);
        let decoder: TextDecoder;
        try {
          decoder = new TextDecoder(encoding);
        } catch {
          throw new FeedFileError(`the XML declaration names encoding ${encoding}, which cannot be read`);
        }
        utf8 = decoder.encoding === "utf-8";
        if (MULTI_BYTE.has(decoder.encoding)) streaming = decoder;
        else {
          // A byte-order mark is dropped at the file's start only.
          const later = new TextDecoder(encoding, { fatal: false, ignoreBOM: true });
          let first: TextDecoder | undefined = from ? undefined : decoder;
          decode = (piece) => {
            if (piece.length === 0) return "";
            const text = (first ?? later).decode(piece);
            first = undefined;
            return text;
          };
        }
        if (from) {
          // Inside the elements open at the resume point, at no byte of the file.
          const prefix = from.xml.open.join("");
          write(prefix, next, Number.POSITIVE_INFINITY);
          prefixChars = prefix.length;
        }
      }
      let text: string;
      let start = next;
      let exactTo = Number.POSITIVE_INFINITY;
      if (decode) {
        const all = joinBytes([carry, bytes]);
        const whole = done || !utf8 ? all.length : wholeCharacters(all);
        carry = all.slice(whole);
        text = decode(all.subarray(0, whole));
        if (utf8 && text.includes("\uFFFD")) {
          // A byte-order mark is dropped at the file's start only.
          const bom = next === 0 && all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf ? 3 : 0;
          const before = recoded.length;
          text = recode(all.subarray(bom, whole));
          // Past a line read as windows-1252, text no longer maps to bytes as UTF-8 counts them.
          const recodedFrom = recoded[before]?.from;
          if (recodedFrom !== undefined) exactTo = recodedFrom - (pieceChars + pieceText.length);
        }
        next += whole;
      } else {
        text = done ? (streaming?.decode() ?? "") : (streaming?.decode(bytes, { stream: true }) ?? "");
        start = pieceBytes + byteLength(pieceText, false);
        exactTo = -1;
      }
      if (text !== "" && !failure) write(text, start, exactTo);
      yield* ready.splice(0);
      if (failure) throw failure;
      if (done) break;
    }
    if (recordStart >= 0) {
      throw new FeedFileError(
        `the file ends inside the <FileDetail> begun at line ${recordLine} (${where()}): it looks truncated; the records before it were read`,
      );
    }
    if (!failure) parser.close();
    yield* ready.splice(0);
    if (failure) throw failure;
    if (!rootSeen) throw new FeedFileError("the file holds no XML element");
  } finally {
    if (!finished) await reader.cancel();
    reader.releaseLock();
  }
}
