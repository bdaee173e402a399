/**
 * The text of each page of a PDF that headless chromium printed (Skia's PDF
 * writer), for checking what a printout says. Skia writes plain objects (no
 * object streams), Flate-compresses each stream and draws text in Type0
 * fonts whose two-byte codes are glyph ids, not characters: each font's
 * ToUnicode map turns them back into text. Enough for Skia's output, not a
 * general PDF reader; anything it cannot read comes out as no text, so a
 * check on it fails rather than passes.
 */
import { inflateSync } from "node:zlib";

interface PdfObject {
  dict: string;
  stream: string | undefined;
}

/** Every `N 0 obj … endobj`, its stream (read by its /Length, so binary data is never scanned) inflated. */
function objects(pdf: Buffer): Map<string, PdfObject> {
  const text = pdf.toString("latin1");
  const found = new Map<string, PdfObject>();
  const header = /(\d+) 0 obj\b/g;
  for (let m = header.exec(text); m !== null; m = header.exec(text)) {
    const end = text.indexOf("endobj", header.lastIndex);
    const at = text.slice(header.lastIndex, end).search(/\bstream\r?\n/);
    if (at < 0) {
      found.set(m[1] ?? "", { dict: text.slice(header.lastIndex, end), stream: undefined });
      continue;
    }
    const dict = text.slice(header.lastIndex, header.lastIndex + at);
    const start = text.indexOf("\n", header.lastIndex + at) + 1;
    const length = Number(/\/Length (\d+)/.exec(dict)?.[1] ?? 0);
    const raw = pdf.subarray(start, start + length);
    const stream = (/\/FlateDecode/.test(dict) ? inflateSync(raw) : raw).toString("latin1");
    found.set(m[1] ?? "", { dict, stream });
    header.lastIndex = start + length;
  }
  return found;
}

/** UTF-16BE hex (a ToUnicode destination) as a string. */
const utf16 = (hex: string) => String.fromCharCode(...(hex.match(/.{4}/g) ?? []).map((h) => Number.parseInt(h, 16)));

/** A ToUnicode CMap's code → text, from its bfchar pairs and bfranges. */
function toUnicode(cmap: string): Map<number, string> {
  const map = new Map<number, string>();
  for (const block of cmap.matchAll(/beginbfchar([\s\S]*?)endbfchar/g)) {
    for (const [, code, text] of (block[1] ?? "").matchAll(/<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g)) {
      map.set(Number.parseInt(code ?? "", 16), utf16(text ?? ""));
    }
  }
  for (const block of cmap.matchAll(/beginbfrange([\s\S]*?)endbfrange/g)) {
    for (const [, lo, hi, first] of (block[1] ?? "").matchAll(
      /<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>\s*<([0-9a-fA-F]+)>/g,
    )) {
      const from = Number.parseInt(lo ?? "", 16);
      const base = Number.parseInt(first ?? "", 16);
      for (let code = from; code <= Number.parseInt(hi ?? "", 16); code++) {
        map.set(code, String.fromCharCode(base + code - from));
      }
    }
  }
  return map;
}

/** The text each page draws, in drawing order, pages in document order (compatibility forms such as ligatures unfolded). */
export function pdfPageTexts(pdf: Buffer): string[] {
  const all = objects(pdf);
  const cmaps = new Map<string, Map<number, string>>();
  const fontMap = (ref: string) => {
    let map = cmaps.get(ref);
    if (!map) {
      const unicode = /\/ToUnicode (\d+) 0 R/.exec(all.get(ref)?.dict ?? "")?.[1];
      map = toUnicode(all.get(unicode ?? "")?.stream ?? "");
      cmaps.set(ref, map);
    }
    return map;
  };
  const root = [...all.values()].find((o) => /\/Type \/Pages\b/.test(o.dict) && !/\/Parent /.test(o.dict));
  const kids = [...(/\/Kids \[([^\]]*)\]/.exec(root?.dict ?? "")?.[1] ?? "").matchAll(/(\d+) 0 R/g)].map((m) => m[1]);
  return kids.map((id) => {
    const page = all.get(id ?? "")?.dict ?? "";
    const fonts = new Map(
      [...(/\/Font <<([^>]*)>>/.exec(page)?.[1] ?? "").matchAll(/\/(\S+) (\d+) 0 R/g)].map((m) => [m[1], m[2] ?? ""]),
    );
    const content = all.get(/\/Contents (\d+) 0 R/.exec(page)?.[1] ?? "")?.stream ?? "";
    let map = new Map<number, string>();
    let text = "";
    for (const m of content.matchAll(/\/(\S+) [-\d.]+ Tf|<([0-9a-fA-F]*)>/g)) {
      if (m[1] !== undefined) map = fontMap(fonts.get(m[1]) ?? "");
      else for (const code of m[2]?.match(/.{4}/g) ?? []) text += map.get(Number.parseInt(code, 16)) ?? "";
    }
    return text.normalize("NFKC");
  });
}
