/**
 * What a load says while it runs (scripts/progress.ts, and what a follower
 * of a platform load makes of its record: scripts/loadFollower.ts), on a
 * clock and a stream of the test's own: no time waited out. The real
 * commands' lines are checked where they already run
 * (test/node/interrupted-load.test.ts).
 */
import { describe, expect, it } from "vitest";
import { LoadFollower } from "../../scripts/loadFollower.ts";
import { duration, Progress } from "../../scripts/progress.ts";
import { emptySummary } from "../../src/feed/import.ts";
import type { Checkpoint, LoadRecord } from "../../src/platform/loadRecord.ts";

/** A stream that keeps what is written, and a clock the test moves. */
function harness(isTTY = false) {
  const written: string[] = [];
  let ms = 0;
  const out = { isTTY, columns: 200, write: (text: string) => written.push(text) };
  return {
    written,
    lines: () => written.join("").split("\n").filter(Boolean),
    tick: (by: number) => {
      ms += by;
    },
    options: { out, now: () => ms },
  };
}

describe("progress in a log (stderr not a terminal)", () => {
  it("writes a line each time another tenth of a phase is done, naming the phase and the time left", () => {
    const h = harness();
    const progress = new Progress("feed.ndjson", h.options);
    progress.phase("writing", 1_000);
    for (let done = 50; done < 1_000; done += 50) {
      h.tick(500);
      progress.update(done, `${done} records written`);
    }
    h.tick(500);
    progress.end("1000 records written");
    expect(h.lines()).toEqual([
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map(
        (tenth) => `  feed.ndjson: writing ${tenth}0%, about ${10 - tenth}s left: ${tenth}00 records written`,
      ),
      "  feed.ndjson: writing 100% in 10.0s: 1000 records written",
    ]);
  });

  it("writes at most a line a second, but always a phase's first and its last", () => {
    const h = harness();
    const progress = new Progress("small.ndjson", h.options);
    progress.phase("building indexes", 10);
    for (let done = 1; done < 10; done++) {
      h.tick(400);
      progress.update(done, `${done} of 10`);
    }
    h.tick(400);
    progress.end("10 indexes");
    expect(h.lines()).toEqual([
      "  small.ndjson: building indexes 10%, about 4s left: 1 of 10",
      "  small.ndjson: building indexes 40%, about 2s left: 4 of 10",
      "  small.ndjson: building indexes 70%, about 1s left: 7 of 10",
      "  small.ndjson: building indexes 100% in 4.0s: 10 indexes",
    ]);
  });

  it("writes one line for a phase done in one step, and one per tenth crossed however far a step goes", () => {
    const h = harness();
    const progress = new Progress("", h.options);
    progress.phase("building indexes", 3);
    h.tick(1_500);
    progress.update(2, "2 of 3");
    h.tick(1_500);
    progress.end("3 indexes");
    progress.phase("rebuilding the aggregates of the debtors loaded", 10);
    progress.end("10 debtors");
    expect(h.lines()).toEqual([
      "  building indexes 66%, about 1s left: 2 of 3",
      "  building indexes 100% in 3.0s: 3 indexes",
      "  rebuilding the aggregates of the debtors loaded 100% in 0.0s: 10 debtors",
    ]);
  });

  it("ends a phase that stopped part-way where it got to, and a new phase ends the one before", () => {
    const h = harness();
    const progress = new Progress("broken.xml", h.options);
    progress.phase("reading", 200);
    h.tick(1_000);
    progress.end("30 records", 90);
    progress.phase("writing", 200);
    h.tick(1_000);
    progress.update(50, "10 records written");
    progress.phase("finishing");
    h.tick(2_000);
    progress.end();
    expect(h.lines()).toEqual([
      "  broken.xml: reading 45% in 1.0s: 30 records",
      "  broken.xml: writing 25%, about 3s left: 10 records written",
      "  broken.xml: writing 100% in 1.0s: 10 records written",
      "  broken.xml: finishing...",
      "  broken.xml: finishing in 2.0s",
    ]);
  });

  it("counts the pace of a load followed part-way only from where it was first seen", () => {
    const h = harness();
    const progress = new Progress("feed.ndjson", h.options);
    progress.phase("writing", 1_000, 600);
    h.tick(10_000);
    progress.update(700);
    expect(h.lines()).toEqual(["  feed.ndjson: writing 70%, about 30s left"]);
  });

  it("gives durations in seconds, minutes and hours", () => {
    expect([400, 12_400, 125_000, 3_720_000].map(duration)).toEqual(["0s", "12s", "2m 05s", "1h 02m"]);
  });
});

describe("progress on a terminal", () => {
  it("redraws one bar in place at most ten times a second, and leaves each phase's last state on its own line", () => {
    const h = harness(true);
    const progress = new Progress("feed.ndjson", h.options);
    progress.phase("writing", 100);
    for (let done = 1; done < 100; done++) {
      h.tick(20);
      progress.update(done, `${done} records`);
    }
    h.tick(20);
    progress.end("100 records");
    const draws = h.written.filter((w) => w.startsWith("\r"));
    // The phase's first state, then every fifth update (100 ms at 20 ms each), then its end.
    expect(draws).toHaveLength(1 + 19 + 1);
    expect(draws[10]).toBe(
      "\r  feed.ndjson: writing [############.............]  50%, about 1s left: 50 records\u001b[K",
    );
    expect(h.written.at(-1)).toBe(
      "\r  feed.ndjson: writing [#########################] 100% in 2.0s: 100 records\u001b[K\n",
    );
    expect(h.written.join("").split("\n")).toHaveLength(2);
  });

  it("cuts the bar's line to the terminal's width, and clears it when a phase is dropped for the caller's own line", () => {
    const h = harness(true);
    const progress = new Progress("a-file-with-a-long-name.json", {
      ...h.options,
      out: { ...h.options.out, columns: 40 },
    });
    progress.phase("staging", 10);
    expect(h.written.at(-1)).toBe(`\r${"  a-file-with-a-long-name.json: staging [".slice(0, 39)}\u001b[K`);
    progress.drop();
    expect(h.written.at(-1)).toBe("\r\u001b[K");
  });
});

describe("a load followed on the platform", () => {
  const SIZE = 1_000_000;
  const record = (checkpoint: Partial<Checkpoint>, read = 0): LoadRecord => {
    const summary = { ...emptySummary(), read, inserted: read };
    return {
      id: "load-1",
      key: "incoming/feed.ndjson",
      etag: "e",
      bytes: SIZE,
      startedAt: "2026-01-01T00:00:00Z",
      updatedAt: "2026-01-01T00:00:00Z",
      summary,
      checkpoint: { next: { byte: 0, line: 1 }, done: 0, summary, ranges: 0, ...checkpoint },
    };
  };
  const scanned = { scan: { next: null, read: 4_000, states: ["CA"] }, backfills: { CA: false } };

  it("shows the Workflow's reading, its writing within a range and across ranges, and its aggregates, as an in-process import does", () => {
    const h = harness();
    const follower = new LoadFollower(new Progress("feed.ndjson", h.options), SIZE);
    const seen: LoadRecord[] = [
      record({ scan: { next: { byte: 400_000, line: 1_601 }, read: 1_600, states: [] } }),
      record(scanned),
      // Within the first range: what its groups have committed (Checkpoint.writing).
      record({ ...scanned, writing: { from: 0, done: 250_000 } }, 1_000),
      record({ ...scanned, writing: { from: 0, done: 500_000 } }, 2_000),
      // The first range's checkpoint; a stale `writing` of another range is not read.
      record(
        { ...scanned, next: { byte: 700_000, line: 2_801 }, done: 700_000, writing: { from: 0, done: 650_000 } },
        2_800,
      ),
      record({ ...scanned, next: null, done: SIZE }, 4_000),
      record({ ...scanned, next: null, done: SIZE, refreshing: { queued: 6_000, left: 6_000 } }, 4_000),
      record({ ...scanned, next: null, done: SIZE, refreshing: { queued: 6_000, left: 1_000 } }, 4_000),
    ];
    for (const r of seen) {
      h.tick(1_000);
      follower.show(r);
    }
    h.tick(500);
    follower.end(record({ ...scanned, next: null, done: SIZE, finished: true }, 4_000));
    expect(h.lines()).toEqual([
      "  feed.ndjson: reading 100% in 1.0s: 4,000 records",
      "  feed.ndjson: writing 25%, about 3s left: 1,000 records written or rejected (0 rejected, 0 with warnings), 1,000/s",
      "  feed.ndjson: writing 50%, about 2s left: 2,000 records written or rejected (0 rejected, 0 with warnings), 1,000/s",
      "  feed.ndjson: writing 70%, about 1s left: 2,800 records written or rejected (0 rejected, 0 with warnings), 933/s",
      "  feed.ndjson: writing 100% in 5.0s: 4,000 records written or rejected (0 rejected, 0 with warnings), 800/s",
      "  feed.ndjson: rebuilding the aggregates of the debtors loaded 83%, about 1s left: 5,000 of 6,000 debtors",
      "  feed.ndjson: rebuilding the aggregates of the debtors loaded 100% in 1.5s: 6,000 of 6,000 debtors",
    ]);
  });

  it("shows the aggregates' phase of a load that went through it between two reads of its record", () => {
    const h = harness();
    const follower = new LoadFollower(new Progress("feed.ndjson", h.options), SIZE);
    h.tick(1_000);
    follower.show(record({ ...scanned, writing: { from: 0, done: 500_000 } }, 2_000));
    h.tick(1_000);
    follower.end(
      record({ ...scanned, next: null, done: SIZE, refreshing: { queued: 300, left: 0 }, finished: true }, 4_000),
    );
    expect(h.lines()).toEqual([
      "  feed.ndjson: writing 100% in 1.0s: 4,000 records written or rejected (0 rejected, 0 with warnings), 4,000/s",
      "  feed.ndjson: rebuilding the aggregates of the debtors loaded 100% in 0.0s: 300 of 300 debtors",
    ]);
  });
});
