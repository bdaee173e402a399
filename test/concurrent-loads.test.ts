/**
 * Loads at once into one shard: two imports started together, of disjoint
 * or of overlapping files, both finish, every filing is loaded once, every
 * change is recorded once, and the tables are those of the same loads run
 * one after the other. New filing ids are assigned inside the writing
 * transaction and a replacement only replaces the revision it read
 * (src/db/load.ts), so the loser of a race reads again instead of failing.
 */
import { introspectWorkflowInstance } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { generateFilings } from "../seed/generate.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { Backfills, completeBackfills } from "../src/feed/backfills.ts";
import { lienLine } from "../src/feed/export.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { loadId } from "../src/platform/feedFiles.ts";
import { release } from "../src/platform/instances.ts";
import { stream } from "./feeds.ts";
import { allD1, clearAllShards, d1Of, shardDatabases } from "./helpers.ts";

const today = new Date().toISOString().slice(0, 10);
const ndjson = (records: FilingRecord[]) => `${records.map((r) => JSON.stringify(lienLine(r, today))).join("\n")}\n`;

/**
 * Every shard's filings, parties, amendments, changes (and their name-index
 * rows) and counts by what they say, not by the ids the database gave them
 * (which depend on which load wrote first).
 */
async function contents(): Promise<string[]> {
  const out: string[] = [];
  const queries = [
    "select state, number, filed_at, kind, lapse_date, collateral, terminated_at from filings",
    "select f.state, f.number, d.position, d.name, d.name_key, d.zip from debtor_parties d join filings f on f.id = d.filing_id",
    "select f.state, f.number, s.position, l.name, n.words from secured_parties s join filings f on f.id = s.filing_id join lenders l on l.id = f.lenders ->> s.position join lender_names n on n.id = s.name_id",
    "select f.state, f.number, a.position, a.number, a.kind from amendments a join filings f on f.id = a.filing_id",
    "select c.state, c.type, f.number, c.amendment, c.changed_fields from changes c join filings f on f.id = c.filing_id",
    // The change feed's name index, by the change each row files (a row's id holds its change's number).
    "select c.state, c.type, f.number, c.amendment, n.id % 4096 as slot, n.key from change_names n join changes c on c.seq = n.id / 4096 join filings f on f.id = c.filing_id",
    "select scope, place, name, facet, filings, old from facet_counts",
    "select scope, place, name, facet, day, filings, through from facet_tallies",
    "select name_key, state, name, filing_count from debtor_names",
  ];
  for (const [i, d1] of allD1.entries()) {
    for (const q of queries) {
      const { results } = await d1.prepare(q).all();
      out.push(...results.map((r) => `${i} ${q.slice(7, 30)} ${JSON.stringify(r)}`));
    }
  }
  return out.sort();
}

let put = 0;

/** Loads `text` through the LoadFeed Workflow (as `npm run import -- --remote` would), in ranges of 32 KB. */
async function loadOnThePlatform(text: string) {
  const key = `incoming/concurrent-${++put}.ndjson`;
  const object = await env.FEEDS.put(key, text);
  if (!object) throw new Error(`no object for ${key}`);
  const id = await loadId(key, object.etag, object.uploaded);
  await using instance = await introspectWorkflowInstance(env.LOAD_FEED, id);
  await instance.modify((m) => m.disableRetryDelays());
  release(
    await env.LOAD_FEED.create({ id, params: { key, etag: object.etag, size: object.size, rangeBytes: 32_768 } }),
  );
  await instance.waitForStatus("complete");
  return instance.getOutput();
}

/** Loads each file in turn, or all at once; the first through the Workflow when `workflow`; returns each load's summary. */
async function loadFiles(files: string[], together: boolean, workflow = false) {
  const one = (text: string, i: number) =>
    workflow && i === 0 ? loadOnThePlatform(text) : importSharded(shardDatabases, `load-${i}.ndjson`, stream(text));
  if (together) return Promise.all(files.map(one));
  const summaries = [];
  for (const [i, text] of files.entries()) summaries.push(await one(text, i));
  return summaries;
}

/** Loads `base` first (so the states hold filings and loads record changes), then `files`. */
async function scenario(base: FilingRecord[], files: string[], together: boolean, workflow = false) {
  await clearAllShards();
  await importSharded(shardDatabases, "base.ndjson", stream(ndjson(base)));
  const summaries = (await loadFiles(files, together, workflow)) as { inserted: number; updated: number }[];
  return { summaries, contents: await contents() };
}

const generated = (filings: number, seed: number) => [...generateFilings({ filings, seed, now: Date.now() })];

beforeEach(clearAllShards);

describe("two loads into one shard at once", () => {
  it("of different filings both load every filing, once, and record each change once", async () => {
    const records = generated(900, 31);
    // Every state of the first 300 is held before the loads, so their new filings are changes.
    const [base, first, second] = [records.slice(0, 300), records.slice(300, 600), records.slice(600)];
    const held = new Set(base.map((r) => r.state));
    const files = [ndjson(first.filter((r) => held.has(r.state))), ndjson(second.filter((r) => held.has(r.state)))];
    const sequential = await scenario(base, files, false);
    for (let round = 0; round < 5; round++) {
      const together = await scenario(base, files, true);
      expect(together.summaries.map((s) => s.inserted)).toEqual(sequential.summaries.map((s) => s.inserted));
      expect(together.contents).toEqual(sequential.contents);
    }
  });

  it("of the same filings, changed, load each once: one insert or update, the other unchanged", async () => {
    const records = generated(400, 32);
    const [base, rest] = [records.slice(0, 200), records.slice(200)];
    const held = new Set(base.map((r) => r.state));
    const later = rest.filter((r) => held.has(r.state));
    // Both files carry the same new filings and the same change to the stored ones.
    const changed = base.map((r) => ({ ...r, collateral: "All inventory, now and later" }));
    const file = ndjson([...changed, ...later]);
    const sequential = await scenario(base, [file, file], false);
    expect(sequential.summaries[1]).toMatchObject({ inserted: 0, updated: 0 });
    for (let round = 0; round < 5; round++) {
      const together = await scenario(base, [file, file], true);
      const [a, b] = together.summaries;
      expect((a?.inserted ?? 0) + (b?.inserted ?? 0)).toBe(later.length);
      expect((a?.updated ?? 0) + (b?.updated ?? 0)).toBe(changed.length);
      expect(together.contents).toEqual(sequential.contents);
    }
  });
});

describe("an import beside a Workflow load, into one shard at once", () => {
  it("both load every filing once and record each change once, as one after the other", async () => {
    const records = generated(300, 34);
    const [base, first, second] = [records.slice(0, 100), records.slice(100, 200), records.slice(200)];
    const held = new Set(base.map((r) => r.state));
    // Disjoint new filings, and the same change to the stored ones in both.
    const changed = base.map((r) => ({ ...r, collateral: "All equipment, now and later" }));
    const files = [
      ndjson([...changed, ...first.filter((r) => held.has(r.state))]),
      ndjson([...changed, ...second.filter((r) => held.has(r.state))]),
    ];
    const sequential = await scenario(base, files, false, true);
    for (let round = 0; round < 3; round++) {
      const together = await scenario(base, files, true, true);
      const updated = together.summaries.reduce((n, s) => n + s.updated, 0);
      expect(updated).toBe(changed.length);
      expect(together.contents).toEqual(sequential.contents);
    }
  }, 300_000);
});

describe("an amendment and its filing loaded at once by two loads", () => {
  it("end with the amendment applied to the filing, whichever load commits first", async () => {
    const records = generated(240, 33);
    const [base, rest] = [records.slice(0, 40), records.slice(40)];
    const held = new Set(base.map((r) => r.state));
    const later = rest.filter((r) => held.has(r.state));
    // One load brings the filings, the other an amendment line for each of them.
    const amendmentLines = later.map((r, i) =>
      JSON.stringify({
        initial_financing_number: r.number,
        jurisdiction_state: r.state,
        amendment_financing_number: `${r.number}-RACE${i}`,
        amendment_financing_date: `${today}T09:00:00Z`,
        amendment_financing_type_description: "Continuation",
      }),
    );
    for (let round = 0; round < 5; round++) {
      await clearAllShards();
      await importSharded(shardDatabases, "base.ndjson", stream(ndjson(base)));
      await loadFiles([ndjson(later), `${amendmentLines.join("\n")}\n`], true);
      let amended = 0;
      let waiting = 0;
      for (const d1 of allD1) {
        amended += Number(
          (await d1.prepare("select count(*) as n from amendments where number like '%-RACE%'").first("n")) ?? 0,
        );
        waiting += Number((await d1.prepare("select count(*) as n from pending_amendments").first("n")) ?? 0);
      }
      expect({ amended, waiting }).toEqual({ amended: later.length, waiting: 0 });
    }
  });
});

describe("a state's backfill under way when another load of the state arrives", () => {
  /** Filings of one state the service holds none of, in three parts; the state's changes and backfill row. */
  async function oneState() {
    const records = generated(120, 35);
    const counts = new Map<string, number>();
    for (const r of records) counts.set(r.state, (counts.get(r.state) ?? 0) + 1);
    const state = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "";
    const mine = records.filter((r) => r.state === state);
    const third = Math.floor(mine.length / 3);
    const parts = [mine.slice(0, third), mine.slice(third, 2 * third), mine.slice(2 * third)];
    const d1 = d1Of(state);
    const changes = async () =>
      Number((await d1.prepare("select count(*) as n from changes where state = ?").bind(state).first("n")) ?? 0);
    const backfill = () =>
      d1
        .prepare("select source, completed_at is not null as completed from state_backfills where state = ?")
        .bind(state)
        .first();
    return { state, parts, changes, backfill };
  }

  /** One step of a load made of steps (an office's register): its own decisions, taken again from the database. */
  const step = (load: string, records: FilingRecord[], file: string) =>
    importSharded(shardDatabases, file, stream(ndjson(records)), {
      backfills: new Backfills(shardDatabases, load, new Date()),
    });

  it("is completed only by the load that began it: the other load's filings and the rest of the first's announce nothing", async () => {
    const { state, parts, changes, backfill } = await oneState();
    const [first, other, rest] = parts;
    expect(first?.length).toBeGreaterThan(3);
    // The register's first step begins the state's backfill.
    await step("import xx register", first ?? [], "step-1.ndjson");
    // A file of the state, loaded to its end while the register's load is under way: part of the backfill.
    await importSharded(shardDatabases, "beside.ndjson", stream(ndjson(other ?? [])));
    expect(await backfill()).toEqual({ source: "import xx register", completed: 0 });
    // The register's next step: still the state's history.
    await step("import xx register", rest ?? [], "step-2.ndjson");
    expect(await changes()).toBe(0);
    // Its load ends: the backfill is complete, and the state's next load is announced.
    await completeBackfills(shardDatabases, [state], "import xx register", new Date());
    expect(await backfill()).toEqual({ source: "import xx register", completed: 1 });
    const later = generated(40, 36).map((r, i) => ({ ...r, state, number: `LATER-${i}` }));
    await importSharded(shardDatabases, "later.ndjson", stream(ndjson(later)));
    expect(await changes()).toBeGreaterThanOrEqual(later.length);
  });

  it("is taken over by an operator's --backfill load, which completes it", async () => {
    const { parts, changes, backfill } = await oneState();
    const [first, other] = parts;
    await step("load incoming/given-up.ndjson", first ?? [], "step-1.ndjson");
    const declared = new Backfills(
      shardDatabases,
      "import again.ndjson",
      new Date(),
      {},
      { backfill: true, force: false },
    );
    await importSharded(shardDatabases, "again.ndjson", stream(ndjson(other ?? [])), { backfills: declared });
    expect(await backfill()).toEqual({ source: "import again.ndjson", completed: 0 });
    await declared.complete(new Date());
    expect(await backfill()).toEqual({ source: "import again.ndjson", completed: 1 });
    expect(await changes()).toBe(0);
  });
});
