/**
 * Pulls of New York City's register (ACRIS personal property) from the
 * stand-in Socrata portal (scripts/socrataPortal.ts, answering in-process):
 * the three datasets paged by `:id`, Master first; the same tables as
 * loading the portal's files; `--since` a day; later pulls that ask what
 * changed; and the daily Cron Trigger's PullSource Workflow.
 */
import { createExecutionContext, createScheduledController, introspectWorkflow } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SocrataPortal } from "../scripts/socrataPortal.ts";
import { shardDb } from "../src/db/shards.ts";
import { emptySummary, sumOf } from "../src/feed/import.ts";
import { advanceThrough, assembleStep, finishLoad } from "../src/feed/sources/assemble.ts";
import { nyc } from "../src/feed/sources/nyc.ts";
import {
  endPull,
  foundAnything,
  newPull,
  type PullSummary,
  pagesDone,
  pullPage,
  pullState,
  savePosition,
} from "../src/feed/sources/pull.ts";
import { sodaCsvRows } from "../src/feed/sources/soda.ts";
import { stageFile } from "../src/feed/sources/stage.ts";
import worker from "../src/index.ts";
import { dailyPullId } from "../src/platform/pullSource.ts";
import { stream } from "./feeds.ts";
import master from "./fixtures/sources/nyc-master.json?raw";
import parties from "./fixtures/sources/nyc-parties.csv?raw";
import references from "./fixtures/sources/nyc-references.json?raw";
import { clearAllShards, shardDatabases } from "./helpers.ts";
import { everyTable } from "./tables.ts";

const PORTAL = "https://portal.test";
const db = shardDb(shardDatabases);
const TEN_DAYS_AGO = new Date(Date.now() - 10 * 86_400_000).toISOString();

/** The tables a load writes, but where each row was read and when pulls ran (and `skip`). */
const tables = (skip: string[] = []) =>
  everyTable({
    skip,
    reads: {
      source_rows: "select source, tab, row_id, filing, part, data, pending from source_rows",
      pending_amendments: "select state, filing_number, number, filed_at, kind, description from pending_amendments",
      source_pulls: "select source, through from source_pulls",
    },
  });

let portal: SocrataPortal;
/** The hosts asked, by any fetch of this isolate. */
let hosts: string[];
const realFetch = globalThis.fetch;

beforeEach(async () => {
  await clearAllShards();
  portal = new SocrataPortal();
  const partyRows = [];
  for await (const read of sodaCsvRows(stream(parties))) if ("fields" in read) partyRows.push(read.fields);
  portal.add("sv7x-dduq", JSON.parse(master), TEN_DAYS_AGO);
  portal.add("6y3e-jcrc", JSON.parse(references), TEN_DAYS_AGO);
  portal.add("nbbg-wtuz", partyRows, TEN_DAYS_AGO);
  // The Workflow's requests too: it runs in this isolate.
  hosts = [];
  globalThis.fetch = (input, init) => {
    hosts.push(new URL(new Request(input, init).url).host);
    return portal.fetch(input, init);
  };
});

afterEach(() => {
  globalThis.fetch = realFetch;
});

/** Assembles and loads what is pending, as the import does after staging. */
async function assembleAll(now: Date) {
  let filings = emptySummary();
  for (let after = ""; ; ) {
    const step = await assembleStep(shardDatabases, nyc, after, { now });
    if (step.last === null) break;
    after = step.last;
    filings = sumOf(filings, step.summary);
  }
  return filings;
}

/** `npm run import -- --source nyc-acris --pull --portal PORTAL --page-size N [--since DAY]`, in-process. */
async function pull(pageSize: number, since: string | null = null) {
  const now = new Date();
  const state = await pullState(db, nyc);
  let position = newPull(since, state.changedSince);
  await savePosition(db, nyc, position);
  while (!pagesDone(nyc, position)) {
    position = await pullPage(db, nyc, position, { portal: PORTAL, pageSize, fetch: portal.fetch, now });
    await savePosition(db, nyc, position);
  }
  const filings = await assembleAll(now);
  const summary: PullSummary = { rows: position.counts, pages: position.pages, filings, unrecognised: {} };
  if (foundAnything(summary)) await finishLoad(shardDatabases, nyc, `pull nyc-acris ${PORTAL}`, filings, now);
  await endPull(db, nyc, position, summary, now);
  return summary;
}

const asked = (from: number) =>
  portal.requests.slice(from).map((r) => [r.dataset, r.params.$where ?? null, r.params.$offset]);

describe("a pull of New York City's register", () => {
  it("pages the three datasets by :id, Master first, and loads what the portal's files load", async () => {
    const now = new Date();
    for (const [file, text] of [
      ["sv7x-dduq.json", master],
      ["6y3e-jcrc.json", references],
      ["nbbg-wtuz.csv", parties],
    ] as const) {
      await advanceThrough(db, nyc, (await stageFile(db, nyc, file, stream(text), { now })).newest);
    }
    await finishLoad(shardDatabases, nyc, "files", await assembleAll(now), now);
    const fromFiles = await tables();

    await clearAllShards();
    const summary = await pull(10);
    expect(summary.rows).toMatchObject({ rows: 44, changed: 44, rejected: 0 });
    expect(summary.filings).toMatchObject({ inserted: 6, pending: 1 });
    // Each page after a dataset's first asks again for the row before it (the page before's last).
    expect(asked(0)).toEqual([
      ["sv7x-dduq", null, "0"],
      ["sv7x-dduq", null, "9"],
      ["6y3e-jcrc", null, "0"],
      ["nbbg-wtuz", null, "0"],
      ["nbbg-wtuz", null, "9"],
      ["nbbg-wtuz", null, "19"],
    ]);
    expect(new Set(portal.requests.map((r) => r.params.$order))).toEqual(new Set([":id"]));
    expect(await tables()).toEqual(fromFiles);
  });

  it("asks later for what changed since the last pull began, and reads a party the register changed in place", async () => {
    await pull(50);
    const before = await tables();
    const from = portal.requests.length;
    expect((await pull(50)).rows).toMatchObject({ rows: 0 });
    const window = asked(from).map(([, where]) => where);
    expect(window).toEqual(
      [0, 1, 2].map(() => expect.stringMatching(/^:updated_at > '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d'$/)),
    );
    expect(await tables()).toEqual(before);

    portal.change("nbbg-wtuz", (f) => f.name === "CHEN, WEI", { zip: "11355" }, new Date().toISOString());
    const changed = await pull(50);
    expect(changed.rows).toMatchObject({ rows: 2, changed: 2 });
    expect(changed.filings).toMatchObject({ read: 1, updated: 1 });
  });

  it("reads with --since the documents recorded since a day, and the reference and party rows changed since", async () => {
    const now = new Date().toISOString();
    const today = now.slice(0, 10);
    portal.add(
      "sv7x-dduq",
      [
        {
          document_id: "2026112000100001",
          doc_type: "CONT",
          crfn: "2026000410100",
          recorded_datetime: `${today}T00:00:00.000`,
        },
      ],
      now,
    );
    portal.add("6y3e-jcrc", [{ document_id: "2026112000100001", crfn: "2022000081234" }], now);
    portal.add(
      "nbbg-wtuz",
      [{ document_id: "2026112000100001", party_type: "1", name: "HUDSON STREET BAKERY LLC" }],
      now,
    );
    const since = new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10);
    const summary = await pull(50, since);
    expect(asked(0).map(([dataset, where]) => [dataset, where])).toEqual([
      ["sv7x-dduq", `(recorded_datetime >= '${since}T00:00:00' OR recorded_datetime IS NULL)`],
      ["6y3e-jcrc", `:updated_at >= '${since}T00:00:00'`],
      ["nbbg-wtuz", `:updated_at >= '${since}T00:00:00'`],
    ]);
    // The continuation alone, its filing not loaded: it waits for it as an amendment line.
    expect(summary.rows).toMatchObject({ rows: 3, changed: 3 });
    expect(summary.filings).toMatchObject({ amendments: 1, pending: 1 });
  });
});

describe("the daily Cron Trigger", () => {
  it("pulls New York City's register through the PullSource Workflow from data.cityofnewyork.us", async () => {
    await pull(50);
    // The trigger's daily job marks each shard's day besides, of the change feed and of the counts' window.
    const inProcess = await tables(["change_marks", "tally_marks"]);
    await clearAllShards();
    const from = portal.requests.length;
    await using pulls = await introspectWorkflow(env.PULL_SOURCE);
    await pulls.modifyAll(async (m) => {
      await m.disableSleeps();
      await m.disableRetryDelays();
    });
    const at = new Date();
    await worker.scheduled(
      createScheduledController({ scheduledTime: at, cron: "15 6 * * *" }),
      // As an environment whose wrangler.toml names it (none does yet).
      { ...env, ...({ PULL_SOURCES: ["nyc-acris"] } as Record<string, unknown>) },
      createExecutionContext(),
    );
    const [instance] = await pulls.get();
    await instance?.waitForStatus("complete").catch(async (err) => {
      throw new Error(`${(err as Error).message}: ${JSON.stringify(await instance.getError().catch(() => null))}`);
    });
    expect((await (await env.PULL_SOURCE.get(dailyPullId("nyc-acris", at))).status()).status).toBe("complete");
    expect(portal.requests.slice(from).map((r) => r.dataset)).toEqual(["sv7x-dduq", "6y3e-jcrc", "nbbg-wtuz"]);
    expect(new Set(hosts)).toEqual(new Set(["data.cityofnewyork.us"]));
    expect(await tables(["change_marks", "tally_marks"])).toEqual(inProcess);
  });
});
