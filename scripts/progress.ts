/**
 * Progress of a long command (an import, a source load, a load followed on
 * the platform), phase by phase, on stderr: on a terminal one line redrawn
 * in place, a bar; otherwise (a log, a pipe) a line each time another tenth
 * of the phase is done (at most one a second), and one when it ends. Each line names the phase
 * (reading, writing, building indexes, ...), says how far it has got and
 * how long the rest of it should take at its pace so far.
 */

/** Where progress is written: stderr, or a test's stand-in. */
export interface ProgressOutput {
  readonly isTTY?: boolean;
  /** A terminal's width: the redrawn line is cut to it (a line that wraps cannot be redrawn). */
  readonly columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  out?: ProgressOutput;
  /** The clock, in milliseconds (a test's own). */
  now?: () => number;
}

/** A terminal's line is redrawn at most this often (ms): a redraw per record would cost more than the load. */
const REDRAW_MS = 100;
/**
 * A log gets a phase's lines at most this often (ms), but for its first
 * and last: a quick phase (a small file's indexes) says little, a long one
 * a line a tenth.
 */
const LINE_MS = 1_000;
const BAR_WIDTH = 25;

/** `12s`, `2m 05s`, `1h 02m`: a duration as the lines give it. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

interface Phase {
  name: string;
  /** Units of work (bytes, indexes, debtors); undefined when the phase has no measure. */
  total: number | undefined;
  /** Units done when the phase began here (a load followed part-way): the pace counts only what came after. */
  from: number;
  done: number;
  detail: string;
  started: number;
  /** The tenth of the last line written (a log), and when it was written. */
  tenth: number;
  said: number;
  /** When the terminal's line was last drawn. */
  drawn: number;
}

export class Progress {
  private readonly out: ProgressOutput;
  private readonly now: () => number;
  private readonly label: string;
  private current: Phase | undefined;

  /** `label` opens each line (a file's name), or nothing when "". */
  constructor(label: string, { out = process.stderr, now = Date.now }: ProgressOptions = {}) {
    this.label = label;
    this.out = out;
    this.now = now;
  }

  /**
   * Begins phase `name` of `total` units, `done` of them done already (a
   * load followed from part-way), ending the phase before. A phase without
   * a total (a single statement, a step that says nothing while it runs)
   * is announced when it begins and timed when it ends.
   */
  phase(name: string, total?: number, done = 0): void {
    if (this.current) this.end();
    const pct = total === undefined ? 0 : percent(done, total);
    this.current = {
      name,
      total,
      from: done,
      done,
      detail: "",
      started: this.now(),
      tenth: Math.floor(pct / 10),
      said: Number.NEGATIVE_INFINITY,
      drawn: Number.NEGATIVE_INFINITY,
    };
    if (total === undefined) this.write(`${this.prefix()}${name}...`, false);
    else if (this.out.isTTY) this.draw(this.current);
  }

  /** `done` units of the phase, and what to say of them ("16,480 records written"). */
  update(done: number, detail = ""): void {
    const phase = this.current;
    if (!phase) return;
    phase.done = done;
    phase.detail = detail;
    if (phase.total === undefined) return;
    if (this.out.isTTY) {
      if (this.now() - phase.drawn >= REDRAW_MS) this.draw(phase);
      return;
    }
    const tenth = Math.floor(percent(done, phase.total) / 10);
    // 100% is the end's line, with the phase's last counts and its time.
    if (tenth > phase.tenth && tenth < 10 && this.now() - phase.said >= LINE_MS) {
      phase.tenth = tenth;
      phase.said = this.now();
      this.write(this.line(phase), false);
    }
  }

  /** Milliseconds since the phase began (for a rate). */
  elapsed(): number {
    return this.current ? this.now() - this.current.started : 0;
  }

  /**
   * Ends the phase: its last line, at `done` (where it got to; its total
   * unless given) with `detail` (what it last said unless given) and the
   * time it took.
   */
  end(detail?: string, done?: number): void {
    const phase = this.current;
    if (!phase) return;
    this.current = undefined;
    phase.done = done ?? phase.total ?? phase.done;
    if (detail !== undefined) phase.detail = detail;
    const took = ` in ${(Math.max(0, this.now() - phase.started) / 1000).toFixed(1)}s`;
    if (phase.total === undefined) {
      this.write(`${this.prefix()}${phase.name}${took}${phase.detail ? `: ${phase.detail}` : ""}`, true);
      return;
    }
    this.write(this.line(phase, took), true);
  }

  /**
   * Ends the phase without a line of its own (the caller prints its own
   * summary of it): a terminal's bar is cleared.
   */
  drop(): void {
    if (!this.current) return;
    this.current = undefined;
    if (this.out.isTTY) this.out.write("\r\u001b[K");
  }

  private prefix(): string {
    return `  ${this.label ? `${this.label}: ` : ""}`;
  }

  /**
   * The phase's line: name, share done, the time left (or `tail`, the time
   * it took), then what it says, which a terminal's width may cut.
   */
  private line(phase: Phase, tail?: string): string {
    const pct = percent(phase.done, phase.total ?? 0);
    const bar = this.out.isTTY
      ? ` [${"#".repeat(Math.floor((pct / 100) * BAR_WIDTH)).padEnd(BAR_WIDTH, ".")}]${String(pct).padStart(4)}%`
      : ` ${pct}%`;
    return `${this.prefix()}${phase.name}${bar}${tail ?? this.left(phase)}${phase.detail ? `: ${phase.detail}` : ""}`;
  }

  /** `, about 12s left`, at the pace of the phase so far; "" before there is one. */
  private left(phase: Phase): string {
    const moved = phase.done - phase.from;
    const ms = this.now() - phase.started;
    if (phase.total === undefined || moved <= 0 || ms <= 0) return "";
    // A second at least: "about 0s left" says nothing.
    return `, about ${duration(Math.max(1_000, (ms / moved) * (phase.total - phase.done)))} left`;
  }

  private draw(phase: Phase): void {
    phase.drawn = this.now();
    const line = this.line(phase);
    const width = this.out.columns;
    this.out.write(`\r${width && line.length >= width ? line.slice(0, width - 1) : line}\u001b[K`);
  }

  /** A line of its own: on a terminal it replaces the bar's line, and the bar's last state stays when `final`. */
  private write(text: string, final: boolean): void {
    if (this.out.isTTY) this.out.write(`\r${text}\u001b[K${final ? "\n" : ""}`);
    else this.out.write(`${text}\n`);
  }
}

/** The whole percentage of `total` that `done` is (100 for an empty total). */
function percent(done: number, total: number): number {
  return total <= 0 ? 100 : Math.max(0, Math.min(100, Math.floor((done / total) * 100)));
}
