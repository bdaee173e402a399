/**
 * `npm run bench -- --in-worker`: what the service's code costs per request
 * on the runtime it runs on, read precisely. The app runs in workerd
 * (bench/worker) and answers each endpoint's requests many times over inside
 * one request; workerd's CPU for that one request, divided by the requests
 * it answered, is read from /proc, so neither a driven server's spread nor
 * Node's older V8 (a slower JSON.stringify, among others) is in the figure.
 *
 * Five loops per endpoint, TRIALS trials of each:
 * - app: the app with every statement answered from memory (the rows the
 *   benchmark read beforehand): our own code and the runtime calls it
 *   makes (Request, Response, Headers, crypto), no SQL and no D1 client;
 * - bare: the loop's own request and response, without the app;
 * - d1: the app on the local D1 databases themselves;
 * - replay: the request's statements sent to the same databases as
 *   bench/replay sends them, and their rows made JSON;
 * - after: the replay, then the app from memory: our code run just after
 *   D1's, as it runs on D1.
 * `ours` is app less bare, the least trial of each (neither touches D1, so
 * the least is the cleanest reading). `beyond replay` is d1 less replay: the
 * goal's figure (at most 1 ms), read in one isolate with the same bindings,
 * so the two sides differ only in what the service adds to its SQL. Local
 * D1 drifts by milliseconds within a trial, so d1, replay and after take
 * turns every repeat / SLICES passes and each is summed over its turns; the
 * figure is the middle trial's difference, with the trials' spread beside
 * it. `share` is the replay over d1 (the goal: at least 0.8). `ours after
 * D1` is after less replay: our code with D1's work between its requests,
 * as in d1. Local D1 runs on workerd's thread (SQLite and its object's
 * isolate), so what it leaves in the CPU's caches makes our code cost
 * there about 1.5 to 4 times its cost in the app loop, where it runs alone:
 * that, not the D1 client, is most of beyond replay (CPU.md).
 */

import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { DatabaseSync, SQLInputValue, SQLOutputValue } from "node:sqlite";
import type { unstable_readConfig } from "wrangler";
import { keepBundle, profiled } from "./cpuProfile.ts";
import { shareLocalD1, startDevServer, stopDevServer, workerdCpuMs } from "./devServer.ts";
import { median } from "./stats.ts";

/** A request's statements: rounds of D1 batches, one per shard read (as bench/replay takes them). */
type Rounds = { binding: string; statements: { sql: string; params: SQLInputValue[] }[] }[][];

type Mode = "app" | "bare" | "d1" | "replay" | "after";

const TRIALS = 7;
/** Turns a trial takes at each loop: d1, replay and after alternate every repeat / SLICES passes. */
const SLICES = 8;

export interface InWorkerOptions {
  endpoints: { endpoint: string; paths: string[] }[];
  /** Each path's statements, as the in-process app sent them. */
  captured: Map<string, Rounds>;
  databases: { binding: string; file: string; db: DatabaseSync }[];
  config: ReturnType<typeof unstable_readConfig>;
  /** The key the requests carry (the Worker's key store accepts any). */
  key: string;
  /** Passes over an endpoint's requests per trial. */
  repeat: number;
  port: number;
  /** Keep the request log line (off otherwise, as in the driven benchmark). */
  requestLog: boolean;
  /** Where to keep a CPU profile of each loop, when given. */
  profileDir: string | undefined;
  filings: number;
}

/**
 * A row as D1 sends it over JSON: a blob (a Uint8Array from node:sqlite,
 * which JSON would make an object of numbered keys that reads as no bytes)
 * as the array of its byte values, one of the forms D1 hands a blob back
 * in (src/db/encodings.ts, addressKeySet). Without it the app loop decoded
 * no address keys and understated the known-address lookup's own cost.
 */
export function asSent(row: Record<string, SQLOutputValue>): Record<string, unknown> {
  const sent: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row))
    sent[column] = ArrayBuffer.isView(value) ? Array.from(value) : value;
  return sent;
}

export async function inWorkerCpu(o: InWorkerOptions): Promise<void> {
  // Each statement's rows, by binding (every shard's, read or not: the app checks the whole layout).
  const rows: Record<string, Record<string, unknown[]>> = Object.fromEntries(o.databases.map((d) => [d.binding, {}]));
  for (const rounds of o.captured.values()) {
    for (const { binding, statements } of rounds.flat()) {
      const db = o.databases.find((d) => d.binding === binding)?.db;
      const known = rows[binding];
      if (!db || !known) throw new Error(`no database ${binding}`);
      for (const { sql, params } of statements)
        known[`${sql}\u0000${JSON.stringify(params)}`] ??= db
          .prepare(sql)
          .all(...params)
          .map(asSent);
    }
  }
  const vars = o.requestLog ? (o.config.vars ?? {}) : { ...o.config.vars, REQUEST_LOG_SAMPLE: "0" };
  const dir = resolve(".wrangler/bench-worker");
  const state = join(dir, "state");
  shareLocalD1(state, o.databases[0]?.file ?? "");
  const workerConfig = {
    name: "lien-bench-worker",
    main: resolve("bench/worker/index.ts"),
    compatibility_date: o.config.compatibility_date,
    compatibility_flags: o.config.compatibility_flags,
    keep_names: o.config.keep_names,
    d1_databases: (o.config.d1_databases as { binding: string; database_name?: string; database_id?: string }[]).map(
      ({ binding, database_name, database_id }) => ({ binding, database_name, database_id }),
    ),
  };
  writeFileSync(join(dir, "wrangler.json"), JSON.stringify(workerConfig, null, 2));
  const base = `http://127.0.0.1:${o.port}`;
  const inspectorPort = o.profileDir ? o.port + 1000 : undefined;
  const server = startDevServer(o.port, inspectorPort, ["--config", join(dir, "wrangler.json"), "--persist-to", state]);
  try {
    const paths = Object.fromEntries(o.endpoints.map(({ endpoint, paths }) => [endpoint, paths]));
    const body = JSON.stringify({ vars, rows, paths, rounds: Object.fromEntries(o.captured), key: o.key });
    const put = async () => {
      for (let i = 0; ; i++) {
        if (server.exitCode !== null || i > 120) throw new Error("bench/worker did not start");
        const sent = await fetch(base, { method: "PUT", body }).catch(() => undefined);
        if (sent?.status === 204) return;
        await new Promise((r) => setTimeout(r, 500));
      }
    };
    await put();
    const run = async (endpoint: string, passes: number, mode: Mode) => {
      const url = `${base}/run?endpoint=${encodeURIComponent(endpoint)}&passes=${passes}&mode=${mode}`;
      let before = workerdCpuMs(server.pid ?? 0);
      let res = await fetch(url);
      if (res.status === 404) {
        // wrangler dev reloaded the Worker (a source file changed) and it lost what was PUT: send it again.
        await res.arrayBuffer();
        await put();
        before = workerdCpuMs(server.pid ?? 0);
        res = await fetch(url);
      }
      const cpuMs = workerdCpuMs(server.pid ?? 0) - before;
      const { answered, failed } = (await res.json()) as { answered: number; failed: string[] };
      if (failed.length > 0) throw new Error(`in-Worker ${endpoint} (${mode}): ${failed.join("; ")}`);
      return { cpuMs, answered };
    };
    /** ms a request of d1, replay and after over `repeat` passes, in SLICES turns so that local D1's drift falls on each alike. */
    const inTurns = async (endpoint: string) => {
      const modes = ["d1", "replay", "after"] as const;
      const cpuMs = { d1: 0, replay: 0, after: 0 };
      const answered = { d1: 0, replay: 0, after: 0 };
      const passes = Math.max(1, Math.round(o.repeat / SLICES));
      for (let slice = 0; slice < SLICES; slice++) {
        for (let i = 0; i < modes.length; i++) {
          const mode = modes[(slice + i) % modes.length] ?? "d1";
          const turn = await run(endpoint, passes, mode);
          cpuMs[mode] += turn.cpuMs;
          answered[mode] += turn.answered;
        }
      }
      return {
        d1: cpuMs.d1 / answered.d1,
        replay: cpuMs.replay / answered.replay,
        after: cpuMs.after / answered.after,
      };
    };
    /** ms a request of `mode` over `repeat` passes, in one run. */
    const once = async (endpoint: string, mode: Mode) => {
      const { cpuMs, answered } = await run(endpoint, o.repeat, mode);
      return cpuMs / answered;
    };
    console.log(
      `CPU per request in workerd (bench/worker), ${o.filings.toLocaleString("en-US")} filings; ${TRIALS} trials of ${o.repeat} passes over each endpoint's requests, in one isolate (app and bare: the least trial; the rest: the middle trial):`,
    );
    console.log(
      "endpoint                            requests   app ms  bare ms  ours ms    d1 ms replay ms beyond ms  share   beyond, by trial  ours after D1",
    );
    for (const { endpoint, paths: list } of o.endpoints) {
      await run(endpoint, 2, "app");
      await run(endpoint, 2, "d1");
      let app = Infinity;
      let bare = Infinity;
      const trials: Awaited<ReturnType<typeof inTurns>>[] = [];
      for (let trial = 0; trial < TRIALS; trial++) {
        // Neither touches D1: one run each, the least trial kept.
        app = Math.min(app, await once(endpoint, "app"));
        bare = Math.min(bare, await once(endpoint, "bare"));
        trials.push(await inTurns(endpoint));
      }
      const beyond = trials.map((t) => t.d1 - t.replay);
      const d1 = median(trials.map((t) => t.d1));
      const replay = median(trials.map((t) => t.replay));
      const cells = [app, bare, app - bare, d1, replay, median(beyond)];
      const spread = `${Math.min(...beyond).toFixed(2)} to ${Math.max(...beyond).toFixed(2)}`;
      const after = median(trials.map((t) => t.after - t.replay));
      process.stdout.write(
        `${endpoint.padEnd(35)} ${String(o.repeat * list.length).padStart(8)} ${cells.map((v) => v.toFixed(3).padStart(8)).join(" ")} ${(replay / d1).toFixed(2).padStart(6)}   ${spread.padEnd(16)} ${after.toFixed(3).padStart(8)}\n`,
      );
      if (o.profileDir && inspectorPort) {
        // Each loop once more with the Worker's CPU profiler on, kept for Chrome's DevTools.
        mkdirSync(o.profileDir, { recursive: true });
        for (const mode of ["app", "d1", "replay", "after"] as const) {
          const { profile } = await profiled(inspectorPort, () => run(endpoint, o.repeat, mode));
          const file = `in-worker-${mode}${endpoint.replaceAll("/", "_")}.cpuprofile`;
          writeFileSync(join(o.profileDir, file), JSON.stringify(profile));
        }
        keepBundle(join(dir, ".wrangler", "tmp"), o.profileDir, "bench-worker.js");
      }
    }
  } finally {
    stopDevServer(server);
  }
}
