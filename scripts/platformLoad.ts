/**
 * The import CLI's side of loading on the platform (src/platform/):
 *
 * - `npm run import -- FILE --workflow` against the local `npm start`: the
 *   file goes into the local feeds bucket and a message into the local
 *   feed-events queue (R2 sends no notifications under `wrangler dev`),
 *   both through wrangler's getPlatformProxy over the same persisted state;
 *   its dev registry delivers the message to the running session's
 *   consumer, which starts the load. The instance's status comes from the
 *   session's local explorer API (what `wrangler workflows --local` reads).
 * - `npm run import -- FILE --remote [--env preview]`: the file goes into
 *   the environment's bucket through a remote R2 binding; the load is
 *   started (or found) with `wrangler workflows trigger --id`, as R2's
 *   notification would (whichever comes second finds the instance), and its
 *   status read with `wrangler workflows instances describe`.
 *
 * Either way progress and counts come from the load record in D1
 * (feed_loads), which each step updates; the rejects and warnings are
 * copied from beside the file in the bucket to where a local import writes
 * them. A file whose bytes the bucket holds already (the sha256 its upload
 * put in the object's metadata) is not put again: a put is a load
 * (feedFiles.ts, loadId), so a load of that put that failed is restarted,
 * and resumes from its last checkpoint; one that completed is reported,
 * not run again.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, createReadStream, mkdirSync, openSync, readSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { promisify } from "node:util";
import type { PlatformProxy } from "wrangler";
import type { Db } from "../src/db/database.ts";
import { sourcePulls } from "../src/db/schema.ts";
import { DEFAULT_SHARD, shardDb } from "../src/db/shards.ts";
import { emptySummary, type ImportSummary } from "../src/feed/import.ts";
import { readLines } from "../src/feed/lines.ts";
import type { Place } from "../src/feed/read.ts";
import type { PullPosition, PullSummary } from "../src/feed/sources/pull.ts";
import { keyFor, loadId, type Problems, problemsKey } from "../src/platform/feedFiles.ts";
import type { LoadParams } from "../src/platform/loadFeed.ts";
import { type LoadRecord, readLoad, recentLoads } from "../src/platform/loadRecord.ts";
import type { PullOutput, PullParams } from "../src/platform/pullSource.ts";
import { describeTarget, openShards, type Target } from "./feedDb.ts";
import { type LinesWriter, number, rowsLine, summaryLine } from "./importOutput.ts";
import { LoadFollower } from "./loadFollower.ts";
import { Progress } from "./progress.ts";
import { CONFIG, wranglerConfig } from "./shardConfig.ts";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Multipart upload parts (R2: at least 5 MiB, all but the last the same size). */
const PART_BYTES = 16 * 1024 * 1024;

/** The feeds bucket, feed-events queue and LoadFeed workflow of an environment (the top level: local). */
async function feedsConfig(env: string | undefined) {
  const config = await wranglerConfig(env);
  const where = `${CONFIG}${env ? ` [env.${env}]` : ""}`;
  const bucket = config.r2_buckets.find((b) => b.binding === "FEEDS")?.bucket_name;
  const queue = config.queues.consumers?.[0]?.queue;
  const workflowOf = (binding: string) => config.workflows.find((w) => w.binding === binding)?.name;
  const workflow = workflowOf("LOAD_FEED");
  const pullWorkflow = workflowOf("PULL_SOURCE");
  if (!bucket || !queue || !workflow || !pullWorkflow) {
    throw new Error(`${where} lacks the FEEDS bucket, its queue, LOAD_FEED or PULL_SOURCE`);
  }
  return {
    name: config.name ?? "worker",
    compatibilityDate: config.compatibility_date,
    bucket,
    queue,
    workflow,
    pullWorkflow,
  };
}

/** A Workflow instance's state, as the local explorer API or wrangler's --json gives it. */
export interface InstanceState<Output = ImportSummary> {
  status: string;
  /** When its (last) run started: a restart changes it. */
  start?: string;
  error?: string;
  output?: Output;
}

function instanceState(value: unknown): InstanceState | null {
  const body = (value as { result?: unknown })?.result ?? value;
  if (typeof body !== "object" || body === null || !("status" in body)) return null;
  const { status, start, error, output } = body as {
    status: string;
    start?: unknown;
    error?: unknown;
    output?: unknown;
  };
  const message =
    typeof error === "string" ? error : ((error as { message?: string } | null | undefined)?.message ?? undefined);
  return {
    status,
    ...(typeof start === "string" ? { start } : {}),
    ...(message ? { error: message } : {}),
    ...(output && typeof output === "object" ? { output: output as ImportSummary } : {}),
  };
}

/** The local explorer API of `workflow` in the `npm start` session on `port` (what `wrangler workflows --local` reads). */
const explorerApi = (port: number, workflow: string) =>
  `http://127.0.0.1:${port}/cdn-cgi/local/explorer/api/workflows/${encodeURIComponent(workflow)}`;

/**
 * The PullSource instance `id` as the local `npm start` session on `port`
 * knows it: its state, null when the session serves the Workflow but has
 * no such instance, undefined when no session there serves it.
 */
export async function localPullInstance(
  port: number,
  id: string,
): Promise<InstanceState<PullOutput> | null | undefined> {
  const api = explorerApi(port, (await feedsConfig(undefined)).pullWorkflow);
  if (!(await fetch(api).catch(() => null))?.ok) return undefined;
  return (await explorerInstance(api, id)) as InstanceState<PullOutput> | null;
}

/**
 * Instance `id` as the local explorer API at `api` has it: null when it
 * answers 404 (no such instance yet), an error when it answers otherwise,
 * which a follower takes as no answer, never as "not started".
 */
async function explorerInstance(api: string, id: string): Promise<InstanceState | null> {
  const res = await fetch(`${api}/instances/${encodeURIComponent(id)}`);
  if (res.status === 404) return null;
  if (!res.ok)
    throw new Error(`the local session answered ${res.status} for instance ${id}: ${(await res.text()).slice(0, 200)}`);
  return instanceState(await res.json());
}

/** An environment's feeds bucket, load starter and load records. */
export interface Platform {
  describe: string;
  /** The feeds bucket (its proxy started at the first call). */
  bucket(): Promise<R2Bucket>;
  db: Db;
  /** How often to ask for an instance's status (each remote ask runs wrangler). */
  statusEvery: number;
  start(params: LoadParams, id: string): Promise<void>;
  instance(id: string): Promise<InstanceState | null>;
  restart(id: string): Promise<void>;
  /** Starts the pull `id` (src/platform/pullSource.ts) with `params`. */
  startPull(params: PullParams, id: string): Promise<void>;
  pullInstance(id: string): Promise<InstanceState<PullOutput> | null>;
  dispose(): Promise<void>;
}

/**
 * The platform of `target`: local (the `npm start` session on `port`, over
 * the state in target.persistTo) or a deployed environment.
 */
export async function openPlatform(target: Target, port: number): Promise<Platform> {
  const env = target.remote ? (target.env ?? "production") : undefined;
  const feeds = await feedsConfig(env);
  const api = explorerApi(port, feeds.workflow);
  const pullApi = explorerApi(port, feeds.pullWorkflow);
  if (!env && !(await fetch(api).catch(() => null))?.ok) {
    throw new Error(`no local session serves the ${feeds.workflow} Workflow on port ${port}: run npm start first`);
  }
  const dir = resolve(".wrangler/tmp/feed-platform");
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, `${env ?? "local"}.json`);
  writeFileSync(
    configPath,
    JSON.stringify({
      // Not the Worker's name: the proxy must not stand in for the session in the dev registry.
      name: "lien-import-cli",
      compatibility_date: feeds.compatibilityDate,
      r2_buckets: [{ binding: "FEEDS", bucket_name: feeds.bucket, ...(env ? { remote: true } : {}) }],
      ...(env ? {} : { queues: { producers: [{ binding: "FEED_EVENTS", queue: feeds.queue }] } }),
    }),
  );
  // The bucket and queue come through a local runtime of wrangler's, started only when a command
  // puts or reads a file or sends a message: asking for a status needs neither (about 4 s of CPU).
  let proxy: Promise<PlatformProxy<{ FEEDS: R2Bucket; FEED_EVENTS: Queue }>> | undefined;
  const bindings = async () => {
    proxy ??= import("wrangler").then(({ getPlatformProxy }) =>
      getPlatformProxy<{ FEEDS: R2Bucket; FEED_EVENTS: Queue }>({
        configPath,
        ...(env ? { remoteBindings: true } : { persist: { path: join(target.persistTo ?? ".wrangler/state", "v3") } }),
      }),
    );
    return (await proxy).env;
  };
  const bucket = async () => (await bindings()).FEEDS;
  const shards = await openShards(target, [DEFAULT_SHARD]);
  const db = shardDb(shards.shards);
  const dispose = async () => {
    await shards.dispose();
    await (await proxy?.catch(() => undefined))?.dispose();
  };
  if (env) {
    const wrangler = async (args: string[]) =>
      (await run("wrangler", [...args, "--env", env], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })).stdout;
    const describe = async (workflow: string, id: string) => {
      try {
        return instanceState(
          JSON.parse(await wrangler(["workflows", "instances", "describe", workflow, id, "--json"])),
        );
      } catch {
        return null;
      }
    };
    const instance = (id: string) => describe(feeds.workflow, id);
    return {
      describe: `the ${env} Workflow ${feeds.workflow}`,
      bucket,
      db,
      statusEvery: 5_000,
      start: async (params, id) => {
        try {
          await wrangler(["workflows", "trigger", feeds.workflow, JSON.stringify(params), "--id", id, "--json"]);
        } catch (err) {
          // R2's notification may have started it first.
          if (!(await instance(id))) throw err;
        }
      },
      instance,
      restart: async (id) => {
        await wrangler(["workflows", "instances", "restart", feeds.workflow, id]);
      },
      startPull: async (params, id) => {
        await wrangler(["workflows", "trigger", feeds.pullWorkflow, JSON.stringify(params), "--id", id, "--json"]);
      },
      pullInstance: (id) => describe(feeds.pullWorkflow, id) as Promise<InstanceState<PullOutput> | null>,
      dispose,
    };
  }
  return {
    describe: `the local session on port ${port}`,
    bucket,
    db,
    statusEvery: 500,
    start: async (params) => {
      // The message R2's notification would send.
      await (await bindings()).FEED_EVENTS.send({
        action: "PutObject",
        bucket: feeds.bucket,
        object: { key: params.key, size: params.size, eTag: params.etag },
        eventTime: new Date().toISOString(),
      });
    },
    instance: (id) => explorerInstance(api, id),
    restart: async (id) => {
      const res = await fetch(`${api}/instances/${encodeURIComponent(id)}/status`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ status: "restart" }),
      });
      if (!res.ok) throw new Error(`restarting ${id}: ${res.status} ${await res.text()}`);
    },
    startPull: async (params, id) => {
      // What `wrangler workflows trigger` does remotely: the local explorer API creates the instance.
      const res = await fetch(`${pullApi}/instances`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ id, params }),
      });
      if (!res.ok) throw new Error(`starting ${id}: ${res.status} ${await res.text()}`);
    },
    pullInstance: async (id) => (await explorerInstance(pullApi, id)) as InstanceState<PullOutput> | null,
    dispose,
  };
}

/** The sha256 of a local file, hex. */
async function sha256Of(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * Puts `file` under `key`: in one request, or in parts when large, never
 * whole in memory; unless the object there has its bytes and declaration
 * already (that put, and its load, are the file's): each put is a load.
 */
async function upload(bucket: R2Bucket, file: string, key: string, declared?: "yes" | "force"): Promise<R2Object> {
  const sha256 = await sha256Of(file);
  const held = await bucket.head(key);
  if (held?.customMetadata?.sha256 === sha256 && held.customMetadata.backfill === declared) return held;
  // What the CLI's --backfill says travels with the file (src/platform/loadFeed.ts reads it).
  const options = { customMetadata: { sha256, ...(declared ? { backfill: declared } : {}) } };
  const size = statSync(file).size;
  const fd = openSync(file, "r");
  const part = (n: number) => {
    const bytes = new Uint8Array(Math.min(PART_BYTES, size - n * PART_BYTES));
    readSync(fd, bytes, 0, bytes.length, n * PART_BYTES);
    return bytes;
  };
  try {
    if (size <= PART_BYTES) {
      const object = await bucket.put(key, part(0), options);
      if (!object) throw new Error(`${key} was not written`);
      return object;
    }
    const multipart = await bucket.createMultipartUpload(key, options);
    try {
      const parts: R2UploadedPart[] = [];
      for (let n = 0; n * PART_BYTES < size; n++) parts.push(await multipart.uploadPart(n + 1, part(n)));
      return await multipart.complete(parts);
    } catch (err) {
      await multipart.abort().catch(() => {});
      throw err;
    }
  } finally {
    closeSync(fd);
  }
}

/** Copies the load's rejects or warnings from the bucket to `writer`, as lines of the local `file`. */
async function copyProblems(bucket: R2Bucket, key: string, file: string, kind: Problems, writer: LinesWriter) {
  writer.clear(file);
  const object = await bucket.get(problemsKey(kind, key));
  if (!object) return;
  for await (const { text } of readLines(object.body)) {
    if (text !== "") await writer.write({ ...(JSON.parse(text) as Place), file });
  }
}

const FINAL = new Set(["complete", "errored", "terminated"]);

/**
 * A Workflow instance's status asked every `every` ms beside a follower's
 * reads of its progress, never between them: the local session answers
 * only between the Workflow's steps (a range takes seconds) and `wrangler
 * workflows instances describe` takes seconds itself. Each call waits `ms`
 * (the follower's pause) for the answer to the question out, and returns
 * it if it came. A question that fails is no answer: it is asked again
 * after `every`, and `error()` says how the last one failed.
 */
export function statusPoll<State>(ask: () => Promise<State>, every: number) {
  let asking: Promise<{ state: State } | undefined> | undefined;
  let asked = Number.NEGATIVE_INFINITY;
  let failed: string | undefined;
  const poll = async (ms: number): Promise<{ state: State } | undefined> => {
    if (!asking && Date.now() - asked >= every) {
      asked = Date.now();
      const question = ask().then(
        (state) => {
          failed = undefined;
          return { state };
        },
        (err: unknown) => {
          failed = err instanceof Error ? err.message : String(err);
          return undefined;
        },
      );
      asking = question;
      // Settled, it is no longer out (this runs before the race below sees it).
      void question.then(() => {
        if (asking === question) asking = undefined;
      });
    }
    const pause = sleep(ms).then(() => undefined);
    return asking ? Promise.race([asking, pause]) : pause;
  };
  return Object.assign(poll, { error: () => failed });
}

/** How long a followed load may show no sign before its record exists, and after (its steps may be long). */
const UNSTARTED_MS = 60_000;
const UNMOVED_MS = 300_000;

/**
 * Whether a followed Workflow has shown no sign for long: neither a status
 * of its instance nor a move of the progress it records as it goes. The
 * record counts, so a session slow to answer for a running instance (a
 * busy machine, a Worker paused by a debugger) does not make the load
 * look unstarted.
 */
export function signsOf(now = () => Date.now()) {
  let last = now();
  let seen: string | undefined;
  return {
    /** The progress record as it reads now (undefined while there is none). */
    progress(reading: string | undefined) {
      if (reading !== seen) {
        seen = reading;
        last = now();
      }
    },
    /** The instance's status came. */
    answered() {
      last = now();
    },
    silent: () => now() - last > (seen === undefined ? UNSTARTED_MS : UNMOVED_MS),
    /** What the follower says when `what` is silent on `where`: which silence, and the last failed question. */
    silence(what: string, where: string, failed: string | undefined): Error {
      const why = failed ? ` (its last answer: ${failed})` : "";
      return new Error(
        seen === undefined
          ? `${what} did not start within a minute on ${where}${why}`
          : `${what} has not moved for five minutes, and ${where} has not said how it stands${why}`,
      );
    },
  };
}

export interface PlatformResult {
  summary: ImportSummary;
  /** Why the load failed, if it did. */
  error?: string;
  /** The load that had loaded these bytes already (this run loaded nothing), and when it ended. */
  loadedBefore?: { id: string; at: string };
  ms: number;
}

/**
 * Loads `file` on `platform`: uploads it, starts (or finds, or restarts)
 * its load and follows it to its end. A file whose bytes were loaded
 * already is not loaded again: the result says so, with that load's
 * summary.
 */
export async function loadOnPlatform(
  platform: Platform,
  file: string,
  defaultState: string | undefined,
  outputs: { rejects: LinesWriter; warnings: LinesWriter },
  declared?: "yes" | "force",
): Promise<PlatformResult> {
  const key = keyFor(basename(file), defaultState);
  const object = await upload(await platform.bucket(), file, key, declared);
  const id = await loadId(key, object.etag, object.uploaded);
  const params: LoadParams = { key, etag: object.etag, size: object.size };
  const existing = await platform.instance(id);
  if (!existing) {
    console.error(`  ${file}: put as ${key} (${number(object.size)} bytes); starting load ${id}`);
    await platform.start(params, id);
  } else if (existing.status === "errored" || existing.status === "terminated") {
    console.error(`  ${file}: its load ${id} failed (${existing.error ?? existing.status}); restarting it`);
    await platform.restart(id);
    // Until the restart shows (a new start), the instance still says how it ended before.
    for (let i = 0; i < 120; i++) {
      const now = await platform.instance(id);
      if (!now || !FINAL.has(now.status) || now.start !== existing.start) break;
      await sleep(250);
    }
  } else if (existing.status === "complete") {
    const record = await readLoad(platform.db, id);
    const summary = existing.output ?? record?.summary ?? emptySummary();
    const bucket = await platform.bucket();
    await copyProblems(bucket, key, file, "rejects", outputs.rejects);
    await copyProblems(bucket, key, file, "warnings", outputs.warnings);
    return { summary, ms: 0, loadedBefore: { id, at: record?.updatedAt ?? existing.start ?? "an earlier run" } };
  } else {
    console.error(`  ${file}: these bytes are loading already, ${id} (${existing.status}): following that load`);
  }
  const started = Date.now();
  const follower = new LoadFollower(new Progress(file), object.size);
  let record: LoadRecord | undefined;
  let state: InstanceState | null = null;
  const status = statusPoll(() => platform.instance(id), platform.statusEvery);
  const signs = signsOf();
  for (;;) {
    record = await readLoad(platform.db, id);
    follower.show(record);
    signs.progress(record && `${record.updatedAt} ${JSON.stringify(record.checkpoint)}`);
    const answer = await status(250);
    if (answer?.state) {
      state = answer.state;
      signs.answered();
      if (FINAL.has(state.status)) break;
    } else if (signs.silent()) {
      follower.end(record);
      throw signs.silence(`the load of ${key}`, platform.describe, status.error());
    }
  }
  record = await readLoad(platform.db, id);
  follower.end(record);
  const bucket = await platform.bucket();
  await copyProblems(bucket, key, file, "rejects", outputs.rejects);
  await copyProblems(bucket, key, file, "warnings", outputs.warnings);
  const summary = state?.output ?? record?.summary ?? emptySummary();
  const ms = Date.now() - started;
  if (state?.status === "complete") return { summary, ms };
  return { summary, ms, error: state?.error ?? `the load ended ${state?.status}` };
}

/**
 * `npm run import -- --status`: the recent loads of the platform, newest
 * first, each with its Workflow instance's status (and error), asked of
 * the local session on `port` or of the deployed environment.
 */
export async function printStatus(target: Target, port: number, limit = 20): Promise<void> {
  const { shards, dispose } = await openShards(target, [DEFAULT_SHARD]);
  let platform: Platform | undefined;
  let unknown: string | undefined;
  try {
    platform = await openPlatform(target, port);
  } catch (err) {
    unknown = (err as Error).message;
  }
  try {
    const loads = await recentLoads(shardDb(shards), limit);
    console.log(`Loads on the platform, from the ${describeTarget(target)} (newest first):`);
    if (unknown) console.log(`  (their status is unknown: ${unknown})`);
    if (loads.length === 0) console.log("  none yet");
    for (const load of loads) {
      const state = platform ? await platform.instance(load.id) : null;
      const pct = load.bytes === 0 ? 100 : Math.floor((load.checkpoint.done / load.bytes) * 100);
      const seconds = (Date.parse(load.updatedAt) - Date.parse(load.startedAt)) / 1000;
      console.log(
        `${load.startedAt}  ${(state?.status ?? "unknown").padEnd(9)} ${String(pct).padStart(3)}%  ${load.key}  (${load.id})`,
      );
      console.log(`  ${summaryLine(load.summary)}; ${seconds.toLocaleString("en-US")}s to the last step`);
      if (state?.error) console.log(`  error: ${state.error}`);
    }
    await printPulls(shardDb(shards), platform);
  } finally {
    await platform?.dispose();
    await dispose();
  }
}

/**
 * The pulls of each office's register (source_pulls): the one under way or
 * stopped part-way (its saved position: pages and rows so far), and the
 * last that ended, each with its PullSource instance's status and error.
 */
async function printPulls(db: Db, platform: Platform | undefined): Promise<void> {
  const rows = await db.select().from(sourcePulls).orderBy(sourcePulls.source);
  console.log("Pulls of the offices' registers (src/platform/pullSource.ts):");
  if (rows.length === 0) console.log("  none yet");
  const status = async (id: string | undefined) => (id && platform ? await platform.pullInstance(id) : null);
  for (const row of rows) {
    const position = row.position ? (JSON.parse(row.position) as PullPosition) : null;
    const last = row.summary ? (JSON.parse(row.summary) as PullSummary) : null;
    if (position) {
      const state = await status(position.by);
      const how = position.by ? (state?.status ?? "unknown") : "in-process";
      console.log(
        `${row.source}  ${how.padEnd(9)} page ${number(position.pages)}  ${position.by ?? "(npm run import --pull)"}`,
      );
      console.log(`  ${rowsLine(position.counts)} so far; its next page resumes it`);
      if (state?.error) console.log(`  error: ${state.error}`);
    }
    if (last) {
      const state = await status(last.by);
      console.log(
        `${row.source}  ${(last.by ? (state?.status ?? "unknown") : "ended").padEnd(9)} at ${row.pulledAt ?? "?"}  ${last.by ?? "(npm run import --pull)"}`,
      );
      console.log(`  ${rowsLine(last.rows)} in ${number(last.pages)} pages; ${summaryLine(last.filings)}`);
    }
  }
}
