/**
 * What `npm run import -- FILE --workflow` (or `--remote`) shows of a load
 * it follows on the platform: the phase the load record's checkpoint says
 * the LoadFeed Workflow is in (src/platform/loadFeed.ts: scan, ranges,
 * aggregates), in the same lines as an in-process import
 * (scripts/progress.ts).
 */
import type { LoadRecord } from "../src/platform/loadRecord.ts";
import { number, writtenDetail } from "./importOutput.ts";
import type { Progress } from "./progress.ts";

type PhaseName = "reading" | "writing" | "rebuilding the aggregates of the debtors loaded";

/** The phase the load whose record is `record` is in. */
function phaseOf({ checkpoint: c }: LoadRecord): PhaseName {
  // The first reading, until the backfills it leads to are decided.
  if (!c.scan || c.scan.next !== null || !c.backfills) return "reading";
  // Until the first aggregates step says how many debtors are queued.
  if (c.next !== null || (!c.refreshing && !c.finished)) return "writing";
  return "rebuilding the aggregates of the debtors loaded";
}

/**
 * How far phase `name` has got by `record`, of a file of `size` bytes (a
 * phase the load has moved past: all of it), and what it says of itself,
 * but for writing (its counts and pace: writtenDetail). `queued`: the
 * debtors the aggregates steps found queued, as last seen (the finish
 * step's checkpoint no longer says).
 */
function measure(name: PhaseName, { checkpoint: c }: LoadRecord, size: number, queued: number | undefined) {
  if (name === "reading") {
    const done = c.scan ? (c.scan.next?.byte ?? size) : 0;
    return { total: size, done, detail: `${number(c.scan?.read ?? 0)} records` };
  }
  if (name === "writing") {
    if (c.next === null) return { total: size, done: size, detail: "" };
    // A range's progress is its own until its checkpoint is saved (loadRecord.ts, Checkpoint.writing).
    const within = c.writing?.from === c.next.byte ? c.writing.done : 0;
    return { total: size, done: Math.max(c.done, within), detail: "" };
  }
  const total = c.refreshing?.queued ?? queued ?? 0;
  const done = c.refreshing && !c.finished ? total - c.refreshing.left : total;
  return { total, done, detail: queued === undefined ? "" : `${number(done)} of ${number(total)} debtors` };
}

export class LoadFollower {
  private readonly progress: Progress;
  private readonly size: number;
  private shown: PhaseName | undefined;
  private queued: number | undefined;

  constructor(progress: Progress, size: number) {
    this.progress = progress;
    this.size = size;
  }

  /** The record as it is now: the phase shown moves, or ends (as the record leaves it) and the next begins. */
  show(record: LoadRecord | undefined): void {
    if (!record) return;
    this.queued = record.checkpoint.refreshing?.queued ?? this.queued;
    const name = phaseOf(record);
    if (name !== this.shown) {
      this.close(record);
      this.shown = name;
      const { total, done } = measure(name, record, this.size, this.queued);
      this.progress.phase(name, total, done);
    }
    const { done, detail } = measure(name, record, this.size, this.queued);
    this.progress.update(done, name === "writing" ? writtenDetail(record.summary, this.progress.elapsed()) : detail);
  }

  /**
   * The load has ended: a phase it went through since the record was last
   * read (the aggregates of a small load, done between two reads) is shown
   * too, as an in-process import shows it, then ends where `record` leaves it.
   */
  end(record: LoadRecord | undefined): void {
    if (this.shown && record && phaseOf(record) !== this.shown) this.show(record);
    this.close(record);
  }

  /** The phase shown ends where `record` leaves it. */
  private close(record: LoadRecord | undefined): void {
    if (this.shown && record) {
      const { done, detail } = measure(this.shown, record, this.size, this.queued);
      this.progress.end(
        this.shown === "writing" ? writtenDetail(record.summary, this.progress.elapsed()) : detail,
        done,
      );
    } else this.progress.end();
    this.shown = undefined;
  }
}
