/** Text lines of a byte stream, decoded as UTF-8, one at a time, so a file of any size streams. */
export interface Line {
  /** 1-based line number in the file. */
  number: number;
  /** The line without its line break (LF or CRLF). */
  text: string;
}

export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<Line> {
  // The decoder drops a leading byte-order mark and handles characters
  // split across chunks.
  const decoder = new TextDecoder();
  let rest = "";
  let number = 0;
  const reader = body.getReader();
  let finished = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      finished = done;
      const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
      const parts = (rest + text).split("\n");
      rest = done ? "" : (parts.pop() ?? "");
      if (done && parts.at(-1) === "") parts.pop();
      for (const part of parts) {
        number += 1;
        yield { number, text: part.endsWith("\r") ? part.slice(0, -1) : part };
      }
      if (done) return;
    }
  } finally {
    // A consumer that stops early closes the file.
    if (!finished) await reader.cancel();
    reader.releaseLock();
  }
}
