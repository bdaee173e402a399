/**
 * Loading on the platform (src/platform/): a feed file in the feeds bucket,
 * and the queue message that says so, load through the LoadFeed Workflow
 * exactly as the CLI loads the same file in-process, whatever the range
 * size; and faults (a step failing mid-file, a load failing for good and
 * restarted, a message delivered twice, a file replaced during its load, a
 * file that breaks) end with the same tables as a clean load, or with what
 * was committed before the break and the error on record.
 */
import {
  createExecutionContext,
  createMessageBatch,
  getQueueResult,
  introspectWorkflow,
  introspectWorkflowInstance,
  type WorkflowInstanceIntrospector,
} from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { generateFilings } from "../seed/generate.ts";
import { refreshQueued } from "../src/db/load.ts";
import { CHANGE_TYPES, CHANGED_FIELDS } from "../src/domain/kinds.ts";
import { lienLine } from "../src/feed/export.ts";
import { IMPORT_GROUP, type ImportSummary } from "../src/feed/import.ts";
import { type Reject, readFeed, type Warning } from "../src/feed/read.ts";
import { findRepeats } from "../src/feed/repeats.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import worker from "../src/index.ts";
import { loadId, partKey, partsPrefix, problemsKey, pullKey } from "../src/platform/feedFiles.ts";
import { release } from "../src/platform/instances.ts";
import type { LoadParams } from "../src/platform/loadFeed.ts";
import { type LoadRecord, readLoad } from "../src/platform/loadRecord.ts";
import { joinProblems } from "../src/platform/problems.ts";
import { stream } from "./feeds.ts";
import feedCsv from "./fixtures/feed.csv?raw";
import feedNdjson from "./fixtures/feed.ndjson?raw";
import mixedNdjson from "./fixtures/mixed.ndjson?raw";
import officeXml from "./fixtures/office.xml?raw";
import officeLaterXml from "./fixtures/office-later.xml?raw";
import { clearAllShards, d1Of, dbOf, shardDatabases, shards } from "./helpers.ts";
import { everyTable } from "./tables.ts";

/** The feed files of the comparisons, loaded in this order (XML amendments wait for, then merge into, filings). */
const FILES: [string, string][] = [
  ["incoming/feed.ndjson", feedNdjson],
  ["incoming/mixed.ndjson", mixedNdjson],
  ["incoming/feed.csv", feedCsv],
  ["incoming/office.xml", officeXml],
  ["incoming/office-later.xml", officeLaterXml],
];

/**
 * Every row of every table of every shard (test/tables.ts), but the load
 * records, a platform load's staging (emptied when it completes, kept for a
 * restart when it fails: see stagingLeft) and what everyTable leaves out.
 */
const tables = () => everyTable({ skip: ["feed_loads", "load_keys", "held_copies"] });

/**
 * What `npm run import -- FILE` does locally, once per file as the platform
 * loads them: the same loader, then the aggregates rebuilt (also after a
 * failure). A debtor name's id follows the order names are refreshed in.
 */
async function loadAsTheCli(files: [string, string][]) {
  const rejects: Reject[] = [];
  const warnings: Warning[] = [];
  const summaries: ImportSummary[] = [];
  for (const [key, text] of files) {
    try {
      // A first reading finds the filings the file repeats (and CSV filings whose rows are not adjacent).
      const { repeats } = await findRepeats(readFeed(key, stream(text)));
      // A state's first load is its backfill and records no changes, as on the platform (docs/monitoring.md).
      const summary = await importSharded(shardDatabases, key, stream(text), {
        repeats,
        deferRefresh: true,
        onReject: (r) => void rejects.push(r),
        onWarning: (w) => void warnings.push(w),
      });
      summaries.push(summary);
    } finally {
      for (const db of shardDatabases.databases.values()) await refreshQueued(db);
    }
  }
  return { rejects, warnings, summaries };
}

/** Rows of platform loads' staging left in every shard (src/platform/staging.ts). */
async function stagingLeft(): Promise<number> {
  let rows = 0;
  for (const d1 of shards.databases.values()) {
    for (const table of ["load_keys", "held_copies"]) {
      rows += Number(await d1.prepare(`select count(*) as n from ${table}`).first("n"));
    }
  }
  return rows;
}

type Modify = Parameters<WorkflowInstanceIntrospector["modify"]>[0];

/** Puts `text` under `key` and returns the load id and parameters of that version. */
async function put(key: string, text: string) {
  const object = await env.FEEDS.put(key, text);
  if (!object) throw new Error(`no object for ${key}`);
  return { id: await loadId(key, object.etag, object.uploaded), params: { key, etag: object.etag, size: object.size } };
}

/** Loads `text` as `key` through the Workflow, in ranges of `rangeBytes`, and waits for `status`. */
async function loadOnThePlatform(
  key: string,
  text: string,
  rangeBytes: number,
  { modify, status = "complete" }: { modify?: Modify; status?: "complete" | "errored" } = {},
) {
  const { id, params } = await put(key, text);
  await using instance = await introspectWorkflowInstance(env.LOAD_FEED, id);
  await instance.modify(async (m) => {
    await m.disableRetryDelays();
    await modify?.(m);
  });
  release(await env.LOAD_FEED.create({ id, params: { ...params, rangeBytes } }));
  await ended(instance, status);
  return { id, output: status === "complete" ? await instance.getOutput() : await instance.getError() };
}

/**
 * Waits until `instance` ends with `status`. One that ends otherwise fails
 * the test with its error (or output): workerd's own log of a Workflow's
 * errors is off in the tests (vitest.config.ts, verbose), so a load that
 * fails by a bug says why here.
 */
async function ended(instance: WorkflowInstanceIntrospector | undefined, status: "complete" | "errored") {
  if (!instance) throw new Error(`no Workflow instance to end ${status}`);
  try {
    await instance.waitForStatus(status);
  } catch (err) {
    const why = await (status === "complete" ? instance.getError() : instance.getOutput()).catch(() => undefined);
    throw new Error(`${err instanceof Error ? err.message : String(err)}: ${JSON.stringify(why)}`, { cause: err });
  }
}

/** Runs the load `id` of `key` (with `params`) to its end: it must stop because its file was replaced. */
async function stopsAsReplaced(key: string, id: string, params: LoadParams) {
  await using instance = await introspectWorkflowInstance(env.LOAD_FEED, id);
  await instance.modify((m) => m.disableRetryDelays());
  release(await env.LOAD_FEED.create({ id, params }));
  await ended(instance, "errored");
  expect(await instance.getError()).toMatchObject({
    message: `${key} was replaced during its load; the new version's load takes it`,
  });
}

/** Waits until the instance's status is `status` (polled: a restarted instance passes through errored). */
async function settled(handle: WorkflowInstance, status: InstanceStatus["status"]) {
  for (let i = 0; i < 600; i++) {
    const now = await handle.status();
    if (now.status === status) return now;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`instance ${handle.id} is not ${status} after 30 s`);
}

const record = async (id: string): Promise<LoadRecord> => {
  const found = await readLoad(dbOf("CO"), id);
  if (!found) throw new Error(`no load record ${id}`);
  return found;
};

async function lines(key: string): Promise<unknown[]> {
  const object = await env.FEEDS.get(key);
  if (!object) return [];
  return (await object.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

/** An R2 object-create notification's body, as R2 sends it to the queue. */
function notification(key: string, etag: string, size: number) {
  return {
    account: "0123456789abcdef",
    action: "PutObject",
    bucket: "lien-feeds",
    object: { key, size, eTag: etag },
    eventTime: new Date().toISOString(),
  };
}

async function deliver(...bodies: unknown[]) {
  const batch = createMessageBatch(
    "lien-feed-events",
    bodies.map((body, i) => ({ id: `message-${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env);
  return getQueueResult(batch, ctx);
}

/**
 * Runs `during` with every D1 statement prepared and batch sent in the
 * isolate (the Workflow's included) seen by `hooks`: a batch goes through
 * `batch`, which may fail it instead.
 */
async function withD1<T>(
  hooks: {
    prepare?: (sql: string) => void;
    batch: (statements: D1PreparedStatement[], run: () => Promise<D1Result[]>) => Promise<D1Result[]>;
  },
  during: () => Promise<T>,
): Promise<T> {
  const prototype = Object.getPrototypeOf(env.DB) as D1Database;
  const { batch, prepare } = prototype;
  prototype.batch = function (this: D1Database, statements: D1PreparedStatement[]) {
    return hooks.batch(statements, () => batch.call(this, statements));
  } as D1Database["batch"];
  prototype.prepare = function (this: D1Database, query: string) {
    hooks.prepare?.(query);
    return prepare.call(this, query);
  };
  try {
    return await during();
  } finally {
    Object.assign(prototype, { batch, prepare });
  }
}

const sqlOf = (statements: D1PreparedStatement[]) =>
  statements.map((s) => (s as unknown as { statement: string }).statement).join(";\n");

/**
 * The files with blank lines added at their end (which every reader skips),
 * a different number each call: new file versions, new loads.
 */
let run = 0;
const fresh = (files: [string, string][]) => {
  run += 1;
  return files.map(([key, text]): [string, string] => [key, `${text}${"\n".repeat(run)}`]);
};

beforeEach(clearAllShards);

describe("a feed file put in the bucket", () => {
  it("loads through its queue message exactly as the CLI loads the same file, rejects and warnings beside it", async () => {
    const [[key, text]] = fresh([["incoming/mixed.ndjson", mixedNdjson]]) as [[string, string]];
    const { id, params } = await put(key, text);
    await using loads = await introspectWorkflow(env.LOAD_FEED);
    const result = await deliver(notification(key, params.etag, params.size));
    expect(result.explicitAcks).toEqual(["message-0"]);
    const [instance] = await loads.get();
    await ended(instance, "complete");
    const output = await instance?.getOutput();
    // The aggregates' counts stay beside the finished checkpoint: a follower that missed them still says them.
    const queued = expect.any(Number);
    expect(await record(id)).toMatchObject({
      checkpoint: { finished: true, done: params.size, refreshing: { queued, left: 0 } },
      summary: output,
    });
    const platform = await tables();
    const platformRejects = await lines(problemsKey("rejects", key));
    const platformWarnings = await lines(problemsKey("warnings", key));

    await clearAllShards();
    const cli = await loadAsTheCli([[key, text]]);
    expect(output).toEqual(cli.summaries[0]);
    expect(platform).toEqual(await tables());
    expect(platformRejects).toEqual(cli.rejects);
    expect(platformWarnings).toEqual(cli.warnings);
    expect(platformRejects).toHaveLength(5);
  });

  for (const rangeBytes of [97, 1_000, 4 * 1024 * 1024]) {
    it(`loads NDJSON, CSV and XML files in ranges of ${rangeBytes.toLocaleString("en-US")} bytes into the same tables as the CLI`, async () => {
      const files = fresh(FILES);
      const summaries: ImportSummary[] = [];
      for (const [key, text] of files) {
        summaries.push((await loadOnThePlatform(key, text, rangeBytes)).output as ImportSummary);
      }
      const platform = await tables();
      expect(await stagingLeft()).toBe(0);
      await clearAllShards();
      const cli = await loadAsTheCli(files);
      expect(platform).toEqual(await tables());
      // Counts that do not depend on where groups of records end (ranges end groups).
      const counted = (s: ImportSummary) => [s.read, s.rejected, s.warned, s.amendments];
      expect(summaries.map(counted)).toEqual(cli.summaries.map(counted));
    });
  }
});

describe("a file that gives a filing more than once", () => {
  it("records one change for it, from what was stored to its last copy, as the CLI does", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const [record, ...others] = [...generateFilings({ filings: IMPORT_GROUP + 1, seed: 7, now: Date.now() })];
    if (!record) throw new Error("no filing generated");
    const line = (collateral: string) => JSON.stringify({ ...lienLine(record, today), collateral });
    await loadOnThePlatform(`incoming/repeat-${++run}.ndjson`, `${line("Equipment")}\n`, 4096);
    // One range holds both later copies, a write group apart: compared in
    // turn they would record two updates.
    const between = others.map((r) => JSON.stringify(lienLine(r, today)));
    const text = `${[line("Inventory"), ...between, line("Accounts")].join("\n")}\n`;
    const { output } = await loadOnThePlatform(`incoming/repeat-${++run}.ndjson`, text, text.length);
    expect(output).toMatchObject({ read: between.length + 2, repeated: 1, updated: 1 });
    const { results } = await d1Of(record.state)
      .prepare("select changed_fields from changes where type = ? order by seq")
      .bind(CHANGE_TYPES.indexOf("filing.updated"))
      .all<{ changed_fields: number }>();
    expect(results).toEqual([{ changed_fields: 1 << CHANGED_FIELDS.indexOf("collateral") }]);
  });
});

describe("faults", () => {
  it("a range step that fails after some of its writes is retried and ends with the same tables as a clean load", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const lines = [...generateFilings({ filings: 300, seed: 25, now: Date.now() })].map((r) => lienLine(r, today));
    const text = `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`;
    const rangeBytes = Math.ceil(text.length / 3);
    let steps = 0;
    let writes = 0;
    let failed = 0;
    let wrote = false;
    await withD1(
      {
        // A range step ends by saving its checkpoint (the scan's steps, before any write, save theirs too).
        prepare: (sql) => {
          if (sql.startsWith('update "feed_loads"') && wrote) {
            steps += 1;
            writes = 0;
          }
        },
        batch: async (statements, batch) => {
          if (sqlOf(statements).includes('insert into "filings"')) {
            wrote = true;
            writes += 1;
            // The second range's second write: its first is committed when this one fails.
            if (steps === 1 && writes === 2 && failed === 0) {
              failed += 1;
              throw new Error("D1_ERROR: the network went away");
            }
          }
          return batch();
        },
      },
      () => loadOnThePlatform(`incoming/generated-${++run}.ndjson`, text, rangeBytes),
    );
    expect(failed).toBe(1);
    const faulted = await tables();
    await clearAllShards();
    await loadOnThePlatform(`incoming/generated-${run}.ndjson`, `${text}\n`, rangeBytes);
    expect(faulted).toEqual(await tables());
  });

  it("a load that fails for good keeps its checkpoint, its instance says why, and restarting it resumes there and finishes it", async () => {
    const [key, text] = fresh(FILES)[3] as [string, string];
    const { id, params } = await put(key, text);
    await using instance = await introspectWorkflowInstance(env.LOAD_FEED, id);
    await instance.modify(async (m) => {
      await m.disableRetryDelays();
      // Every attempt (1 and 5 retries) of the third range fails.
      await m.mockStepError({ name: "range 3" }, new Error("D1 is down for good"), 6);
    });
    release(await env.LOAD_FEED.create({ id, params: { ...params, rangeBytes: 500 } }));
    await ended(instance, "errored");
    expect(await instance.getError()).toMatchObject({ message: "D1 is down for good" });
    const failed = await record(id);
    expect(failed.checkpoint).toMatchObject({ ranges: 2 });
    expect(failed.checkpoint.finished).toBeUndefined();
    expect(failed.checkpoint.done).toBeGreaterThan(0);
    expect(failed.checkpoint.done).toBeLessThan(failed.bytes);

    const handle = await env.LOAD_FEED.get(id);
    await handle.restart();
    await settled(handle, "complete");
    release(handle);
    const finished = await record(id);
    const resumed = await tables();

    await clearAllShards();
    const [, again] = fresh(FILES)[3] as [string, string];
    const clean = await loadOnThePlatform(key, again, 500);
    expect(resumed).toEqual(await tables());
    expect(finished.checkpoint).toMatchObject({ finished: true, done: finished.bytes });
    // Resumed from its checkpoint: no range read twice, so nothing counted as unchanged.
    expect(finished.summary).toEqual(clean.output);
    expect(finished.checkpoint.ranges).toBe((await record(clean.id)).checkpoint.ranges);
  });

  it("a load whose file is gone before it begins has a record, and its instance says why", async () => {
    const [key, text] = fresh(FILES)[0] as [string, string];
    const { id, params } = await put(key, text);
    await env.FEEDS.delete(key);
    await using instance = await introspectWorkflowInstance(env.LOAD_FEED, id);
    await instance.modify((m) => m.disableRetryDelays());
    release(await env.LOAD_FEED.create({ id, params }));
    await ended(instance, "errored");
    expect(await instance.getError()).toMatchObject({ message: `${key} is not in the bucket` });
    expect(await record(id)).toMatchObject({ key, checkpoint: { done: 0 } });
  });

  it("the same message delivered twice loads its put once, and the same bytes put again load again", async () => {
    const [[key, text]] = fresh([["incoming/feed.csv", feedCsv]]) as [[string, string]];
    const { id, params } = await put(key, text);
    await using loads = await introspectWorkflow(env.LOAD_FEED);
    const message = notification(key, params.etag, params.size);
    const logged = vi.spyOn(console, "info");
    try {
      expect((await deliver(message, message)).explicitAcks).toEqual(["message-0", "message-1"]);
      const events = logged.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; load: string });
      expect(events.filter((e) => e.event.startsWith("feed_load"))).toMatchObject([
        { event: "feed_load_started", load: id },
        { event: "feed_load_found", load: id },
      ]);
    } finally {
      logged.mockRestore();
    }
    const [instance, ...others] = await loads.get();
    expect(others).toEqual([]);
    await ended(instance, "complete");
    // A new put of the same bytes (the file sent again after a fix elsewhere, or after its load failed for good).
    const again = await put(key, text);
    expect(again.id).not.toBe(id);
    expect((await deliver(message)).explicitAcks).toEqual(["message-0"]);
    const both = await loads.get();
    expect(both).toHaveLength(2);
    await ended(both[1], "complete");
    expect(await record(again.id)).toMatchObject({
      checkpoint: { finished: true },
      summary: { read: 2, unchanged: 2 },
    });
    for (const d1 of shards.databases.values()) {
      const loadsRecorded = await d1.prepare("select count(*) as n from data_loads").first<{ n: number }>();
      expect(loadsRecorded?.n).toBe(2);
    }
  });

  it("bytes put again after another version loaded load again: the file's filings are what was put last", async () => {
    const key = `incoming/aba-${crypto.randomUUID()}.ndjson`;
    const [filing] = [...generateFilings({ filings: 1, seed: 3, now: Date.now() })];
    if (!filing) throw new Error("no filing generated");
    const today = new Date().toISOString().slice(0, 10);
    const version = (collateral: string) => `${JSON.stringify({ ...lienLine(filing, today), collateral })}\n`;
    const stored = () =>
      d1Of(filing.state)
        .prepare("select collateral from filings where number = ?")
        .bind(filing.number)
        .first("collateral");
    await using loads = await introspectWorkflow(env.LOAD_FEED);
    for (const [n, collateral] of ["Equipment A", "Inventory B", "Equipment A"].entries()) {
      const { params } = await put(key, version(collateral));
      await deliver(notification(key, params.etag, params.size));
      const started = await loads.get();
      expect(started).toHaveLength(n + 1);
      await ended(started[n], "complete");
      expect(await stored()).toBe(collateral);
    }
  });

  it("a file replaced while its load runs stops that load rather than read two versions; the new version loads whole", async () => {
    const key = `incoming/replaced-${crypto.randomUUID()}.ndjson`;
    // Every party's name starts with the version's mark; the first line is a reject.
    const version = (mark: string) => `not JSON\n${feedNdjson.replaceAll('"name": "', `"name": "${mark} `)}`;
    const first = await put(key, version("Version1"));
    let second: Awaited<ReturnType<typeof put>> | undefined;
    // The new version arrives as the first range writes its filings.
    await withD1(
      {
        batch: async (statements, batch) => {
          if (!second && sqlOf(statements).includes('insert into "filings"'))
            second = await put(key, version("Version2"));
          return batch();
        },
      },
      () => stopsAsReplaced(key, first.id, { ...first.params, rangeBytes: 200 }),
    );
    expect(await record(first.id)).toMatchObject({ summary: { read: 2, inserted: 1, rejected: 1 } });
    const firstOnly = JSON.stringify(await tables());
    expect(firstOnly).toContain("Version1");
    expect(firstOnly).not.toContain("Version2");
    // Its rejects and warnings stay its own (under loads/ID/), not beside the new version.
    expect((await env.FEEDS.list({ prefix: `loads/${first.id}/` })).objects.length).toBeGreaterThan(0);
    expect(await env.FEEDS.head(problemsKey("rejects", key))).toBeNull();

    if (!second) throw new Error("the file was not replaced");
    await using loads = await introspectWorkflow(env.LOAD_FEED);
    await deliver(notification(key, second.params.etag, second.params.size));
    await ended((await loads.get())[0], "complete");
    // The lender dictionaries keep a lender once met (schema.ts, lenders); nothing else keeps the first version.
    const stored = Object.entries(await tables()).filter(([table]) => !/\.lender(s|_names)$/.test(table));
    const names = JSON.stringify(stored);
    expect(names).toContain("Version2");
    expect(names).not.toContain("Version1");
    expect(await lines(problemsKey("rejects", key))).toMatchObject([{ file: key, line: 1, raw: "not JSON" }]);
  });

  it("a file replaced while a range writes stops that load before its next group: the new version's values stay", async () => {
    const key = `incoming/raced-${crypto.randomUUID()}.ndjson`;
    const [raced, ...filler] = [...generateFilings({ filings: 601, seed: 123, now: Date.now() })];
    if (!raced) throw new Error("no filing generated");
    const today = new Date().toISOString().slice(0, 10);
    const fill = filler.map((r) => JSON.stringify(lienLine(r, today)));
    // The raced filing is the file's last, in its last group.
    const version = (collateral: string) =>
      `${[...fill, JSON.stringify({ ...lienLine(raced, today), collateral })].join("\n")}\n`;
    const first = await put(key, version("Old collateral"));
    let second: Awaited<ReturnType<typeof put>> | undefined;
    await withD1(
      {
        // The new version is put, and its load runs to its end, while the old one's first group is being written.
        batch: async (statements, batch) => {
          if (!second && sqlOf(statements).includes('insert into "filings"')) {
            second = await put(key, version("New collateral"));
            await deliver(notification(key, second.params.etag, second.params.size));
            const handle = await env.LOAD_FEED.get(second.id);
            await settled(handle, "complete");
            release(handle);
          }
          return batch();
        },
      },
      () => stopsAsReplaced(key, first.id, first.params),
    );
    const stored = await d1Of(raced.state)
      .prepare("select collateral from filings where number = ?")
      .bind(raced.number)
      .first("collateral");
    expect(stored).toBe("New collateral");
    expect((await record(first.id)).checkpoint.finished).toBeUndefined();
  });

  it("a file replaced after its load's last range stops that load before its finish records it", async () => {
    const [[key, text]] = fresh([["incoming/feed.ndjson", feedNdjson]]) as [[string, string]];
    const first = await put(key, text);
    // The file is replaced once every range is written: at the finish's first look at it.
    const r2 = Object.getPrototypeOf(env.FEEDS) as R2Bucket;
    const { head } = r2;
    let replacedBy: string | undefined;
    r2.head = async function (this: R2Bucket, target: string) {
      if (!replacedBy && target === key) {
        const next = await d1Of("CO")
          .prepare("select json_type(checkpoint, '$.next') as t from feed_loads where id = ?")
          .bind(first.id)
          .first("t");
        if (next === "null") replacedBy = (await put(key, `${text}\n`)).id;
      }
      return head.call(this, target);
    } as R2Bucket["head"];
    try {
      await stopsAsReplaced(key, first.id, first.params);
    } finally {
      Object.assign(r2, { head });
    }
    expect(replacedBy).toBeDefined();
    expect((await record(first.id)).checkpoint.finished).toBeUndefined();
    for (const d1 of shards.databases.values()) {
      expect(await d1.prepare("select count(*) as n from data_loads").first("n")).toBe(0);
    }
  });

  it("a load stopped by its file's replacement leaves no staging behind: no restart could use it", async () => {
    const key = `incoming/staged-${crypto.randomUUID()}.ndjson`;
    const today = new Date().toISOString().slice(0, 10);
    const records = [...generateFilings({ filings: 300, seed: 321, now: Date.now() })];
    const version = (collateral: string) =>
      `${records.map((r, i) => JSON.stringify(i === 0 ? { ...lienLine(r, today), collateral } : lienLine(r, today))).join("\n")}\n`;
    let replaced = false;
    await withD1(
      {
        batch: async (statements, batch) => {
          if (!replaced && sqlOf(statements).includes('insert into "filings"')) {
            replaced = true;
            await put(key, version("Version2"));
          }
          return batch();
        },
      },
      () => loadOnThePlatform(key, version("Version1"), 20_000, { status: "errored" }),
    );
    expect(replaced).toBe(true);
    expect(await stagingLeft()).toBe(0);
  });

  it("a file that is not well-formed stops where it breaks: what came before stays, whole, and the error is on record", async () => {
    let closed = 0;
    const broken = officeXml.replace(/<\/FileDetail>/g, (end) => (++closed === 3 ? `${end}<Oops></FileDetail>` : end));
    const key = `incoming/broken-${++run}.xml`;
    const { id, output } = await loadOnThePlatform(key, broken, 300, { status: "errored" });
    expect(output).toMatchObject({
      message: expect.stringMatching(/^not well-formed XML at line \d+, column \d+, byte /),
    });
    const failed = await record(id);
    expect(failed.summary.read).toBe(3);
    const platform = await tables();
    await clearAllShards();
    await expect(loadAsTheCli([[key, broken]])).rejects.toThrow((output as { message: string }).message);
    expect(platform).toEqual(await tables());
  });
});

describe("the feed-events consumer", () => {
  it("acknowledges and ignores messages that are not a feed file put under incoming/", async () => {
    const { params } = await put("incoming/readme.txt", "not a feed");
    await using loads = await introspectWorkflow(env.LOAD_FEED);
    const result = await deliver(
      notification("incoming/readme.txt", params.etag, params.size),
      notification("rejects/feed.ndjson.ndjson", params.etag, params.size),
      { ...notification("incoming/gone.ndjson", params.etag, params.size), action: "DeleteObject" },
      "not an event",
    );
    expect(result.explicitAcks).toEqual(["message-0", "message-1", "message-2", "message-3"]);
    expect(await loads.get()).toEqual([]);
  });

  it("retries a message whose load cannot be started, so that one that keeps failing reaches the dead-letter queue", async () => {
    const [[key, text]] = fresh([["incoming/feed.csv", feedCsv]]) as [[string, string]];
    const { params } = await put(key, text);
    const unavailable = () => Promise.reject(new Error("Workflows is unavailable"));
    const down = { ...env, LOAD_FEED: { create: unavailable, get: unavailable } as unknown as Workflow };
    const batch = createMessageBatch("lien-feed-events", [
      { id: "message-0", timestamp: new Date(), attempts: 1, body: notification(key, params.etag, params.size) },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, down);
    const result = await getQueueResult(batch, ctx);
    expect(result.retryMessages).toEqual([{ msgId: "message-0" }]);
    expect(result.explicitAcks).toEqual([]);
  });
});

describe("the aggregates steps", () => {
  it("refreshing the queued debtors a few at a time leaves the aggregates one refresh leaves", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const text = [...generateFilings({ filings: 200, seed: 9, now: Date.now() })]
      .map((r) => JSON.stringify(lienLine(r, today)))
      .join("\n");
    await importSharded(shardDatabases, "generated.ndjson", stream(text), { deferRefresh: true });
    let batches = 0;
    for (const db of shardDatabases.databases.values()) {
      for (let more = true; more; batches++) more = await refreshQueued(db, { limit: 7 });
    }
    // Several batches in some shard, not one each.
    expect(batches).toBeGreaterThan(shardDatabases.databases.size * 2);
    const inParts = await tables();
    await clearAllShards();
    await importSharded(shardDatabases, "generated.ndjson", stream(text), { deferRefresh: true });
    for (const db of shardDatabases.databases.values()) await refreshQueued(db);
    expect(inParts).toEqual(await tables());
  });

  it("say how many queued debtors are left by the keys each batch took, not a thousand a batch", async () => {
    const today = new Date().toISOString().slice(0, 10);
    // One state's debtors, in the last shard: the shards before it have none, and their batches take none.
    const text = [...generateFilings({ filings: 60, seed: 91, now: Date.now(), state: "PA" })]
      .map((r) => JSON.stringify(lienLine(r, today)))
      .join("\n");
    const statement = Object.getPrototypeOf(env.DB.prepare("select 1")) as D1PreparedStatement;
    const { run: runStatement } = statement;
    const { now } = Date;
    let refreshing = false;
    let looking = false;
    let passed = 0;
    const seen: { said: number; queued: number }[] = [];
    // Once the aggregates steps run, each look at the clock is three seconds on: every progress save is due.
    Date.now = () => {
      if (refreshing) passed += 3_000;
      return now() + passed;
    };
    statement.run = async function (this: D1PreparedStatement, ...args: unknown[]) {
      const out = await (runStatement as (...a: unknown[]) => Promise<D1Result>).apply(this, args);
      const sql = (this as unknown as { statement?: string }).statement ?? "";
      if (!looking && sql.includes("json_set") && sql.includes("feed_loads")) {
        looking = true;
        try {
          const saved = await d1Of("CO")
            .prepare("select checkpoint ->> '$.refreshing.left' as left from feed_loads")
            .first<{ left: number | null }>();
          if (saved?.left != null) {
            refreshing = true;
            let queued = 0;
            for (const d1 of shards.databases.values()) {
              queued += Number(await d1.prepare("select count(*) as n from debtors_to_refresh").first("n"));
            }
            seen.push({ said: saved.left, queued });
          }
        } finally {
          looking = false;
        }
      }
      return out;
    } as D1PreparedStatement["run"];
    try {
      await loadOnThePlatform(`incoming/pa-${++run}.ndjson`, text, 64 * 1024);
    } finally {
      Date.now = now;
      Object.assign(statement, { run: runStatement });
    }
    expect(seen.length).toBeGreaterThan(2);
    expect(seen[0]?.queued).toBeGreaterThan(0);
    expect(seen.filter((s) => s.said < s.queued)).toEqual([]);
  });
});

describe("the rejects and warnings of a load", () => {
  it("are joined from more than a thousand parts, which are deleted a thousand keys at a time, as R2 takes them", async () => {
    const id = "many-ranges";
    const key = "incoming/CA/many.ndjson";
    const parts = 1_001;
    for (let start = 0; start < parts; start++) {
      await env.FEEDS.put(partKey("rejects", id, start), `{"range":${start}}\n`);
    }
    // Local R2 deletes any number of keys; the service's binding takes at most 1,000 a call.
    const deletes: number[] = [];
    const bucket = new Proxy(env.FEEDS, {
      get(target, prop) {
        if (prop === "delete") {
          return (keys: string | string[]) => {
            const count = Array.isArray(keys) ? keys.length : 1;
            deletes.push(count);
            if (count > 1_000) throw new Error("R2 deletes at most 1,000 keys at a time");
            return target.delete(keys);
          };
        }
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await joinProblems(bucket, id, key, false);
    const joined = await (await env.FEEDS.get(problemsKey("rejects", key)))?.text();
    expect(joined?.split("\n").filter(Boolean)).toHaveLength(parts);
    expect(joined?.startsWith('{"range":0}\n{"range":1}\n')).toBe(true);
    expect((await env.FEEDS.list({ prefix: partsPrefix("rejects", id) })).objects).toHaveLength(0);
    expect(Math.max(...deletes)).toBeLessThanOrEqual(1_000);
  });

  it("stay beside the file when the finish step that joined them is retried", async () => {
    const key = `incoming/rejected-${++run}.ndjson`;
    const [filing] = [...generateFilings({ filings: 1, seed: 11, now: Date.now() })];
    if (!filing) throw new Error("no filing generated");
    const text = `not JSON\n${JSON.stringify(lienLine(filing, new Date().toISOString().slice(0, 10)))}\n`;
    // The finish step fails as it saves its checkpoint, after the join deleted the parts.
    const r2 = Object.getPrototypeOf(env.FEEDS) as R2Bucket;
    const { put: r2Put } = r2;
    let joined = false;
    let failed = 0;
    r2.put = async function (this: R2Bucket, target: string, ...rest: unknown[]) {
      if (target.startsWith("rejects/")) joined = true;
      return (r2Put as (...a: unknown[]) => Promise<R2Object | null>).call(this, target, ...rest);
    } as R2Bucket["put"];
    try {
      await withD1(
        {
          prepare: (sql) => {
            if (joined && failed === 0 && sql.startsWith('update "feed_loads"')) {
              failed += 1;
              throw new Error("D1_ERROR: the network went away");
            }
          },
          batch: (_statements, batch) => batch(),
        },
        () => loadOnThePlatform(key, text, 4096),
      );
    } finally {
      Object.assign(r2, { put: r2Put });
    }
    expect(failed).toBe(1);
    expect(await lines(problemsKey("rejects", key))).toMatchObject([{ file: key, line: 1, raw: "not JSON" }]);
  });

  it("joined again by the load that joined them, its parts gone, stay (a pull's as a file's)", async () => {
    const id = "pull-joined-twice";
    const key = pullKey(id);
    await env.FEEDS.put(partKey("rejects", id, 0), '{"line":1}\n');
    await joinProblems(env.FEEDS, id, key, false);
    await joinProblems(env.FEEDS, id, key, false);
    expect(await lines(problemsKey("rejects", key))).toEqual([{ line: 1 }]);
    // Another load's join, with none of its own, still removes them: they are not its file version's.
    await joinProblems(env.FEEDS, "a-later-load", key, false);
    expect(await env.FEEDS.head(problemsKey("rejects", key))).toBeNull();
  });
});

/** The changes recorded for `state`'s filings, by type, in every shard. */
async function changesOf(state: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const { results } = await d1Of(state)
    .prepare("select type, count(*) as n from changes where state = ? group by type")
    .bind(state)
    .all<{ type: number; n: number }>();
  for (const r of results) out[CHANGE_TYPES[r.type] ?? String(r.type)] = r.n;
  return out;
}

describe("a state's first load", () => {
  const today = new Date().toISOString().slice(0, 10);
  const line = (r: Parameters<typeof lienLine>[0]) => JSON.stringify(lienLine(r, today));
  const records = [...generateFilings({ filings: 400, seed: 41, now: Date.now() })];
  // CA, NY and NJ share a shard in the four-shard layout, and every state one in the other.
  const ca = records.filter((r) => r.state === "CA").map((r) => ({ ...r, state: "CA" }));
  const ny = records.slice(0, 30).map((r, i) => ({ ...r, state: "NY", number: `NY-FIRST-${i}` }));
  const later = records.slice(30, 35).map((r, i) => ({ ...r, state: "NY", number: `NY-LATER-${i}`, amendments: [] }));
  const file = (rs: typeof records) => `${rs.map(line).join("\n")}\n`;

  for (const how of ["in-process", "through the Workflow"] as const) {
    it(`is its backfill ${how}, though its shard holds another state; its next load records exactly what is new`, async () => {
      const load = async (name: string, text: string) =>
        how === "in-process"
          ? importSharded(shardDatabases, `${name}.ndjson`, stream(text))
          : (await loadOnThePlatform(`incoming/${name}-${++run}.ndjson`, text, 2_000)).output;
      await load("ca", file(ca));
      expect(await changesOf("CA")).toEqual({});
      await load("ny", file(ny));
      expect(await changesOf("NY")).toEqual({});
      const { results } = await d1Of("NY")
        .prepare("select state, completed_at is not null as completed from state_backfills order by state")
        .all();
      expect(results).toEqual([
        { state: "CA", completed: 1 },
        { state: "NY", completed: 1 },
      ]);
      await load("ny-next", file([...ny, ...later]));
      expect(await changesOf("NY")).toEqual({ "filing.created": later.length });
    });
  }
});

describe("ranges of one file", () => {
  const today = new Date().toISOString().slice(0, 10);
  const records = [...generateFilings({ filings: 60, seed: 43, now: Date.now() })];

  it("compare a filing the file gives in several ranges as its last copy, as the CLI does", async () => {
    const [record, ...others] = records;
    if (!record) throw new Error("no filing generated");
    const line = (collateral: string) => JSON.stringify({ ...lienLine(record, today), collateral });
    const filler = others.map((r) => JSON.stringify(lienLine(r, today)));
    const stored = `${[line("Equipment"), ...filler].join("\n")}\n`;
    // Three copies far apart: ranges of 2,000 bytes put each in a range of its own.
    const text = `${[line("Inventory"), ...filler.slice(0, 20), line("Receivables"), ...filler.slice(20), line("Accounts")].join("\n")}\n`;
    await loadOnThePlatform(`incoming/stored-${++run}.ndjson`, stored, 2_000);
    const { output } = await loadOnThePlatform(`incoming/repeated-${++run}.ndjson`, text, 2_000);
    expect(output).toMatchObject({ repeated: 2, updated: 1 });
    const platform = await tables();
    expect(await changesOf(record.state)).toEqual({ "filing.updated": 1 });
    expect(await stagingLeft()).toBe(0);
    await clearAllShards();
    await loadAsTheCli([
      ["stored.ndjson", stored],
      ["repeated.ndjson", text],
    ]);
    expect(platform).toEqual(await tables());
  });

  it("count an amendment that a later range applies as no longer waiting, and one whose filing never comes as waiting, as the CLI does", async () => {
    const today = new Date().toISOString().slice(0, 10);
    const [filing, ...others] = [...generateFilings({ filings: 40, seed: 5, now: Date.now() })];
    if (!filing) throw new Error("no filing generated");
    const line = lienLine(filing, today) as Record<string, unknown>;
    const amending = (number: unknown) =>
      JSON.stringify({
        initial_financing_number: number,
        jurisdiction_state: line.jurisdiction_state,
        amendment_financing_number: `${String(number)}-AMX`,
        amendment_financing_date: "2025-06-01",
        amendment_financing_type_description: "Amendment - Collateral",
      });
    // The first amendment is the file's first line, its filing the last: ranges apart. The second's never comes.
    const amendments = [amending(line.initial_financing_number), amending(`${filing.number}-NEVER`)];
    const text = `${[...amendments, ...others.map((o) => JSON.stringify(lienLine(o, today))), JSON.stringify(line)].join("\n")}\n`;
    const { id, output } = await loadOnThePlatform(`incoming/amended-${++run}.ndjson`, text, 2_000);
    const loaded = await record(id);
    expect(loaded.checkpoint.ranges).toBeGreaterThan(1);
    expect(loaded.summary.pending).toBe(1);
    await clearAllShards();
    const { summaries } = await loadAsTheCli([["x.ndjson", text]]);
    expect(summaries[0]?.pending).toBe(1);
    expect((output as ImportSummary).pending).toBe(1);
  });

  it("read a CSV filing whose rows are not adjacent as one filing, whatever range each row falls in, as the CLI does", async () => {
    const header =
      "filing_state,filing_number,filing_date,role,party_type,name,street1,city,state,zip,amendment_number,amendment_date,amendment_description";
    const row = (number: string, role: string, name: string, date = "2025-03-01") =>
      role === "amendment"
        ? `GA,${number},,amendment,,,,,,,${number}-A,2025-06-01,Continuation`
        : `GA,${number},${date},${role},Organization,${name},1 Main St,Atlanta,GA,30303,,,`;
    const fillers = Array.from({ length: 40 }, (_, i) => [
      row(`F${i}`, "debtor", `Filler Debtor ${i} LLC`),
      row(`F${i}`, "secured", "Filler Bank"),
    ]).flat();
    // SPLIT's debtor first, its second debtor and lender halfway, its amendment last.
    const text = `${[
      header,
      row("SPLIT", "debtor", "Split Rows Trucking LLC"),
      ...fillers.slice(0, 40),
      row("SPLIT", "debtor", "Split Rows Leasing LLC"),
      row("SPLIT", "secured", "Peachtree Capital"),
      ...fillers.slice(40),
      row("SPLIT", "amendment", ""),
    ].join("\n")}\n`;
    const { output } = await loadOnThePlatform(`incoming/split-${++run}.csv`, text, 500);
    expect(output).toMatchObject({ rejected: 0, inserted: 41 });
    const { results } = await d1Of("GA")
      .prepare(
        "select (select count(*) from debtor_parties d where d.filing_id = f.id) as debtors, (select count(*) from secured_parties s where s.filing_id = f.id) as secured, (select count(*) from amendments a where a.filing_id = f.id) as amendments from filings f where f.number = 'SPLIT'",
      )
      .all();
    expect(results).toEqual([{ debtors: 2, secured: 1, amendments: 1 }]);
    const platform = await tables();
    await clearAllShards();
    const cli = await loadAsTheCli([["split.csv", text]]);
    expect(cli.rejects).toEqual([]);
    expect(platform).toEqual(await tables());
  });
});
