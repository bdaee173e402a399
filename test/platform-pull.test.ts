/**
 * Pulls of the offices' registers on the platform (src/platform/pullSource.ts):
 * the PullSource Workflow pulls from a stand-in Socrata portal into the same
 * tables as the in-process pull of `npm run import -- --source ct --pull`,
 * waits out a 429 and a 500 between steps, writes nothing when it finds
 * nothing, and the daily Cron Trigger starts one pull per configured source.
 */
import {
  createExecutionContext,
  createScheduledController,
  introspectWorkflow,
  introspectWorkflowInstance,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { refreshQueued } from "../src/db/load.ts";
import { sourceRows } from "../src/db/schema.ts";
import { shardDb } from "../src/db/shards.ts";
import { emptySummary, sumOf } from "../src/feed/import.ts";
import type { Reject, Warning } from "../src/feed/read.ts";
import { assembleStep, finishLoad } from "../src/feed/sources/assemble.ts";
import { Unrecognised } from "../src/feed/sources/codes.ts";
import {
  datasetUrl,
  endPull,
  foundAnything,
  newPull,
  type PullSummary,
  pagesDone,
  pullPage,
  pullState,
  savePosition,
} from "../src/feed/sources/pull.ts";
import { SOURCES } from "../src/feed/sources/registry.ts";
import type { Source } from "../src/feed/sources/source.ts";
import worker from "../src/index.ts";
import { problemsKey, pullKey } from "../src/platform/feedFiles.ts";
import { dailyPullId, type PullOutput, type PullParams } from "../src/platform/pullSource.ts";
import ctJson from "./fixtures/sources/ct.json?raw";
import orJanuary from "./fixtures/sources/or-2026-01.json?raw";
import { clearAllShards, shardDatabases, shards } from "./helpers.ts";
import { everyTable } from "./tables.ts";

const PORTAL = "https://portal.test";
const DAY = 86_400_000;

/**
 * A Socrata portal in the test's isolate (the Workflow's too): each
 * dataset's rows at `/resource/ID.json` on any host, with what of SoQL the
 * pull uses ($order=:id, $limit, $offset, and `$where=:updated_at > '...'`),
 * a Date header, and faults answered instead of the next requests.
 */
class Portal {
  readonly datasets = new Map<string, { id: string; updatedAt: number; fields: Record<string, unknown> }[]>();
  readonly requests: { url: URL; status: number; token: string | null }[] = [];
  private faults: { status: number; retryAfter?: string }[] = [];

  add(dataset: string, rows: Record<string, unknown>[], updatedAt: number) {
    const held = this.datasets.get(dataset) ?? [];
    for (const fields of rows) held.push({ id: `row-${String(held.length).padStart(6, "0")}`, updatedAt, fields });
    this.datasets.set(dataset, held);
  }

  fail(...faults: { status: number; retryAfter?: string }[]) {
    this.faults.push(...faults);
  }

  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const token = request.headers.get("x-app-token");
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.requests.push({ url, status, token });
      return Response.json(body, { status, headers: { date: new Date().toUTCString(), ...headers } });
    };
    const fault = this.faults.shift();
    if (fault) {
      const headers: Record<string, string> = fault.retryAfter ? { "retry-after": fault.retryAfter } : {};
      return answer(fault.status, { message: `fault ${fault.status}` }, headers);
    }
    const dataset = /^\/resource\/([a-z0-9-]+)\.json$/.exec(url.pathname)?.[1];
    const rows = dataset === undefined ? undefined : this.datasets.get(dataset);
    if (!rows) return answer(404, { message: "dataset not found" });
    const where = url.searchParams.get("$where");
    const after = where === null ? null : /^:updated_at > '([^']+)'$/.exec(where)?.[1];
    if (after === undefined || url.searchParams.get("$order") !== ":id") return answer(400, { message: "bad query" });
    const offset = Number(url.searchParams.get("$offset") ?? 0);
    const limit = Number(url.searchParams.get("$limit") ?? 1000);
    const since = after === null ? -Infinity : Date.parse(`${after}Z`);
    const page = rows
      .filter((r) => r.updatedAt > since)
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(offset, offset + limit);
    return answer(
      200,
      page.map((r) => r.fields),
    );
  };
}

let portal: Portal;
const realFetch = globalThis.fetch;

beforeEach(async () => {
  await clearAllShards();
  portal = new Portal();
  // Changed ten days ago: a later pull (what changed since the last began, less a day) finds none of them.
  portal.add("xfev-8smz", JSON.parse(ctJson) as Record<string, unknown>[], Date.now() - 10 * DAY);
  portal.add("snfi-f79b", JSON.parse(orJanuary) as Record<string, unknown>[], Date.now() - 10 * DAY);
  globalThis.fetch = portal.fetch;
});

afterEach(() => {
  globalThis.fetch = realFetch;
});

/**
 * Every table of every shard (test/tables.ts); of a pull's bookkeeping
 * (source_pulls) the office date it is through and whether a pull is under
 * way, not when pulls ran.
 */
const tables = () =>
  everyTable({ reads: { source_pulls: "select source, through, position is null as ended from source_pulls" } });

/** What `npm run import -- --source ID --pull --portal PORTAL --page-size N` does (scripts/sources.ts), in-process. */
async function pullAsTheCli(source: Source, pageSize: number) {
  const db = shardDb(shardDatabases);
  const now = new Date();
  const rejects: Reject[] = [];
  const warnings: Warning[] = [];
  const unrecognised = new Unrecognised();
  const state = await pullState(db, source);
  let position = state.position?.since === null ? state.position : newPull(null, state.changedSince);
  await savePosition(db, source, position);
  while (!pagesDone(source, position)) {
    position = await pullPage(db, source, position, {
      portal: PORTAL,
      pageSize,
      fetch: portal.fetch,
      sleep: async () => {},
      now,
      onReject: (r) => void rejects.push(r),
    });
    await savePosition(db, source, position);
  }
  let filings = emptySummary();
  for (let after = ""; ; ) {
    const step = await assembleStep(shardDatabases, source, after, {
      now,
      deferRefresh: true,
      unrecognised,
      onReject: (r) => void rejects.push(r),
      onWarning: (w) => void warnings.push(w),
    });
    if (step.last === null) break;
    after = step.last;
    filings = sumOf(filings, step.summary);
  }
  for (const d1 of shardDatabases.databases.values()) await refreshQueued(d1);
  const label = `pull ${source.id} ${datasetUrl(source, 0, PORTAL).replace(/\/resource\/.*$/, "")}`;
  const summary: PullSummary = {
    rows: position.counts,
    pages: position.pages,
    filings,
    unrecognised: unrecognised.toJSON(),
  };
  if (foundAnything(summary)) await finishLoad(shardDatabases, source, label, filings, now);
  await endPull(db, source, position, summary, now);
  return { summary, rejects, warnings };
}

let runs = 0;

/** Runs a pull through the Workflow (its waits skipped) and returns its output. */
async function pullOnThePlatform(params: PullParams): Promise<PullOutput> {
  const id = `test-pull-${++runs}`;
  await using instance = await introspectWorkflowInstance(env.PULL_SOURCE, id);
  await instance.modify(async (m) => {
    await m.disableSleeps();
    await m.disableRetryDelays();
  });
  await env.PULL_SOURCE.create({ id, params });
  try {
    await instance.waitForStatus("complete");
  } catch (err) {
    throw new Error(`${(err as Error).message}: ${JSON.stringify(await instance.getError().catch(() => null))}`);
  }
  return { ...((await instance.getOutput()) as PullOutput), by: id };
}

async function lines(key: string): Promise<unknown[]> {
  const object = await env.FEEDS.get(key);
  if (!object) return [];
  return (await object.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe("the PullSource Workflow", () => {
  it("pulls page by page into the same tables as the in-process pull, waiting out a 429 and a 500 between steps", async () => {
    portal.fail({ status: 429, retryAfter: "30" }, { status: 500 });
    const output = await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    // The two faults, then four pages of five rows, the last short; each after the first asks again for
    // the row before it, the last the page before ended with.
    expect(portal.requests.map((r) => r.status)).toEqual([429, 500, 200, 200, 200, 200]);
    expect(portal.requests.map((r) => r.url.searchParams.get("$offset"))).toEqual(["0", "0", "0", "4", "9", "14"]);
    const platform = await tables();
    const rejects = await lines(problemsKey("rejects", pullKey(output.by ?? "")));
    const warnings = await lines(problemsKey("warnings", pullKey(output.by ?? "")));

    await clearAllShards();
    const cli = await pullAsTheCli(SOURCES.ct, 5);
    expect(await tables()).toEqual(platform);
    expect(output).toEqual({ source: "ct", ...cli.summary, by: output.by });
    expect(rejects).toEqual(cli.rejects);
    expect(warnings).toEqual(cli.warnings);
    expect(rejects).toHaveLength(2);
    // The first pull of a state is its backfill: completed, nothing announced.
    expect(platform["DB.state_backfills"]).toEqual([JSON.stringify({ state: "CT", completed: 1 })]);
    expect(platform["DB.changes"]).toEqual([]);
  });

  it("writes nothing when it finds nothing: no data load, no change, not even when it ran; the next pull asks the same", async () => {
    await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    const before = await tables();
    const bookkeeping = () => env.DB.prepare("select * from source_pulls").all();
    const pulls = await bookkeeping();
    const loads = await env.DB.prepare("select count(*) as n from data_loads").first("n");
    const asked = portal.requests.length;
    const output = await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    // It asked for what changed since the last pull began, less a day: nothing.
    const window = portal.requests.slice(asked).map((r) => r.url.searchParams.get("$where"));
    expect(window).toEqual([expect.stringMatching(/^:updated_at > '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'$/)]);
    expect(output.rows).toMatchObject({ rows: 0, changed: 0 });
    expect(output.filings).toEqual(emptySummary());
    expect(await tables()).toEqual(before);
    expect(await env.DB.prepare("select count(*) as n from data_loads").first("n")).toBe(loads);
    // Its bookkeeping too: when the last pull that found rows ran, where the next starts, what it read.
    expect((await bookkeeping()).results).toEqual(pulls.results);
    // So the next pull asks for the same window, which holds whatever changed since.
    const again = portal.requests.length;
    await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    expect(portal.requests.slice(again).map((r) => r.url.searchParams.get("$where"))).toEqual(window);
  });

  it("leaves no bookkeeping behind when a source's first pull finds nothing", async () => {
    portal.datasets.set("xfev-8smz", []);
    const output = await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    expect(output.rows).toMatchObject({ rows: 0 });
    expect((await env.DB.prepare("select * from source_pulls").all()).results).toEqual([]);
  });

  it("retries a page step that fails at its page; a pull whose page keeps failing errors, and the next pull resumes there", async () => {
    // Twice: the step's retries take it.
    await using once = await introspectWorkflowInstance(env.PULL_SOURCE, "test-pull-flaky");
    await once.modify(async (m) => {
      await m.disableRetryDelays();
      await m.mockStepError({ name: "page 2" }, new Error("D1_ERROR: a hiccup"), 2);
    });
    await env.PULL_SOURCE.create({ id: "test-pull-flaky", params: { source: "ct", portal: PORTAL, pageSize: 5 } });
    await once.waitForStatus("complete");
    expect(await once.getOutput()).toMatchObject({ pages: 4, rows: { rows: 17 } });
    const clean = await tables();

    // Every try: the instance errors after its retries, its position kept at page 2.
    await clearAllShards();
    await using failing = await introspectWorkflowInstance(env.PULL_SOURCE, "test-pull-failing");
    await failing.modify(async (m) => {
      await m.disableRetryDelays();
      await m.mockStepError({ name: "page 2" }, new Error("D1_ERROR: down"));
    });
    await env.PULL_SOURCE.create({ id: "test-pull-failing", params: { source: "ct", portal: PORTAL, pageSize: 5 } });
    await failing.waitForStatus("errored");
    expect(await failing.getError()).toMatchObject({ message: expect.stringContaining("D1_ERROR: down") });
    const { position } = await pullState(shardDb(shardDatabases), SOURCES.ct);
    expect(position).toMatchObject({ by: "test-pull-failing", pages: 1, offset: 5 });
    const asked = portal.requests.length;
    await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    expect(portal.requests.slice(asked).map((r) => r.url.searchParams.get("$offset"))).toEqual(["4", "9", "14"]);
    expect(await tables()).toEqual(clean);
  });

  it("resumes a pull that stopped part-way at its page, and does not run beside another pull of the source", async () => {
    const db = shardDb(shardDatabases);
    // A pull that stopped after its first two pages, as a failed instance leaves it.
    let position = newPull(null, null);
    for (let i = 0; i < 2; i++) {
      position = await pullPage(db, SOURCES.ct, position, { portal: PORTAL, pageSize: 5, fetch: portal.fetch });
    }
    await savePosition(db, SOURCES.ct, { ...position, by: "a-pull-that-failed" });
    const asked = portal.requests.length;
    const output = await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    expect(portal.requests.slice(asked).map((r) => r.url.searchParams.get("$offset"))).toEqual(["9", "14"]);
    expect(output).toMatchObject({ pages: 4, rows: { rows: 17 }, filings: { read: 11, inserted: 9 } });

    // A pull whose saved position names a running instance ends at once, having asked nothing:
    // here one waiting out a 429 that asks for an hour.
    portal.fail({ status: 429, retryAfter: "3600" });
    const held = await env.PULL_SOURCE.create({
      id: "test-pull-held",
      params: { source: "ct", portal: PORTAL, pageSize: 5 },
    });
    // Its first page answered 429: it sleeps (the engine says running or waiting).
    for (let i = 0; i < 600 && !portal.requests.some((r) => r.status === 429); i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(["running", "waiting"]).toContain((await held.status()).status);
    const waiting = portal.requests.length;
    const skipped = await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    expect(skipped.skipped).toBe("another pull of ct is running: test-pull-held");
    expect(portal.requests).toHaveLength(waiting);
    await held.terminate();
  });
});

describe("a pull while the office changes its dataset", () => {
  it("reads a table again from its start when rows before a page move, so a row moved across a page boundary is not skipped", async () => {
    const db = shardDb(shardDatabases);
    const options = { portal: PORTAL, pageSize: 5, fetch: portal.fetch };
    const rows = portal.datasets.get("xfev-8smz") ?? [];
    const staged = async () =>
      (await db.select({ n: sql<number>`count(*)` }).from(sourceRows).where(eq(sourceRows.source, "ct")))[0]?.n;
    // What a pull of the dataset standing still stages.
    for (let p = newPull(null, null); !pagesDone(SOURCES.ct, p); ) p = await pullPage(db, SOURCES.ct, p, options);
    const all = await staged();
    await clearAllShards();
    let position = await pullPage(db, SOURCES.ct, newPull(null, null), options);
    // The office drops a lien it no longer lists: every later row moves back one place.
    rows.shift();
    while (!pagesDone(SOURCES.ct, position)) position = await pullPage(db, SOURCES.ct, position, options);
    expect(position.restarts).toBe(1);
    // Every row read: the one dropped (staged before), and the one that moved across the first page's end.
    expect(await staged()).toBe(all);
    // A pull whose rows keep moving stops, saying why, rather than reading forever.
    let moving = newPull(null, null);
    await expect(
      (async () => {
        for (let n = 0; ; n++) {
          moving = await pullPage(db, SOURCES.ct, moving, options);
          // A row the portal orders first, added between every two pages.
          rows.unshift({ id: `row-/${n}`, updatedAt: 0, fields: { ...rows[0]?.fields } });
        }
      })(),
    ).rejects.toThrow(/moved \(the office changed the dataset\) 6 times during the pull; run it again later/);
  });

  it("gives the next run of a pull that ran out of restarts restarts of its own: it reads the table again from its start and finishes", async () => {
    const db = shardDb(shardDatabases);
    const options = { portal: PORTAL, pageSize: 5, fetch: portal.fetch };
    const rows = portal.datasets.get("xfev-8smz") ?? [];
    // A run as the CLI's, its position saved after each page, while the office drops a row before each later page.
    let position = newPull(null, null);
    await expect(
      (async () => {
        for (;;) {
          if (position.offset > 0) rows.shift();
          position = await pullPage(db, SOURCES.ct, position, options);
          await savePosition(db, SOURCES.ct, position);
        }
      })(),
    ).rejects.toThrow(/6 times during the pull/);
    expect((await pullState(db, SOURCES.ct)).position).toMatchObject({ restarts: 5, offset: 5 });
    // The dataset stands still now: the next run finds the row before its saved page gone, and starts the table again.
    const asked = portal.requests.length;
    const output = await pullOnThePlatform({ source: "ct", portal: PORTAL, pageSize: 5 });
    expect(portal.requests.slice(asked).map((r) => r.url.searchParams.get("$offset"))).toEqual(["4", "0", "4", "9"]);
    expect((await pullState(db, SOURCES.ct)).position).toBeNull();
    expect(output.rows.rows).toBeGreaterThan(0);
  });
});

describe("two pulls of one source begun at once", () => {
  it("run as one: the other finds it running and reads nothing", async () => {
    await using pulls = await introspectWorkflow(env.PULL_SOURCE);
    await pulls.modifyAll(async (m) => {
      await m.disableSleeps();
    });
    const params = { source: "ct", portal: PORTAL, pageSize: 5 } as const;
    await Promise.all([
      env.PULL_SOURCE.create({ id: "test-pull-a", params }),
      env.PULL_SOURCE.create({ id: "test-pull-b", params }),
    ]);
    const outputs: PullOutput[] = [];
    for (const instance of await pulls.get()) {
      await instance.waitForStatus("complete");
      outputs.push((await instance.getOutput()) as PullOutput);
    }
    // Each page asked for once, by one of them; the other skipped (or, begun after it ended, found nothing new).
    expect(outputs.map((o) => o.rows.rows).sort((a, b) => a - b)).toEqual([0, 17]);
    expect(portal.requests.filter((r) => r.url.searchParams.get("$where") === null)).toHaveLength(4);
  });
});

describe("the daily Cron Trigger", () => {
  const at = new Date("2026-11-27T06:15:00Z");
  const scheduled = (vars: Record<string, unknown>) =>
    worker.scheduled(
      createScheduledController({ scheduledTime: at, cron: "15 6 * * *" }),
      { ...env, ...vars },
      createExecutionContext(),
    );

  it("starts one pull per configured source, named by source and day; run again the same day it starts none", async () => {
    await using pulls = await introspectWorkflow(env.PULL_SOURCE);
    await pulls.modifyAll(async (m) => {
      await m.disableSleeps();
    });
    await scheduled({ PULL_SOURCES: ["ct", "or"] });
    await scheduled({ PULL_SOURCES: ["ct", "or"] });
    const instances = await pulls.get();
    expect(instances).toHaveLength(2);
    for (const instance of instances) await instance.waitForStatus("complete");
    for (const source of ["ct", "or"] as const) {
      expect((await (await env.PULL_SOURCE.get(dailyPullId(source, at))).status()).status).toBe("complete");
    }
    // Each from its office's own portal (wrangler.toml's SOURCE_PORTALS names none locally).
    expect(new Set(portal.requests.map((r) => r.url.host))).toEqual(new Set(["data.ct.gov", "data.oregon.gov"]));
    const { results } = await env.DB.prepare(
      "select source from source_pulls where pulled_at is not null order by source",
    ).all();
    expect(results).toEqual([{ source: "ct" }, { source: "or" }]);
  });

  it("logs a configuration it cannot read, starts no pull, and still runs the change feed's daily job", async () => {
    await using pulls = await introspectWorkflow(env.PULL_SOURCE);
    const logged: unknown[] = [];
    const { error, info } = console;
    console.error = console.info = (line: string) => void logged.push(JSON.parse(line));
    try {
      await scheduled({ PULL_SOURCES: ["ct", "nv"] });
    } finally {
      Object.assign(console, { error, info });
    }
    expect(await pulls.get()).toHaveLength(0);
    expect(logged).toContainEqual(
      expect.objectContaining({ event: "pull_config_invalid", error: expect.stringContaining("PULL_SOURCES.1") }),
    );
    expect(logged.filter((l) => (l as { event: string }).event === "daily_changes")).toHaveLength(
      shards.databases.size,
    );
  });
});
