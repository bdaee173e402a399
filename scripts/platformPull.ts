/**
 * `npm run import -- --source ct --pull --workflow|--remote`: the pull run
 * by the PullSource Workflow (src/platform/pullSource.ts) of the local
 * `npm start` session (started through its local explorer API) or of a
 * deployed environment (`wrangler workflows trigger`), followed to its end
 * as scripts/sources.ts shows an in-process pull: a line a page from the
 * position the pull saves (source_pulls), then its instance's output, and
 * its rejects and warnings copied from the feeds bucket. A pull of the
 * source already running (the daily one) is followed rather than joined by
 * another.
 */
import { readLines } from "../src/feed/lines.ts";
import type { Place } from "../src/feed/read.ts";
import { Unrecognised } from "../src/feed/sources/codes.ts";
import { type PullPosition, pagesDone, pullState } from "../src/feed/sources/pull.ts";
import type { Source } from "../src/feed/sources/source.ts";
import { type Problems, problemsKey, pullKey } from "../src/platform/feedFiles.ts";
import type { PullOutput, PullParams } from "../src/platform/pullSource.ts";
import type { Target } from "./feedDb.ts";
import { type LinesWriter, number, rowsLine, summaryLine } from "./importOutput.ts";
import {
  type InstanceState,
  localPullInstance,
  openPlatform,
  type Platform,
  signsOf,
  statusPoll,
} from "./platformLoad.ts";

const FINAL = new Set(["complete", "errored", "terminated"]);

/** A new pull's instance id: the source and the time, to the second (the daily one's is the source and day). */
const pullId = (source: Source, at: Date) =>
  `pull-${source.id}-${at.toISOString().replace(/[-:]/g, "").replace(/\..*$/, "").replace("T", "-")}`;

/** Copies the pull's rejects or warnings from the feeds bucket to `writer` (one file for the pull). */
async function copyProblems(platform: Platform, id: string, kind: Problems, writer: LinesWriter) {
  const object = await (await platform.bucket()).get(problemsKey(kind, pullKey(id)));
  if (!object) return;
  for await (const { text } of readLines(object.body)) {
    if (text !== "") await writer.write(JSON.parse(text) as Place);
  }
}

/**
 * Whether the Workflow pull `id` (named by a source's saved position) runs
 * in the local session on `port`: `ended` (the session has it ended, or
 * does not know it), `running` (with its status), or `unknown` when no
 * session there serves the Workflow: it may run in one not started yet,
 * or on another port.
 */
export async function localPullRunning(
  port: number,
  id: string,
): Promise<{ is: "ended" | "unknown" } | { is: "running"; status: string }> {
  const state = await localPullInstance(port, id);
  if (state === undefined) return { is: "unknown" };
  if (state === null || FINAL.has(state.status)) return { is: "ended" };
  return { is: "running", status: state.status };
}

/** The pull of `source` whose instance has not ended, if its saved position names one. */
async function runningPull(platform: Platform, source: Source): Promise<string | null> {
  const { position } = await pullState(platform.db, source);
  if (!position?.by) return null;
  const state = await platform.pullInstance(position.by);
  return state && !FINAL.has(state.status) ? position.by : null;
}

/**
 * Runs the pull of `source` with `params` on the platform of `target` and
 * follows it; returns the exit status (0, 3 with rejects, 1 failed).
 */
export async function pullOnPlatform(
  target: Target,
  port: number,
  source: Source,
  params: PullParams,
  outputs: { rejects: LinesWriter; warnings: LinesWriter },
): Promise<number> {
  const platform = await openPlatform(target, port);
  try {
    const started = Date.now();
    let id = await runningPull(platform, source);
    if (id) console.error(`  a pull of ${source.id} is running already, ${id}: following it`);
    else {
      id = pullId(source, new Date(started));
      console.error(`  starting ${id} on ${platform.describe}`);
      await platform.startPull(params, id);
    }
    let state: InstanceState<PullOutput> | null = null;
    let shown: PullPosition | null = null;
    let assembling = false;
    const status = statusPoll(() => platform.pullInstance(id), platform.statusEvery);
    const signs = signsOf();
    for (;;) {
      const { position } = await pullState(platform.db, source);
      signs.progress(position?.by === id ? JSON.stringify(position) : undefined);
      if (position?.by === id && position.pages !== shown?.pages) {
        shown = position;
        const table = source.tables[Math.min(position.table, source.tables.length - 1)]?.title;
        if (position.pages > 0)
          console.error(`  ${table}: page ${number(position.pages)}: ${rowsLine(position.counts)} so far`);
        if (pagesDone(source, position) && !assembling) {
          assembling = true;
          console.error("  assembling and loading the filings...");
        }
      }
      const answer = await status(250);
      if (answer?.state) {
        state = answer.state;
        signs.answered();
        if (FINAL.has(state.status)) break;
      } else if (signs.silent()) throw signs.silence(id, platform.describe, status.error());
    }
    if (!state) throw new Error(`${id} has no status`);
    await copyProblems(platform, id, "rejects", outputs.rejects);
    await copyProblems(platform, id, "warnings", outputs.warnings);
    const output = state.output;
    if (state.status !== "complete" || !output) {
      console.error(`\nImport failed: ${state.error ?? `the pull ended ${state.status}`}`);
      console.error("The rows read so far are staged; the next pull of the source resumes at the page it stopped on.");
      return 1;
    }
    if (output.skipped) {
      console.error(`  ${output.skipped}: this pull read nothing`);
      return 0;
    }
    const ms = Date.now() - started;
    console.log(`Rows: ${rowsLine(output.rows)}`);
    console.log(`Imported: ${summaryLine(output.filings, ms)}`);
    const unrecognised = new Unrecognised();
    unrecognised.add(output.unrecognised);
    if (unrecognised.size > 0) {
      console.log(`Not recognised (kept as the office's words or read by a general rule): ${unrecognised.describe()}`);
    }
    return output.rows.rejected + output.filings.rejected > 0 ? 3 : 0;
  } finally {
    await platform.dispose();
  }
}
