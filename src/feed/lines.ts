/**
 * Text lines of a byte stream, decoded as UTF-8, one at a time, so a file of
 * any size streams. Lines are cut at the byte 0x0A (never part of a longer
 * UTF-8 character), so each line knows exactly where it ends in the file:
 * reading can start again at any line, from its byte offset (a range step of
 * the platform's loader, src/platform/).
 */
import { joinBytes } from "./bytes.ts";
import { FeedFileError } from "./csv.ts";

export interface Line {
  /** 1-based line number in the file. */
  number: number;
  /** The line without its line break (LF or CRLF). */
  text: string;
  /** Byte offset in the file just past the line and its break: where the next line starts. */
  end: number;
  /** The line was not UTF-8, and was read in the fallback encoding (ReadLinesOptions). */
  recoded?: true;
}

export interface ReadLinesOptions {
  /**
   * The encoding a line that is not UTF-8 is read in, instead of with
   * replacement characters: a single-byte one (windows-1252) for files of
   * fixed width, whose positions are then the file's bytes, as an office
   * writing Latin-1 counts them. Without it, such bytes read as U+FFFD.
   */
  fallback?: "windows-1252";
}

/**
 * What a file (or record) whose lines were not all UTF-8 is told: they were
 * read, as Windows-1252. `first`: the first such line's number; `count`: how many.
 */
export function recodedMessage({ first, count }: { first: number; count: number }): string {
  const lines =
    count === 1 ? `line ${first} is` : `${count.toLocaleString("en-US")} lines (the first, line ${first}) are`;
  return `${lines} not UTF-8: read as Windows-1252 (Latin-1), one character a byte; check a name of such a line reads right`;
}

/** Where a read starts: a line's first byte in the file and that line's number. */
export interface LineStart {
  byte: number;
  line: number;
}

const LF = 0x0a;

/** The lines of `body`, which holds the file from `from.byte` on. */
export async function* readLines(
  body: ReadableStream<Uint8Array>,
  from: LineStart = { byte: 0, line: 1 },
  options: ReadLinesOptions = {},
): AsyncGenerator<Line> {
  const strict = options.fallback ? new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }) : null;
  const fallback = options.fallback ? new TextDecoder(options.fallback) : null;
  /** `line` (its `text` as UTF-8 made of `bytes`, its break included), in the fallback encoding when those bytes are not UTF-8. */
  const checked = (line: Line, bytes: Uint8Array): Line => {
    // Lines are cut at a byte and read as UTF-8: UTF-16 would read as one garbled line after another.
    if (
      line.number === 1 &&
      from.byte === 0 &&
      ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))
    ) {
      throw new FeedFileError(
        "the file starts with a UTF-16 byte-order mark: it is read as UTF-8 (a line that is not, as Windows-1252); save it as UTF-8",
      );
    }
    // A replacement character is where UTF-8 could not be read, or (rarely) one written as UTF-8.
    if (!strict || !fallback || !line.text.includes("\uFFFD")) return line;
    try {
      strict.decode(bytes);
      return line;
    } catch {
      return { ...line, text: fallback.decode(bytes).replace(/\r?\n?$/, ""), recoded: true };
    }
  };
  // Only the file's first line may start with a byte-order mark (dropped);
  // elsewhere U+FEFF is text.
  const rest = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
  let decoder = from.byte === 0 ? new TextDecoder() : rest;
  /** Bytes of a line begun in an earlier chunk. */
  let pending: Uint8Array[] = [];
  /** File byte of the first pending byte. */
  let start = from.byte;
  let number = from.line - 1;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        finished = true;
        if (pending.length === 0) return;
        // A last line without a line break.
        const bytes = joinBytes(pending);
        const text = decoder.decode(bytes);
        number += 1;
        const line = { number, text: text.endsWith("\r") ? text.slice(0, -1) : text, end: start + bytes.length };
        yield checked(line, bytes);
        return;
      }
      const last = value.lastIndexOf(LF);
      if (last === -1) {
        pending.push(value);
        continue;
      }
      // Every whole line of the chunk in one decode: each LF byte is one "\n"
      // of the text, whatever bytes around it cannot be decoded.
      pending.push(value.subarray(0, last + 1));
      const bytes = joinBytes(pending);
      pending = last + 1 < value.length ? [value.subarray(last + 1)] : [];
      const lines = decoder.decode(bytes).split("\n");
      decoder = rest;
      lines.pop();
      let at = 0;
      for (const text of lines) {
        const from = at;
        at = bytes.indexOf(LF, at) + 1;
        number += 1;
        const line = { number, text: text.endsWith("\r") ? text.slice(0, -1) : text, end: start + at };
        yield checked(line, bytes.subarray(from, at));
      }
      start += bytes.length;
    }
  } finally {
    // A consumer that stops early closes the file.
    if (!finished) await reader.cancel();
    reader.releaseLock();
  }
}
