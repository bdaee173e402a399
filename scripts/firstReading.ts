/**
 * The first reading of a feed file by `npm run import` (src/feed/repeats.ts:
 * the filings it gives more than once, the states it names), before any
 * write: a phase of the file's progress of its own, which for a large
 * file takes a while.
 */
import { createReadStream, statSync } from "node:fs";
import { Readable } from "node:stream";
import type { FeedItem } from "../src/feed/read.ts";
import { readFeed } from "../src/feed/read.ts";
import { type FirstReading, findRepeats } from "../src/feed/repeats.ts";
import { byteCounter, number } from "./importOutput.ts";
import { Progress } from "./progress.ts";

/** `items`, counted into `seen` as they pass. */
async function* counted(items: AsyncIterable<FeedItem>, seen: { records: number }): AsyncGenerator<FeedItem> {
  for await (const item of items) {
    seen.records += 1;
    yield item;
  }
}

export async function readFirst(file: string, defaultState: string | undefined): Promise<FirstReading> {
  const progress = new Progress(file);
  const seen = { records: 0 };
  const records = () => `${number(seen.records)} records`;
  const counter = byteCounter((bytes) => progress.update(bytes, records()));
  progress.phase("reading", statSync(file).size);
  const body = (Readable.toWeb(createReadStream(file)) as unknown as ReadableStream<Uint8Array>).pipeThrough(
    counter.stream,
  );
  try {
    return await findRepeats(counted(readFeed(file, body, { now: new Date(), defaultState }), seen));
  } finally {
    // Where it got to: a file that breaks is read up to the problem (its load stops there too).
    progress.end(records(), counter.bytes());
  }
}
