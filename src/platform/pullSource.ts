/**
 * Pulls of the offices' open registers on the platform (src/feed/sources/,
 * docs/sources/): the daily Cron Trigger's start of the pulls an
 * environment configures (pullConfig.ts), and the PullSource Workflow, one
 * instance a pull, in the steps the in-process pull takes
 * (scripts/sources.ts):
 *
 * 1. `begin`: takes over the source's saved position (source_pulls) when
 *    no other pull of the source runs: a pull stopped part-way resumes at
 *    its page, else a new one asks for what changed since the last began.
 *    A pull that finds another running ends at once, having written
 *    nothing.
 * 2. `page N`: one page of the portal's rows, staged, and the position
 *    after it saved. A 429 or 5xx (or a broken connection) makes the step
 *    return its wait, which the instance sleeps (`wait N.T`, its
 *    Retry-After) before `page N try T`; five tries a page. A step that
 *    throws (D1 failing) is retried from the same position: rows staged
 *    twice write nothing.
 * 3. `assemble N`: 500 pending filings assembled and loaded (assemble.ts);
 *    the state's first load is its backfill, begun by the first step.
 * 4. `aggregates N`: the queued debtors refreshed, as after a file load.
 * 5. `finish`: the load recorded (when it found anything: finishLoad,
 *    which completes the backfill) and the pull ended (endPull; one that
 *    found nothing writes nothing and logs `pull_found_nothing`), its
 *    rejects and warnings joined in the feeds bucket, and the webhook
 *    dispatcher nudged when it recorded changes.
 *
 * The daily trigger names each instance by source and day, so a second
 * start the same day finds the first.
 */
import { WorkflowEntrypoint, type WorkflowEvent, type WorkflowStep, type WorkflowStepConfig } from "cloudflare:workers";
import { NonRetryableError } from "cloudflare:workflows";
import { and, eq, isNull } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/database.ts";
import { sourcePulls } from "../db/schema.ts";
import { shardDb } from "../db/shards.ts";
import { emptySummary, sumOf } from "../feed/import.ts";
import { assembleStep, finishLoad } from "../feed/sources/assemble.ts";
import { Unrecognised } from "../feed/sources/codes.ts";
import {
  datasetUrl,
  endPull,
  foundAnything,
  gaveUp,
  movedUnder,
  newPull,
  PAGE_TRIES,
  PullError,
  type PullPosition,
  type PullSummary,
  pagesDone,
  pullState,
  resumePull,
  STEP_PAGE,
  savePosition,
  tryPage,
} from "../feed/sources/pull.ts";
import { SOURCES } from "../feed/sources/registry.ts";
import { SOURCE_IDS, type Source, type SourceId } from "../feed/sources/source.ts";
import { noCounts } from "../feed/sources/stage.ts";
import { logLine } from "../log.ts";
import { nudgeDispatcher } from "../webhooks/worker.ts";
import { pullKey } from "./feedFiles.ts";
import { release } from "./instances.ts";
import { refreshAggregates, shardDatabasesOf } from "./loadFeed.ts";
import { joinProblems, RangeProblems } from "./problems.ts";
import { PullConfigError, portalUrl, pullConfig } from "./pullConfig.ts";

/** Parts of the rejects and warnings are named by step: pages first, then assembly steps from here. */
const ASSEMBLY_PARTS = 1e12;

const day = z.iso.date();

const pullParams = z.object({
  source: z.enum(SOURCE_IDS),
  /** `--since`: the office's day it reads from (else what changed since the last pull). */
  since: day.nullable().default(null),
  /** The portal to read (else SOURCE_PORTALS' or the office's own). */
  portal: portalUrl.optional(),
  /** Rows a page (else STEP_PAGE). */
  pageSize: z.number().int().min(1).max(STEP_PAGE).optional(),
});

export type PullParams = z.input<typeof pullParams>;

/** The instance the daily trigger starts for `source` on the day of `at`. */
export const dailyPullId = (source: SourceId, at: Date) => `pull-${source}-${at.toISOString().slice(0, 10)}`;

/** Saves `position` as the source's if its saved position is still `was` (JSON text, or null for none). */
async function claimPosition(db: Db, source: Source, was: string | null, position: PullPosition): Promise<boolean> {
  await db.insert(sourcePulls).values({ source: source.id }).onConflictDoNothing();
  const saved = await db
    .update(sourcePulls)
    .set({ position: JSON.stringify(position) })
    .where(
      and(
        eq(sourcePulls.source, source.id),
        was === null ? isNull(sourcePulls.position) : eq(sourcePulls.position, was),
      ),
    )
    .returning({ source: sourcePulls.source });
  return saved.length === 1;
}

/** The Workflow instance statuses of a pull that has not ended. */
const LIVE = new Set<InstanceStatus["status"]>(["queued", "running", "paused", "waiting", "waitingForPause"]);

/**
 * Starts the pull of each source the environment pulls, as `dailyPullId`
 * names it (one the day started already is found, not started again). A
 * source that cannot be started is logged and the others still are; a
 * configuration that cannot be read is logged and starts none. Returns the
 * instances started or found.
 */
export async function startDailyPulls(env: Env, at: Date): Promise<string[]> {
  let sources: SourceId[];
  try {
    sources = pullConfig(env).sources;
  } catch (err) {
    if (!(err instanceof PullConfigError)) throw err;
    logLine("error", { event: "pull_config_invalid", error: err.message });
    return [];
  }
  const started: string[] = [];
  for (const source of sources) {
    const id = dailyPullId(source, at);
    try {
      try {
        release(await env.PULL_SOURCE.create({ id, params: { source } }));
        logLine("info", { event: "pull_started", source, pull: id });
      } catch (err) {
        // Started already today (the trigger run twice): that instance is the day's pull.
        const existing = await env.PULL_SOURCE.get(id).catch(() => null);
        if (!existing) throw err;
        release(existing);
        logLine("info", { event: "pull_found", source, pull: id });
      }
      started.push(id);
    } catch (err) {
      logLine("error", {
        event: "pull_start_failed",
        source,
        pull: id,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  }
  return started;
}

/** What a pull read and loaded (its instance's output); `skipped` when another pull of the source was running. */
export type PullOutput = PullSummary & { source: SourceId; skipped?: string };

type Params = z.output<typeof pullParams>;

/** A page step's result: the position after the page, or the wait before its next try. */
type PageResult = { position: PullPosition } | { url: string; problem: string; waitMs: number };

/** Page and assembly steps retry on their own: a D1 hiccup costs the step, never the pull. */
const STEP: WorkflowStepConfig = { retries: { limit: 5, delay: "5 seconds", backoff: "exponential" } };

export class PullSource extends WorkflowEntrypoint<Env, PullParams> {
  override async run(event: Readonly<WorkflowEvent<PullParams>>, step: WorkflowStep): Promise<PullOutput> {
    const params = pullParams.parse(event.payload);
    const source = SOURCES[params.source];
    const id = event.instanceId;
    // The pull's time in every step and after a restart: the loader's "now" and the load's time.
    const now = new Date(event.timestamp);
    const begun = await step.do("begin", () => this.begin(id, source, params));
    if ("running" in begun) {
      const skipped = `another pull of ${source.id} is running: ${begun.running}`;
      return { source: params.source, skipped, rows: noCounts(), pages: 0, filings: emptySummary(), unrecognised: {} };
    }
    let position = begun.position;
    let loaded = emptySummary();
    const unrecognised = new Unrecognised();
    try {
      for (let n = position.pages + 1; !pagesDone(source, position); n++) {
        for (let attempt = 1; ; attempt++) {
          const from = position;
          const name = attempt === 1 ? `page ${n}` : `page ${n} try ${attempt}`;
          const tried = await step.do(name, STEP, () => this.page(id, source, params, from, attempt, now));
          if ("position" in tried) {
            position = tried.position;
            break;
          }
          if (attempt >= PAGE_TRIES) throw new NonRetryableError(gaveUp(tried));
          // Waited out by the instance, not inside a step: Retry-After may be minutes.
          await step.sleep(`wait ${n}.${attempt}`, tried.waitMs);
        }
      }
      for (let n = 1, after = ""; ; n++) {
        const from = after;
        const done = await step.do(`assemble ${n}`, STEP, () => this.assemble(id, source, from, n, now));
        if (done.last === null) break;
        after = done.last;
        loaded = sumOf(loaded, done.summary);
        unrecognised.add(done.unrecognised);
      }
      await refreshAggregates(this.env, step, "aggregates");
      const summary: PullSummary = {
        by: id,
        rows: position.counts,
        pages: position.pages,
        filings: loaded,
        unrecognised: unrecognised.toJSON(),
      };
      const ended = position;
      await step.do("finish", () => this.finish(id, source, params, ended, summary, now));
      return { source: params.source, ...summary };
    } catch (err) {
      const reason = (err instanceof Error ? err.message : String(err)).replace(/^NonRetryableError:?\s*/, "");
      // What was loaded gets its aggregates; the position stays saved, so the next pull resumes at its page.
      await refreshAggregates(this.env, step, "aggregates after the failure").catch(() => {});
      await step.do("record the failure", async () => {
        // Webhooks: what the pull committed before failing is matched too.
        await nudgeDispatcher(this.env.WEBHOOK_DISPATCH, `pull ${source.id}`);
        await joinProblems(this.env.FEEDS, id, pullKey(id), true);
      });
      throw new Error(reason);
    }
  }

  /**
   * Where the pull starts, or the pull of the source already running. The
   * position is claimed only if no other pull saved one since it was read
   * (one UPDATE on the text read), so of two pulls begun at once, one runs.
   */
  private async begin(
    id: string,
    source: Source,
    params: Params,
  ): Promise<{ position: PullPosition } | { running: string }> {
    const db = shardDb(shardDatabasesOf(this.env));
    for (;;) {
      const state = await pullState(db, source);
      const held = state.position;
      if (held?.by && held.by !== id && (await this.isLive(held.by))) return { running: held.by };
      // A pull stopped part-way with the same `since` is resumed at its page (rows read twice write nothing).
      const position: PullPosition = {
        ...(held && held.since === params.since ? resumePull(held) : newPull(params.since, state.changedSince)),
        by: id,
      };
      if (await claimPosition(db, source, state.positionText, position)) return { position };
    }
  }

  private async isLive(id: string): Promise<boolean> {
    try {
      const instance = await this.env.PULL_SOURCE.get(id);
      try {
        return LIVE.has((await instance.status()).status);
      } finally {
        release(instance);
      }
    } catch {
      // No such instance (a restart of this one, or gone past retention): not running.
      return false;
    }
  }

  private portalOf(source: Source, params: Params): string {
    return params.portal ?? pullConfig(this.env).portals[params.source] ?? source.portal;
  }

  private async page(
    id: string,
    source: Source,
    params: Params,
    from: PullPosition,
    attempt: number,
    now: Date,
  ): Promise<PageResult> {
    const db = shardDb(shardDatabasesOf(this.env));
    const problems = new RangeProblems();
    const token: unknown = Reflect.get(this.env, "SOCRATA_APP_TOKEN");
    try {
      const tried = await tryPage(db, source, from, attempt, {
        portal: this.portalOf(source, params),
        pageSize: params.pageSize ?? STEP_PAGE,
        ...(typeof token === "string" && token !== "" ? { appToken: token } : {}),
        now,
        onReject: problems.reject,
      });
      if ("position" in tried) {
        await problems.save(this.env.FEEDS, id, from.pages);
        await savePosition(db, source, tried.position);
        if (movedUnder(from, tried.position)) {
          logLine("warn", {
            event: "pull_dataset_moved",
            source: source.id,
            pull: id,
            table: source.tables[from.table]?.dataset ?? null,
            restarts: tried.position.restarts ?? 0,
          });
        }
      }
      return tried;
    } catch (err) {
      // An answer that is no page (a 4xx): trying again would get the same.
      if (err instanceof PullError) throw new NonRetryableError(err.message);
      throw err;
    }
  }

  private async assemble(id: string, source: Source, after: string, n: number, now: Date) {
    const shards = shardDatabasesOf(this.env);
    const problems = new RangeProblems();
    const unrecognised = new Unrecognised();
    const { summary, last } = await assembleStep(shards, source, after, {
      now,
      // The aggregates are rebuilt by the aggregates steps.
      deferRefresh: true,
      unrecognised,
      onReject: problems.reject,
      onWarning: problems.warn,
    });
    await problems.save(this.env.FEEDS, id, ASSEMBLY_PARTS + n);
    return { summary, last, unrecognised: unrecognised.toJSON() };
  }

  private async finish(
    id: string,
    source: Source,
    params: Params,
    position: PullPosition,
    summary: PullSummary,
    now: Date,
  ): Promise<void> {
    const shards = shardDatabasesOf(this.env);
    const label = `pull ${source.id} ${datasetUrl(source, 0, this.portalOf(source, params)).replace(/\/resource\/.*$/, "")}`;
    // A pull that found nothing records no load, and endPull writes nothing of it.
    if (foundAnything(summary)) await finishLoad(shards, source, label, summary.filings, now);
    if (!(await endPull(shardDb(shards), source, position, summary, now))) {
      logLine("info", { event: "pull_found_nothing", source: source.id, pull: id, rows: summary.rows.rows });
    }
    // Webhooks: the changes the pull recorded are matched now (a backfill records none).
    if (summary.filings.inserted + summary.filings.updated > 0) {
      await nudgeDispatcher(this.env.WEBHOOK_DISPATCH, `pull ${source.id}`);
    }
    await joinProblems(this.env.FEEDS, id, pullKey(id), false);
  }
}
