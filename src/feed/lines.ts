/**
 * Text lines of a byte stream, decoded as UTF-8, one at a time, so a file of
 * any size streams. Lines are cut at the byte 0x0A (never part of a longer
 * UTF-8 character), so each line knows exactly where it ends in the file:
 * reading can start again at any line, from its byte offset (a range step of
 * the platform's loader, src/platform/).
 */
import { joinBytes } from "./bytes.ts";

export interface Line {
  /** 1-based line number in the file. */
  number: number;
  /** The line without its line break (LF or CRLF). */
  text: string;
  /** Byte offset in the file just past the line and its break: where the next line starts. */
  end: number;
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
): AsyncGenerator<Line> {
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
        yield { number, text: text.endsWith("\r") ? text.slice(0, -1) : text, end: start + bytes.length };
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
        at = bytes.indexOf(LF, at) + 1;
        number += 1;
        yield { number, text: text.endsWith("\r") ? text.slice(0, -1) : text, end: start + at };
      }
      start += bytes.length;
    }
  } finally {
    // A consumer that stops early closes the file.
    if (!finished) await reader.cancel();
    reader.releaseLock();
  }
}
