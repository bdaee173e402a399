/**
 * IACA-style XML bulk files: one `<FileDetail>` per initial filing or
 * amendment, wherever it sits in the document (`Record/Results/FileDetail`
 * in the published bulk layouts). Each is read into the feed's lien shape
 * (schema.ts), so it is validated and normalized like an NDJSON line.
 *
 * The file streams through sax (a maintained, strict, dependency-free
 * streaming parser): only the FileDetail being read is held, as a small
 * tree, so memory stays flat whatever the file's size. The encoding comes
 * from the XML declaration (UTF-8 by default; bulk files are often
 * windows-1252). A file that is not well-formed, or ends early, stops with
 * a FeedFileError naming the line, column and byte; the records before it
 * have been read.
 *
 * Element values are read from the element's text or, when it has none,
 * from its attribute (`<TransType Type="Initial"/>`,
 * `<AltFilingType AltType="StateLien"/>`): offices publish both forms.
 * Element names are matched without case or namespace prefix.
 */
/// <reference path="./sax.d.ts" />
import sax from "sax";
import { isStateCode } from "../domain/states.ts";
import { FeedFileError } from "./csv.ts";

/** One FileDetail: its place in the file, its text, and the lien-shaped object it reads as. */
export interface XmlRecord {
  line: number;
  endLine: number;
  raw: string;
  lien: Record<string, unknown>;
  /** The file's `ThruDate` read before the record (the office's as-of date), as written. */
  thruDate?: string;
}

interface Node {
  name: string;
  attributes: Record<string, string>;
  children: Node[];
  text: string;
}

/** FileDetail text beyond this many characters is not one record but a broken file. */
const MAX_RECORD_CHARS = 16 * 1024 * 1024;
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

/** The encoding an XML declaration names in the file's first bytes (UTF-8 when none). */
function declaredEncoding(head: Uint8Array): string {
  let ascii = "";
  for (const b of head.subarray(0, 256)) ascii += String.fromCharCode(b);
  return (
    /^(?:\uFEFF|\u00EF\u00BB\u00BF)?\s*<\?xml[^>]*\bencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(ascii)?.[1] ??
    "utf-8"
  );
}

/** The FileDetail records of an XML file, in order. */
export async function* xmlRecords(body: ReadableStream<Uint8Array>): AsyncGenerator<XmlRecord> {
  const reader = body.getReader();
  let decoder: TextDecoder | undefined;
  let utf8 = true;
  const parser = sax.parser(true, { trim: false, normalize: false, position: true });

  /** Text written to the parser from `bufferStart` on (characters): the record being read. */
  let buffer = "";
  let bufferStart = 0;
  /** Where the current chunk starts, in characters and in bytes of the file. */
  let chunkChars = 0;
  let chunkBytes = 0;
  let chunkText = "";

  const stack: Node[] = [];
  let recordStart = -1;
  let recordLine = 0;
  const ready: XmlRecord[] = [];
  let failure: Error | undefined;
  let rootSeen = false;
  /** The office's as-of date (`ThruDate`, outside the records), and whether it is being read. */
  let thruDate: string | undefined;
  let inThruDate = false;

  /** Line, column and byte of the parser, for messages. */
  const where = () => {
    const inChunk = Math.max(0, Math.min(chunkText.length, parser.position - chunkChars));
    const byte = chunkBytes + byteLength(chunkText.slice(0, inChunk), utf8);
    return `line ${parser.line + 1}, column ${parser.column + 1}, byte ${byte.toLocaleString("en-US")}`;
  };

  parser.onopentag = (tag) => {
    const name = local(tag.name);
    rootSeen = true;
    if (recordStart < 0 && name === "thrudate") {
      inThruDate = true;
      thruDate = tag.attributes.Date ?? tag.attributes.date ?? "";
    }
    if (recordStart < 0 && name !== RECORD) return;
    const node: Node = { name, attributes: tag.attributes, children: [], text: "" };
    if (recordStart < 0) {
      recordStart = parser.startTagPosition - 1;
      recordLine = parser.line + 1;
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
    if (!node) return;
    if (stack.length > 0) return;
    const raw = buffer.slice(recordStart - bufferStart, parser.position - bufferStart);
    ready.push({
      line: recordLine,
      endLine: parser.line + 1,
      raw,
      lien: lienOf(node),
      ...(thruDate ? { thruDate } : {}),
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

  const write = (text: string) => {
    chunkText = text;
    buffer += text;
    parser.write(text);
    // Keep only the record being read (its raw text); drop what is done.
    const keepFrom = recordStart >= 0 ? recordStart : parser.position;
    buffer = buffer.slice(keepFrom - bufferStart);
    bufferStart = keepFrom;
    if (buffer.length > MAX_RECORD_CHARS) {
      failure ??= new FeedFileError(
        `the <FileDetail> begun at line ${recordLine} runs past ${MAX_RECORD_CHARS.toLocaleString("en-US")} characters (${where()}): the file is broken`,
      );
    }
    chunkChars += text.length;
    chunkBytes += byteLength(text, utf8);
  };

  let finished = false;
  try {
    for (;;) {
      const { done, value: bytes } = await reader.read();
      finished = done;
      if (!decoder) {
        const encoding = declaredEncoding(bytes ?? new Uint8Array());
        try {
          decoder = new TextDecoder(encoding);
        } catch {
          throw new FeedFileError(`the XML declaration names encoding ${encoding}, which cannot be read`);
        }
        utf8 = decoder.encoding === "utf-8";
      }
      const text = done ? decoder.decode() : decoder.decode(bytes, { stream: true });
      if (text !== "" && !failure) write(text);
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
