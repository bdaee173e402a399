/**
 * GET /filings/changes, the change feed: what each load records, in the
 * same transaction as its rows; what a client polling it sees (every change,
 * once, in order per state, whatever commits while it polls); the daily
 * job's lapses and retention; and the cursor's contract.
 */
import { createExecutionContext, createScheduledController } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { shardChange, shardChanges } from "../src/changes/read.ts";
import { reindexChanges } from "../src/changes/reindex.ts";
import type { FilingRecord } from "../src/db/records.ts";
import worker from "../src/index.ts";
import { database } from "../src/queries/db.ts";
import {
  allD1,
  clearAllShards,
  d1Of,
  daysAgo,
  filing,
  get,
  getJson,
  loadDelta,
  party,
  registerKeys,
  shardDatabases,
} from "./helpers.ts";

type Change = Awaited<ReturnType<typeof page>>["changes"][number];

/** One page of the feed. */
async function page(query: string) {
  return getJson(`/filings/changes?${query}` as "/filings/changes");
}

/** Every change from `cursor` (or the start) on, following next_cursor; and the cursor to resume from. */
async function walk(query = "", cursor?: string): Promise<{ changes: Change[]; cursor: string; pages: number }> {
  const changes: Change[] = [];
  let at = cursor;
  let pages = 0;
  for (;;) {
    const params = new URLSearchParams(query);
    if (at) params.set("cursor", at);
    const body = await page(params.toString());
    pages += 1;
    changes.push(...body.changes);
    at = body.response_metadata.next_cursor;
    if (!body.response_metadata.has_more) return { changes, cursor: at, pages };
  }
}

/** What a change says, without its id or recording time (which the database assigns). */
const said = (c: Change) => ({
  type: c.type as string,
  state: c.jurisdiction_state,
  number: c.initial_financing_number,
  occurred_at: c.occurred_at,
  ...(c.amendment ? { amendment: c.amendment } : {}),
  ...(c.changed_fields ? { changed_fields: c.changed_fields } : {}),
});
const bySubject = (
  a: { state: string; number: string; type: string },
  b: { state: string; number: string; type: string },
) => `${a.state} ${a.number} ${a.type}`.localeCompare(`${b.state} ${b.number} ${b.type}`);

beforeEach(async () => {
  await clearAllShards();
  await registerKeys();
});

/** Six filings in three states (three shards of the four-shard layout). */
function base(): FilingRecord[] {
  return [
    filing({ number: "CHG-A", filedAt: daysAgo(40) }),
    filing({ number: "CHG-B", filedAt: daysAgo(39), state: "NY" }),
    filing({ number: "CHG-C", filedAt: daysAgo(38), state: "TX" }),
    filing({ number: "CHG-D", filedAt: daysAgo(37) }),
    filing({ number: "CHG-E", filedAt: daysAgo(36), state: "TX" }),
    filing({ number: "CHG-F", filedAt: daysAgo(35), state: "NY" }),
  ];
}

const amendment = (number: string, kind: FilingRecord["amendments"][number]["kind"], description: string, ago = 1) => ({
  number,
  filedAt: daysAgo(ago),
  kind,
  description,
});

/** The next day's file: one change of every kind, and a new filing. */
function nextDay(records: FilingRecord[]): FilingRecord[] {
  const [a, b, c, d, e, f] = [records[0], records[1], records[2], records[3], records[4], records[5]];
  return [
    { ...a!, amendments: [amendment("CHG-A-1", "continuation", "Continuation")] },
    { ...b!, amendments: [amendment("CHG-B-1", "termination", "Termination")] },
    {
      ...c!,
      securedParties: [...c!.securedParties, party("Harbor Point Capital LLC")],
      amendments: [amendment("CHG-C-1", "assignment", "Assignment")],
    },
    {
      ...d!,
      amendments: [
        amendment("CHG-D-1", "termination", "Termination", 3),
        amendment("CHG-D-2", "reinstatement", "Termination Revoked"),
      ],
    },
    { ...e!, amendments: [amendment("CHG-E-1", "collateral_change", "Amendment - Collateral")] },
    { ...f!, debtors: [party("Acme Widgets LLC", { label: "Manufacturing", street1: "9 Harbor Way" })] },
    filing({ number: "CHG-G", filedAt: daysAgo(1) }),
  ];
}

describe("what a load records", () => {
  it("records one change per filing and kind, with its fields, and nothing when the same load comes again", async () => {
    const records = base();
    await loadDelta(records);
    const first = await walk();
    expect(first.changes.map(said).sort(bySubject)).toEqual(
      records
        .map((r) => ({ type: "filing.created", state: r.state, number: r.number, occurred_at: r.filedAt }))
        .sort(bySubject),
    );

    const next = nextDay(records);
    await loadDelta(next);
    const second = await walk("", first.cursor);
    /** The change an amendment of `next` records, its date as loaded. */
    const amended = (n: string, type: string) => {
      const record = next.find((r) => r.amendments.some((a) => a.number === n))!;
      const a = record.amendments.find((x) => x.number === n)!;
      return {
        type,
        state: record.state,
        number: record.number,
        occurred_at: a.filedAt,
        amendment: {
          amendment_financing_number: n,
          amendment_financing_date: a.filedAt,
          amendment_financing_type_description: a.description,
          amendment_kind: a.kind,
        },
      };
    };
    expect(second.changes.map(said).sort(bySubject)).toEqual(
      [
        amended("CHG-A-1", "filing.continued"),
        amended("CHG-B-1", "filing.terminated"),
        amended("CHG-C-1", "filing.assigned"),
        amended("CHG-D-1", "filing.terminated"),
        amended("CHG-D-2", "filing.reinstated"),
        amended("CHG-E-1", "filing.amended"),
        {
          type: "filing.updated",
          state: "NY",
          number: "CHG-F",
          occurred_at: next[5]!.filedAt,
          changed_fields: ["debtor_parties"],
        },
        { type: "filing.created", state: "CA", number: "CHG-G", occurred_at: next[6]!.filedAt },
      ].sort(bySubject),
    );
    // Each change carries its filing as it stands now.
    const terminated = second.changes.find(
      (c) => c.type === "filing.terminated" && c.initial_financing_number === "CHG-B",
    );
    expect(terminated?.lien.estimated_lien_status).toBe("Terminated");
    expect(terminated?.lien.amendments?.map((a) => a.amendment_financing_number)).toEqual(["CHG-B-1"]);
    const assigned = second.changes.find((c) => c.type === "filing.assigned");
    expect(assigned?.lien.involved_parties.secured_parties.map((s) => s.name)).toContain("Harbor Point Capital LLC");

    await loadDelta(next);
    const third = await walk("", second.cursor);
    expect(third.changes).toEqual([]);
    expect(third.cursor).toBe(second.cursor);
  });

  it("files each change in the name index as re-indexing the kept changes from their filings does", async () => {
    // Re-indexing files a change under its filing's parties as they are now: loads here add none.
    const records = base();
    await loadDelta(records);
    await loadDelta(nextDay(records).filter((r) => ["CHG-A", "CHG-B", "CHG-D", "CHG-E", "CHG-G"].includes(r.number)));
    const index = async () => {
      const rows: unknown[] = [];
      for (const d1 of allD1)
        rows.push((await d1.prepare("select id, key from change_names order by id").all()).results);
      return rows;
    };
    const written = await index();
    expect(written.flat().length).toBeGreaterThan(0);
    for (const d1 of allD1) await d1.prepare("delete from change_names").run();
    for (const db of shardDatabases.databases.values()) await reindexChanges(db);
    expect(await index()).toEqual(written);
  });

  it("gives every change an id of its own, stable from poll to poll", async () => {
    await loadDelta(base());
    const [once, again] = [await walk(), await walk()];
    expect(new Set(once.changes.map((c) => c.id)).size).toBe(once.changes.length);
    expect(again.changes.map((c) => c.id)).toEqual(once.changes.map((c) => c.id));
  });
});

describe("a client polling the feed", () => {
  it("sees every change, once, in order per state, while loads into several shards commit as it polls", async () => {
    const batches = Array.from({ length: 6 }, (_, b) =>
      Array.from({ length: 25 }, (_, i) =>
        filing({
          number: `POLL-${b}-${i}`,
          state: ["CA", "TX", "NY"][(b + i) % 3]!,
          filedAt: daysAgo(1 + ((b * 25 + i) % 30)),
        }),
      ),
    );
    const seen: Change[] = [];
    let cursor: string | undefined;
    let loading = true;
    const poll = async () => {
      const params = new URLSearchParams({ limit: "7" });
      if (cursor) params.set("cursor", cursor);
      const body = await page(params.toString());
      seen.push(...body.changes);
      cursor = body.response_metadata.next_cursor;
      return body.response_metadata.has_more;
    };
    const poller = (async () => {
      while (loading) await poll();
    })();
    // Each load writes its groups to three shards while the poller reads them all.
    for (const batch of batches) await loadDelta(batch);
    loading = false;
    await poller;
    while (await poll());

    const all = (await walk()).changes;
    expect(all).toHaveLength(150);
    expect(seen.map((c) => c.id).sort()).toEqual(all.map((c) => c.id).sort());
    // Per state, in the order the database recorded them.
    for (const state of ["CA", "TX", "NY"]) {
      const order = (list: Change[]) => list.filter((c) => c.jurisdiction_state === state).map((c) => c.id);
      expect(order(seen)).toEqual(order(all));
    }
  });

  it("keeps next_cursor on an empty page, asks to wait a while, and answers 304 to the same poll", async () => {
    await loadDelta(base());
    const { cursor } = await walk();
    const res = await get(`/filings/changes?cursor=${cursor}`);
    const body = (await res.json()) as { changes: unknown[]; response_metadata: { next_cursor: string } };
    expect(body.changes).toEqual([]);
    expect(body.response_metadata.next_cursor).toBe(cursor);
    expect(res.headers.get("retry-after")).toBe("300");
    expect(res.headers.get("cache-control")).toBe("private, no-cache");
    const again = await get(`/filings/changes?cursor=${cursor}`, undefined, {
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    // Finding nothing reads a handful of rows: each shard's next change, none.
    const timing = again.headers.get("server-timing") ?? "";
    const rows = Number(/(\d+) rows read/.exec(timing)?.[1]);
    expect(rows, timing).toBeLessThanOrEqual(3 * Number(/(\d+) shards/.exec(timing)?.[1] ?? 1));
    // A new change shows at once: the feed is never answered from the edge cache.
    await loadDelta([filing({ number: "CHG-NEW" })]);
    const fresh = await page(`cursor=${cursor}`);
    expect(fresh.changes.map((c) => c.initial_financing_number)).toEqual(["CHG-NEW"]);
  });

  it("reads each shard's filings only for the changes the merged page shows", async () => {
    // Changes in four states, one per shard of the four-shard layout (one database in the other).
    const states = ["CA", "TX", "PA", "WY"];
    await loadDelta(
      states.flatMap((state) =>
        Array.from({ length: 30 }, (_, i) => filing({ state, number: `MRG-${state}-${i}`, filedAt: daysAgo(50 - i) })),
      ),
    );
    const work = async (query: string) => {
      const res = await get(`/filings/changes?${query}`);
      const body = (await res.json()) as { changes: unknown[] };
      const timing = res.headers.get("server-timing") ?? "";
      return {
        changes: body.changes.length,
        rows: Number(/(\d+) rows read/.exec(timing)?.[1]),
        trips: Number(/(\d+) batch/.exec(timing)?.[1]),
        shards: Number(/(\d+) shards/.exec(timing)?.[1] ?? 1),
        timing,
      };
    };
    const one = await work("state=CA&limit=10");
    const every = await work("limit=10");
    expect(every.changes).toBe(10);
    if (every.shards === 1) return;
    // The page's ten changes with their filings, as one state's page reads them, and each shard's
    // next eleven keys (a change row each, and its start and load time): not four pages of filings.
    expect(every.trips, every.timing).toBe(2);
    expect(every.rows, every.timing).toBeLessThanOrEqual(one.rows + every.shards * 16);
  });

  it("reads a state's page as its changes and their filings, and tells whether more follow without reading past it", async () => {
    await loadDelta(Array.from({ length: 20 }, (_, i) => filing({ number: `PGE-${i}`, filedAt: daysAgo(40 - i) })));
    const read = async (query: string) => {
      const res = await get(`/filings/changes?state=CA&${query}`);
      const body = (await res.json()) as {
        changes: unknown[];
        response_metadata: { has_more: boolean; next_cursor: string };
      };
      const { has_more: more, next_cursor: cursor } = body.response_metadata;
      const rows = Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
      return { changes: body.changes.length, more, cursor, rows };
    };
    // Ten changes, their filings, the state's newest change (whether more follow), the purge mark
    // (from the start, where the page starts) and the state's load time; from the start as from a cursor.
    const first = await read("limit=10");
    expect(first).toMatchObject({ changes: 10, more: true });
    expect(first.rows).toBeLessThanOrEqual(2 * 10 + 3);
    // The last ten: a full page with nothing after it, which says so.
    const last = await read(`limit=10&cursor=${first.cursor}`);
    expect(last).toMatchObject({ changes: 10, more: false });
    expect(last.rows).toBeLessThanOrEqual(2 * 10 + 3);
    expect(await read("limit=19")).toMatchObject({ changes: 19, more: true });
    expect(await read("limit=20")).toMatchObject({ changes: 20, more: false });
    expect(await read("limit=21")).toMatchObject({ changes: 20, more: false });
    // With types, the newest change of those types: later changes of other types are not more.
    await loadDelta(
      Array.from({ length: 5 }, (_, i) => ({
        ...filing({ number: `PGE-${i}`, filedAt: daysAgo(40 - i) }),
        amendments: [amendment(`PGE-${i}-1`, "collateral_change", "Amendment - Collateral")],
      })),
    );
    expect(await read("limit=20&types=filing.created")).toMatchObject({ changes: 20, more: false });
    expect(await read("limit=5&types=filing.amended")).toMatchObject({ changes: 5, more: false });
    expect(await read("limit=4&types=filing.amended")).toMatchObject({ changes: 4, more: true });
    expect(await read("limit=25&types=filing.created,filing.amended")).toMatchObject({ changes: 25, more: false });
    expect(await read("limit=24&types=filing.amended,filing.created")).toMatchObject({ changes: 24, more: true });
    expect(await read("limit=5&types=filing.terminated")).toMatchObject({ changes: 0, more: false });
  });

  it("reads one change by its seq as a page shows it, with its filing, and none for a seq the shard does not keep", async () => {
    await loadDelta([
      filing({ number: "ONE-1" }),
      filing({ number: "ONE-2", state: "TX" }),
      filing({ number: "ONE-3" }),
    ]);
    const db = database(d1Of("CA"));
    const page = await shardChanges(db, { state: "CA" }, "oldest", 10);
    expect(page.items.map((c) => c.filing.filing.number)).toEqual(["ONE-1", "ONE-3"]);
    for (const item of page.items) expect(await shardChange(db, item.seq)).toEqual(item);
    const newest = page.items.at(-1)!.seq;
    expect(await shardChange(db, newest + 1)).toBeUndefined();
    expect(await shardChange(db, 0)).toBeUndefined();
  });

  it("starts at the oldest change kept, or at the first recorded at or after `since`", async () => {
    await loadDelta(base());
    // Recorded ten seconds earlier, as though loaded then (recorded_at counts whole seconds, and the
    // database's clock sets it): the next load is recorded after `before`, without waiting.
    for (const d1 of allD1) await d1.prepare("update changes set recorded_at = recorded_at - 10").run();
    const before = new Date(Date.now() - 5_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    await loadDelta([filing({ number: "CHG-LATER" })]);
    expect((await walk()).changes).toHaveLength(7);
    const since = await walk(`since=${before}`);
    expect(since.changes.map((c) => c.initial_financing_number)).toEqual(["CHG-LATER"]);
    expect(since.changes.every((c) => c.recorded_at >= before)).toBe(true);
    // Half a second after the change was recorded (to the second) is after it.
    const recorded = since.changes[0]?.recorded_at ?? "";
    expect((await walk(`since=${recorded}`)).changes).toHaveLength(1);
    expect((await walk(`since=${recorded.replace("Z", ".5Z")}`)).changes).toEqual([]);
  });
});

describe("filters", () => {
  it("return exactly the changes that match, for each filter and combined", async () => {
    const records = base();
    records[0]!.debtors = [party("Smith, John", { type: "Individual" })];
    records[1]!.securedParties = [party("Wells Fargo Bank, N.A.")];
    await loadDelta(records);
    await loadDelta(nextDay(records));
    const all = (await walk()).changes;
    const expectFilter = async (query: string, keep: (c: Change) => boolean) => {
      const got = (await walk(query)).changes.map((c) => c.id).sort();
      expect(got, query).toEqual(
        all
          .filter(keep)
          .map((c) => c.id)
          .sort(),
      );
      expect(got.length, query).toBeGreaterThan(0);
    };
    await expectFilter("state=TX", (c) => c.jurisdiction_state === "TX");
    await expectFilter("types=filing.terminated,filing.reinstated", (c) =>
      ["filing.terminated", "filing.reinstated"].includes(c.type),
    );
    await expectFilter(
      "state=CA&types=filing.created",
      (c) => c.jurisdiction_state === "CA" && c.type === "filing.created",
    );
    // The exact-name rule of /debtors/search: "John Smith" finds "Smith, John".
    await expectFilter("debtor_name=John%20Smith", (c) => c.initial_financing_number === "CHG-A");
    await expectFilter(
      "debtor_name=acme%20widgets%20inc&state=NY",
      (c) => c.jurisdiction_state === "NY" && c.lien.involved_parties.debtor_parties.some((d) => /acme/i.test(d.name)),
    );
    // Whole leading words, as /secureds/recent-by-secured-party matches them.
    await expectFilter("secured_party=wells%20fargo", (c) => c.initial_financing_number === "CHG-B");
    await expectFilter("secured_party=harbor%20point&types=filing.assigned", (c) => c.type === "filing.assigned");
    expect((await walk("secured_party=wells%20far")).changes).toEqual([]);
  });

  it("read a party's changes through the name index: pages and rows read grow with its changes, not with the log", async () => {
    const many = Array.from({ length: 120 }, (_, i) =>
      filing({
        number: `WIN-${String(i).padStart(3, "0")}`,
        debtors: [party(i % 40 === 0 ? "Rare Borrower LLC" : `Common ${i} LLC`)],
        securedParties: [party(i % 40 === 1 ? "Harbor Point Capital LLC" : "First Test Bank, N.A.")],
      }),
    );
    await loadDelta(many);
    const rowsRead = async (query: string) => {
      const res = await get(`/filings/changes?${query}`);
      return Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    };
    const debtor = await walk("debtor_name=Rare%20Borrower&limit=1");
    expect(debtor.changes.map((c) => c.initial_financing_number)).toEqual(["WIN-000", "WIN-040", "WIN-080"]);
    // One page per match: the index holds the debtor's three changes, not the log's 120.
    expect(debtor.pages).toBe(3);
    const lender = await walk("secured_party=harbor%20point&limit=1");
    expect(lender.changes.map((c) => c.initial_financing_number)).toEqual(["WIN-001", "WIN-041", "WIN-081"]);
    expect(lender.pages).toBe(3);
    // What a page reads does not grow with the log: 120 more changes of other parties change nothing.
    const queries = ["debtor_name=Rare%20Borrower&limit=1", "secured_party=harbor%20point&limit=1&state=CA"];
    const before = await Promise.all(queries.map(rowsRead));
    await loadDelta(
      Array.from({ length: 120 }, (_, i) =>
        filing({ number: `MORE-${String(i).padStart(3, "0")}`, debtors: [party(`Other ${i} LLC`)] }),
      ),
    );
    expect(await Promise.all(queries.map(rowsRead))).toEqual(before);
    // Nor with how busy the lender is: a page of ten examines at most twenty entries and keeps the first ten.
    const busy = await page("secured_party=first%20test%20bank&limit=10");
    expect(busy.changes).toHaveLength(10);
    expect(busy.response_metadata.has_more).toBe(true);
    // What the page itself reads (its changes with their filings: one state's unfiltered page),
    // and under five rows per change asked for: its two entries examined, each an index row, its
    // change read by seq as the entry comes (no list of the entries built) and the filing's lenders
    // compared with the ids of the names asked for (listed once); and the other shards' marks.
    // Reading the changes through a list of the entries' seqs, and each lender's name by its id,
    // read 146 and 1,136 rows here (122 and 1,112 in one database), against 48 and 408 for the page.
    for (const limit of [10, 100]) {
      expect(await rowsRead(`secured_party=first%20test%20bank&limit=${limit}`)).toBeLessThanOrEqual(
        (await rowsRead(`state=CA&limit=${limit}`)) + 4.5 * limit + 20,
      );
    }
  });

  it("find a lender by its whole leading words however many lender names begin with them", async () => {
    // Seventy lenders whose names begin "Prairie Lending": more than a page lists by id (src/changes/read.ts).
    await loadDelta(
      Array.from({ length: 70 }, (_, i) =>
        filing({ number: `PRA-${String(i).padStart(2, "0")}`, securedParties: [party(`Prairie Lending ${i} LLC`)] }),
      ),
    );
    const numbers = async (name: string) =>
      (await walk(`secured_party=${encodeURIComponent(name)}&limit=25`)).changes
        .map((c) => c.initial_financing_number)
        .sort();
    expect(await numbers("Prairie Lending")).toEqual(
      Array.from({ length: 70 }, (_, i) => `PRA-${String(i).padStart(2, "0")}`),
    );
    // One name: "7" is a whole word, so "Prairie Lending 70 LLC" is not under it.
    expect(await numbers("Prairie Lending 7")).toEqual(["PRA-07"]);
    expect(await numbers("Prairie Lending 7 LLC")).toEqual(["PRA-07"]);
  });

  it("read a page of several types as one merge of their ranges, about what a page of every type reads", async () => {
    // Forty filings of one state, then an amendment of each: forty filing.created changes, then forty filing.amended.
    const records = Array.from({ length: 40 }, (_, i) =>
      filing({ number: `TYP-${String(i).padStart(2, "0")}`, filedAt: daysAgo(30) }),
    );
    await loadDelta(records);
    await loadDelta(
      records.map((r, i) => ({
        ...r,
        amendments: [amendment(`TYP-${i}-1`, "collateral_change", "Amendment - Collateral")],
      })),
    );
    const read = async (query: string) => {
      const res = await get(`/filings/changes?state=CA&limit=10&${query}`);
      return {
        numbers: ((await res.json()) as { changes: Change[] }).changes.map(
          (c) => `${c.type} ${c.initial_financing_number}`,
        ),
        rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]),
      };
    };
    const every = await read("");
    const two = await read("types=filing.created,filing.amended");
    const all = await read(
      `types=${["filing.created", "filing.continued", "filing.terminated", "filing.assigned", "filing.reinstated", "filing.amended", "filing.updated", "filing.lapsed"].join(",")}`,
    );
    expect(two.numbers).toEqual(every.numbers);
    expect(all.numbers).toEqual(every.numbers);
    // Each type's range is read only as far as the merged page takes it (one row past), not a page
    // of its own first, and its newest change once, where the whole log's is one row (whether more
    // follow); past five terms, the types beyond the fourth are merged first, a page (and its order)
    // of their own. Each range read a page first: 83 and 125 rows here, against 59.
    expect(two.rows).toBeLessThanOrEqual(every.rows + 3);
    expect(all.rows).toBeLessThanOrEqual(every.rows + 2 * 11 + 4);
  });

  it("list a change once though its filing names the party under two of the name's keys", async () => {
    // "John Smith" is looked for as an organization and as an individual: this filing is filed under both.
    await loadDelta([
      filing({
        number: "TWO-KEYS",
        debtors: [party("Smith, John", { type: "Individual" }), party("John Smith")],
      }),
      filing({ number: "ONE-KEY", debtors: [party("Smith, John", { type: "Individual" })] }),
    ]);
    for (const limit of [1, 10]) {
      const { changes } = await walk(`debtor_name=John%20Smith&limit=${limit}`);
      expect(changes.map((c) => c.initial_financing_number)).toEqual(["TWO-KEYS", "ONE-KEY"]);
    }
  });

  it("read a debtor's changes in one state as in every state: each change by its seq, its state checked on it", async () => {
    // Thirty filings of California, each naming the debtor as an individual and as an organization.
    await loadDelta(
      Array.from({ length: 30 }, (_, i) =>
        filing({
          number: `ONE-STATE-${i}`,
          debtors: [party("Smith, John", { type: "Individual" }), party(`Smith ${i} LLC`)],
        }),
      ),
    );
    const rows = async (query: string) => {
      const timing = (await get(`/filings/changes?debtor_name=John%20Smith&limit=10${query}`)).headers.get(
        "server-timing",
      );
      // Over every shard, what California's shard read ("at most N on one"); else the one shard's.
      return Number((/at most (\d+) on one/.exec(timing ?? "") ?? /(\d+) rows read/.exec(timing ?? ""))?.[1]);
    };
    expect(await rows("&state=CA")).toBeLessThanOrEqual(await rows(""));
  });

  it("find an individual by the exact-name rule, though the index files last name and first initial together", async () => {
    await loadDelta([
      filing({ number: "IND-1", debtors: [party("Smith, John A", { type: "Individual" })] }),
      filing({ number: "IND-2", debtors: [party("Smith, Jane", { type: "Individual" })] }),
      filing({ number: "IND-3", debtors: [party("Smith, J", { type: "Individual" })] }),
      filing({ number: "IND-4", debtors: [party("John Smith Holdings LLC")] }),
    ]);
    const numbers = async (name: string) =>
      (await walk(`debtor_name=${encodeURIComponent(name)}`)).changes.map((c) => c.initial_financing_number).sort();
    // "John Smith" finds John (any middle) and the initial J; not Jane; and the organization "John Smith Holdings" is another key.
    expect(await numbers("John Smith")).toEqual(["IND-1", "IND-3"]);
    expect(await numbers("J Smith")).toEqual(["IND-1", "IND-2", "IND-3"]);
    expect(await numbers("John Smith Holdings LLC")).toEqual(["IND-4"]);
  });

  it("list under a debtor or lender the changes of the load that takes it off a filing, and none after", async () => {
    const borrower = filing({ number: "OFF-D", debtors: [party("Quillon Tooling LLC")] });
    const lent = filing({ number: "OFF-S", state: "TX", securedParties: [party("Harbor Point Capital LLC")] });
    await loadDelta([borrower, lent]);
    // The debtor's name corrected to another, and the lien assigned to another lender: each party replaced.
    const corrected = {
      ...borrower,
      debtors: [party("Zeta Holdings LLC")],
      amendments: [amendment("OFF-D-1", "party_change", "Amendment - Debtor")],
    };
    const assigned = {
      ...lent,
      securedParties: [party("Meridian Lending Co")],
      amendments: [amendment("OFF-S-1", "assignment", "Assignment")],
    };
    await loadDelta([corrected, assigned]);
    // Later changes of those filings no longer concern the parties taken off them.
    await loadDelta([
      { ...corrected, amendments: [...corrected.amendments, amendment("OFF-D-2", "continuation", "Continuation")] },
      { ...assigned, amendments: [...assigned.amendments, amendment("OFF-S-2", "continuation", "Continuation")] },
    ]);
    const listed = async (query: string) =>
      (await walk(query)).changes.map((c) => [c.initial_financing_number, c.type, c.changed_fields ?? []]);
    for (const limit of [1, 10]) {
      expect(await listed(`debtor_name=Quillon%20Tooling%20LLC&limit=${limit}`)).toEqual([
        ["OFF-D", "filing.amended", []],
        ["OFF-D", "filing.updated", ["debtor_parties"]],
      ]);
      expect(await listed(`secured_party=Harbor%20Point&limit=${limit}`)).toEqual([
        ["OFF-S", "filing.assigned", []],
        ["OFF-S", "filing.updated", ["secured_parties"]],
      ]);
    }
    // With the filters beside them: a state, a type.
    expect(await listed("debtor_name=Quillon%20Tooling%20LLC&state=CA&types=filing.updated")).toEqual([
      ["OFF-D", "filing.updated", ["debtor_parties"]],
    ]);
    expect(await listed("secured_party=Harbor%20Point&state=CA")).toEqual([]);
    // The names the filings take on list those changes and what follows, as before.
    expect((await listed("debtor_name=Zeta%20Holdings%20LLC")).map(([, type]) => type)).toEqual([
      "filing.amended",
      "filing.updated",
      "filing.continued",
    ]);
  });
});

describe("cursors and parameters", () => {
  it("refuse a malformed or tampered cursor, cursor with since, an unknown type and a limit out of range", async () => {
    await loadDelta(base());
    const { cursor } = await walk();
    const tampered = `${cursor.slice(0, 3)}${cursor[3] === "A" ? "B" : "A"}${cursor.slice(4)}`;
    for (const [query, parameters] of [
      ["cursor=not-a-cursor", ["cursor"]],
      [`cursor=${tampered}`, ["cursor"]],
      [`cursor=${cursor}&since=2026-01-01T00:00:00Z`, ["cursor", "since"]],
      ["types=filing.created,filing.exploded", ["types"]],
      ["since=yesterday", ["since"]],
      ["since=2026-02-31T00:00:00Z", ["since"]],
      ["since=2027-02-29T00:00:00Z", ["since"]],
      ["limit=0", ["limit"]],
      ["limit=101", ["limit"]],
    ] as const) {
      const body = await getJson(`/filings/changes?${query}` as "/filings/changes", 400);
      expect(body.error.code, query).toBe("invalid_parameter");
      expect(body.error.details?.map((d) => d.parameter).sort(), query).toEqual([...parameters].sort());
    }
    const unknown = await getJson("/filings/changes?types=filing.exploded", 400);
    expect(unknown.error.details?.[0]?.message).toContain("filing.created, filing.continued");
    // A cursor of another list is not this feed's.
    const other = await getJson(`/filings/changes?cursor=${cursor.replace(/\.[^.]*$/, ".AAAAAAAAAAAA")}`, 400);
    expect(other.error.details?.[0]?.parameter).toBe("cursor");
  });

  it("refuse a cursor read with wider filters than made it, which would skip the changes its page passed over", async () => {
    await loadDelta(base());
    const texas = await page("state=TX&limit=1");
    expect(texas.changes.map((c) => c.initial_financing_number)).toEqual(["CHG-C"]);
    const cursor = texas.response_metadata.next_cursor;
    for (const query of [`cursor=${cursor}`, `cursor=${cursor}&state=NY`]) {
      const body = await getJson(`/filings/changes?${query}` as "/filings/changes", 400);
      expect(body.error.details, query).toEqual([
        { parameter: "state", message: "must be TX, as it was when the cursor was handed out" },
      ]);
    }
    expect((await page(`state=TX&cursor=${cursor}`)).changes.map((c) => c.initial_financing_number)).toEqual(["CHG-E"]);
    // A cursor of every state narrows to one.
    const every = (await page("limit=1")).response_metadata.next_cursor;
    expect((await page(`state=NY&cursor=${every}`)).changes.map((c) => c.initial_financing_number)).toEqual([
      "CHG-B",
      "CHG-F",
    ]);
    // A page of terminations passed over the filings created: without the type, they would be skipped.
    await loadDelta(nextDay(base()));
    const ended = await page("types=filing.terminated");
    expect(ended.changes.length).toBeGreaterThan(0);
    const after = ended.response_metadata.next_cursor;
    for (const [query, parameters] of [
      [`cursor=${after}`, ["types"]],
      [`cursor=${after}&types=filing.terminated,filing.created`, ["types"]],
      [`cursor=${after}&types=filing.terminated&debtor_name=Acme`, []],
    ] as const) {
      if (parameters.length === 0) {
        expect((await page(query)).changes, query).toEqual([]);
        continue;
      }
      const body = await getJson(`/filings/changes?${query}` as "/filings/changes", 400);
      expect(
        body.error.details?.map((d) => d.parameter),
        query,
      ).toEqual(parameters);
    }
    const named = (await page("debtor_name=Acme%20Industries&limit=1")).response_metadata.next_cursor;
    const widerName = await getJson(`/filings/changes?cursor=${named}&debtor_name=Acme`, 400);
    expect(widerName.error.details).toEqual([
      { parameter: "debtor_name", message: 'must be "Acme Industries", as it was when the cursor was handed out' },
    ]);
  });

  it("resumes from a cursor sealed in its earlier form (SHA-256), which clients may hold for days", async () => {
    await loadDelta(base());
    const first = await page("limit=2");
    const cursor = first.response_metadata.next_cursor;
    const [payload] = cursor.split(".") as [string];
    // How cursors were sealed until 2026-12: the first 9 bytes of SHA-256 over the list's name and the payload.
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`changes\u0000${payload}`));
    const base64 = btoa(String.fromCharCode(...new Uint8Array(digest).slice(0, 9)));
    const sealed = base64.replaceAll("+", "-").replaceAll("/", "_");
    expect(cursor.split(".")[1]).toHaveLength(11);
    const resumed = await page(`cursor=${payload}.${sealed}`);
    expect(resumed.changes.length).toBeGreaterThan(0);
    expect(resumed.changes).toEqual((await page(`cursor=${cursor}`)).changes);
    const wrong = `${payload}.${sealed[0] === "A" ? "B" : "A"}${sealed.slice(1)}`;
    expect((await getJson(`/filings/changes?cursor=${wrong}`, 400)).error.details?.[0]?.parameter).toBe("cursor");
  });

  it("answers 410 cursor_expired for a cursor past retention, and starts again without one", async () => {
    await loadDelta(base());
    const start = await page("limit=1");
    const later = new Date(Date.now() + 100 * 86_400_000);
    await worker.scheduled(createScheduledController({ scheduledTime: later }), env, createExecutionContext());
    const expired = await getJson(`/filings/changes?cursor=${start.response_metadata.next_cursor}`, 410);
    expect(expired.error.code).toBe("cursor_expired");
    expect(expired.error.message).toContain("Start again");
    expect((await walk()).changes).toEqual([]);
  });
});

describe("the daily job", () => {
  const at = (days: number) => new Date(Date.now() + days * 86_400_000);
  const day = (days: number) => at(days).toISOString().slice(0, 10);
  const run = (days: number) =>
    worker.scheduled(createScheduledController({ scheduledTime: at(days) }), env, createExecutionContext());
  const lapses = async () =>
    (await walk("types=filing.lapsed")).changes.map((c) => [c.initial_financing_number, c.occurred_at]);

  it("records each lapse once, across repeated, late and simultaneous runs, and never a terminated filing's", async () => {
    const office = (number: string, lapse: string, more: Partial<FilingRecord> = {}) =>
      filing({ number, officeLapseDate: lapse, filedAt: daysAgo(400), ...more });
    await loadDelta([
      office("LAPSE-TODAY", day(0)),
      office("LAPSE-YESTERDAY", day(-1)),
      office("LAPSE-1", day(1)),
      office("LAPSE-3", day(3)),
      office("LAPSE-TX-1", day(1), { state: "TX" }),
      office("LAPSE-TERMINATED", day(1), { amendments: [amendment("T-1", "termination", "Termination", 30)] }),
      office("LAPSE-5", day(5)),
      office("LAPSE-LATER", day(30)),
    ]);
    // A run records the lapse dates that have ended: a filing stands through its lapse date.
    await run(0);
    await run(0);
    // The first run records the day that ended last only (earlier ones lapsed before the feed watched them).
    expect(await lapses()).toEqual([["LAPSE-YESTERDAY", `${day(-1)}T00:00:00Z`]]);
    // Two days missed: the late run records the three days that ended since, once.
    await run(3);
    await run(3);
    await run(2);
    expect((await lapses()).sort()).toEqual(
      [
        ["LAPSE-YESTERDAY", `${day(-1)}T00:00:00Z`],
        ["LAPSE-TODAY", `${day(0)}T00:00:00Z`],
        ["LAPSE-1", `${day(1)}T00:00:00Z`],
        ["LAPSE-TX-1", `${day(1)}T00:00:00Z`],
      ].sort(),
    );
    // Runs at once (a retried trigger): each reads the mark inside its own transaction.
    await Promise.all([run(6), run(6), run(6)]);
    expect((await lapses()).filter(([number]) => number === "LAPSE-5")).toEqual([["LAPSE-5", `${day(5)}T00:00:00Z`]]);
    // A run as of an earlier day (a delayed trigger) leaves the mark where it was: nothing twice.
    await run(2);
    await run(6);
    const numbers = (await lapses()).map(([number]) => number);
    expect(numbers.sort()).toEqual(["LAPSE-1", "LAPSE-3", "LAPSE-5", "LAPSE-TODAY", "LAPSE-TX-1", "LAPSE-YESTERDAY"]);
  });

  it("records the lapse of a filing whose lapse date a load moves to a day the job has done, once", async () => {
    const office = (number: string, lapse: string, more: Partial<FilingRecord> = {}) =>
      filing({ number, officeLapseDate: lapse, filedAt: daysAgo(900), ...more });
    const corrected = (number: string, lapse: string) =>
      office(number, day(30), {
        amendments: [{ ...amendment(`${number}-A`, "other", "Lapse date corrected", 1), lapseDate: lapse }],
      });
    await loadDelta([office("MOVED-1", day(30)), office("MOVED-5", day(30)), office("MOVED-NEXT", day(30))]);
    await run(0);
    // The office corrects three lapse dates: to days the job has done (yesterday, five days ago), and to today.
    await loadDelta([corrected("MOVED-1", day(-1)), corrected("MOVED-5", day(-5)), corrected("MOVED-NEXT", day(0))]);
    await run(1);
    await run(2);
    expect((await lapses()).sort()).toEqual(
      [
        ["MOVED-1", `${day(-1)}T00:00:00Z`],
        ["MOVED-5", `${day(-5)}T00:00:00Z`],
        // Today's is the job's, recorded by tomorrow's run.
        ["MOVED-NEXT", `${day(0)}T00:00:00Z`],
      ].sort(),
    );
    // Loaded again, unchanged: nothing more.
    await loadDelta([corrected("MOVED-1", day(-1)), corrected("MOVED-5", day(-5))]);
    expect(await lapses()).toHaveLength(3);
  });

  it("files each lapse in the name index with it, so the name filters find it", async () => {
    const lapsing = filing({
      number: "LAPSE-NAMED",
      officeLapseDate: day(0),
      filedAt: daysAgo(400),
      debtors: [party("Lapsing Borrower LLC")],
      securedParties: [party("Harbor Point Capital LLC")],
    });
    await loadDelta([lapsing, filing({ number: "LAPSE-OTHER", officeLapseDate: day(0), filedAt: daysAgo(400) })]);
    // The day after its lapse date: the day the filing lapsed.
    await run(1);
    const found = (query: string) => walk(`types=filing.lapsed&${query}`);
    expect((await found("debtor_name=Lapsing%20Borrower")).changes.map((c) => c.initial_financing_number)).toEqual([
      "LAPSE-NAMED",
    ]);
    expect((await found("secured_party=harbor%20point")).changes.map((c) => c.initial_financing_number)).toEqual([
      "LAPSE-NAMED",
    ]);
  });

  it("deletes changes past retention, oldest first, with their name-index rows, and keeps the rest", async () => {
    await loadDelta(base());
    const indexRows = async () => {
      let n = 0;
      for (const d1 of allD1) n += Number((await d1.prepare("select count(*) as n from change_names").first("n")) ?? 0);
      return n;
    };
    await run(89);
    expect((await walk()).changes).toHaveLength(6);
    // Each change: its debtor, and its lender's first word and first two.
    expect(await indexRows()).toBe(6 * 3);
    await run(91);
    expect((await walk()).changes).toHaveLength(0);
    expect(await indexRows()).toBe(0);
  });
});
