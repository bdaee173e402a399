/**
 * Each filing's listed form (src/db/listed.ts): what the lists and the
 * change feed show of its parties and amendments, kept on the row of a
 * filing whose change the feed keeps, so a page reads one row a filing. A
 * load that records a change writes it as the filing's rows stand, through
 * every kind of change, and any load keeps it current; the daily job gives
 * a lapsed filing its form and takes it off one whose last change passes
 * retention; and a filing without one is listed the same from its tables.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateFilings } from "../seed/generate.ts";
import { runDaily } from "../src/changes/daily.ts";
import { inLapseWindow, listedText } from "../src/db/listed.ts";
import { storedFilingStatements, storedRows, upsertFilings } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { fresh } from "./feeds.ts";
import { allD1, daysAgo, dbOf, drizzleOf, filing, get, loadDelta, party, registerKeys } from "./helpers.ts";

const NOW = Date.now();
/** Generated filings over the states of every shard, with their amendments of every kind. */
const RECORDS = [...generateFilings({ filings: 400, seed: 2501, now: NOW })];

/** Every tenth filing changed as a later load brings it: an amendment, a debtor moved or gone, a lender added. */
function changed(r: FilingRecord, i: number): FilingRecord {
  const [first, ...rest] = r.debtors;
  if (!first) return r;
  switch (i % 4) {
    case 0:
      return {
        ...r,
        amendments: [
          ...r.amendments,
          { number: `${r.number}-C`, filedAt: daysAgo(0, NOW), kind: "continuation", description: "Continuation" },
        ],
      };
    case 1:
      return {
        ...r,
        debtors: [{ ...first, address: { ...first.address, street1: "9 New Rd", zipCode: "10001" } }, ...rest],
      };
    case 2:
      return { ...r, debtors: rest.length > 0 ? rest : [{ ...first, label: null }] };
    default:
      return { ...r, securedParties: [...r.securedParties, party("Listed Form Capital LLC", { label: "Finance" })] };
  }
}
const CHANGED = RECORDS.filter((_, i) => i % 10 === 3).map(changed);

/** What a page shows of a state, a postal code, a lender and a debtor of the newest filings, and the changes. */
function paths(): string[] {
  const newest = [...RECORDS].sort((a, b) => (a.filedAt < b.filedAt ? 1 : -1));
  const r = newest.find((f) => f.debtors.length > 1) ?? newest[0];
  const state = r?.state ?? "CA";
  const zip = r?.debtors[0]?.address.zipCode?.slice(0, 5) ?? "94107";
  const lender = encodeURIComponent(r?.securedParties[0]?.name ?? "bank");
  const debtor = encodeURIComponent(r?.debtors[0]?.name ?? "acme");
  const terminations = RECORDS.flatMap((f) =>
    f.amendments.filter((a) => a.kind === "termination").map((a) => ({ state: f.state, at: a.filedAt })),
  );
  const ended = terminations.sort((a, b) => (a.at < b.at ? 1 : -1))[0]?.state ?? state;
  return [
    `/filings/recent-by-state?state=${state}&envelope=a`,
    `/filings/recent-by-state?state=${state}&envelope=b`,
    `/filings/recent-by-postal-code?postal_code=${zip}&envelope=b`,
    `/secureds/recent-by-secured-party?name=${lender}&state=${state}&envelope=a`,
    `/secureds/recent-by-secured-party?name=${lender}&state=${state}&envelope=b`,
    `/filings/recently-terminated?state=${ended}`,
    `/filings/lapsing?state=${state}&from=2000-01-01&to=2099-12-31&envelope=b`,
    `/filings/lapsing?state=${state}&from=2000-01-01&to=2099-12-31&envelope=a`,
    `/debtors/search?name=${debtor}&state=${state}`,
    "/filings/changes?limit=100",
    `/filings/changes?state=${state}&limit=50`,
    `/filings/changes?debtor_name=${debtor}`,
  ];
}

/** Each path's status and body, but for what differs per response (request id, time, cursors' encryption). */
async function answers(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const path of paths()) {
    const res = await get(fresh(path));
    const body = (await res.json()) as { response_metadata?: Record<string, unknown> };
    if (body.response_metadata) {
      const { request_id: _, timestamp: __, next_cursor: ___, cursor: ____, ...metadata } = body.response_metadata;
      body.response_metadata = metadata;
    }
    out[path] = { status: res.status, body };
  }
  return out;
}

/** Each shard's last change of the first load. */
const firstLoad: number[] = [];

/** Every stored filing of every shard with its rows, as a load reads them back. */
async function storedFilings() {
  const out = [];
  for (const d1 of allD1) {
    const db = drizzleOf(d1);
    const { results } = await d1.prepare("select distinct number from filings").all<{ number: string }>();
    const numbers = results.map((r) => r.number);
    const { results: logged } = await d1.prepare("select distinct filing_id as id from changes").all<{ id: number }>();
    const changed = new Set(logged.map((r) => r.id));
    for (let i = 0; i < numbers.length; i += 90) {
      const [stored, debtors, secured, amended] = await db.batch(storedFilingStatements(db, numbers.slice(i, i + 90)));
      for (const rows of storedRows(stored, debtors, secured, amended))
        out.push({ rows, logged: changed.has(rows.filing.id) });
    }
  }
  return out;
}

beforeAll(async () => {
  await registerKeys();
  await loadDelta(RECORDS, new Date(NOW - 86_400_000));
  for (const d1 of allD1) {
    firstLoad.push(
      Number((await d1.prepare("select coalesce(max(seq), 0) as seq from changes").first<{ seq: number }>())?.seq),
    );
  }
  await loadDelta(CHANGED, new Date(NOW));
});

describe("a filing's listed form", () => {
  it("is written by a load that records its change, as its rows stand through amendments, moved, dropped and added parties", async () => {
    expect(CHANGED.length).toBeGreaterThan(30);
    const stored = await storedFilings();
    for (const { rows } of stored) expect(rows.listed, rows.filing.number).toBe(listedText(rows));
    expect(stored).toHaveLength(RECORDS.length);
  });

  it("is not written by a load that records no change (a backfill) unless the filing lapses within 180 days, and one a filing has is kept current", async () => {
    const fresh = filing({ state: "CA", number: "LF-BACKFILL-1" });
    const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
    const soon = filing({ state: "CA", number: "LF-BACKFILL-2", officeLapseDate: inDays(170) });
    const later = filing({ state: "CA", number: "LF-BACKFILL-3", officeLapseDate: inDays(190) });
    const db = dbOf("CA");
    await upsertFilings(db, [fresh, soon, later], { recordChanges: false, record: false });
    const had = RECORDS.find(
      (r) => r.state === "CA" && !CHANGED.some((c) => c.number === r.number && c.state === r.state),
    );
    if (!had) throw new Error("no CA filing loaded once");
    const moved = { ...had, debtors: had.debtors.map((d) => ({ ...d, address: { ...d.address, city: "Elsewhere" } })) };
    await upsertFilings(db, [moved, { ...fresh, collateral: "All equipment" }], {
      recordChanges: false,
      record: false,
    });
    const numbers = [fresh.number, had.number, soon.number, later.number];
    const found = (await storedFilings()).filter(({ rows }) => numbers.includes(rows.filing.number));
    const form = (number: string) => found.find(({ rows }) => rows.filing.number === number)?.rows;
    expect(form(fresh.number)?.listed).toBeNull();
    expect(form(later.number)?.listed).toBeNull();
    // A lapse list reads it: its listed form, as a load that records its change writes it.
    const lapsing = form(soon.number);
    expect(lapsing?.listed).toBe(lapsing && listedText(lapsing));
    const current = form(had.number);
    expect(current?.listed).toContain('"Elsewhere"');
    expect(current?.listed).toBe(current && listedText(current));
  });

  it("lets a state's page of changes read two rows a change, its own and its filing's, whatever the filing holds", async () => {
    const state = RECORDS[0]?.state ?? "CA";
    const res = await get(fresh(`/filings/changes?state=${state}&limit=100`));
    type Lien = { involved_parties: { debtor_parties: unknown[]; secured_parties: unknown[] }; amendments: unknown[] };
    const shown = ((await res.json()) as { changes: { lien: Lien }[] }).changes;
    const rowsRead = Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    // The filings shown hold two parties and amendments a change or more: read from their tables, a row each.
    const held = shown.reduce(
      (n, { lien }) =>
        n +
        lien.involved_parties.debtor_parties.length +
        lien.involved_parties.secured_parties.length +
        lien.amendments.length,
      0,
    );
    expect(shown.length).toBeGreaterThan(20);
    expect(held).toBeGreaterThan(2 * shown.length);
    // The page's changes and one more (is there another), each with its filing; the start, the purge mark
    // and the state's load time.
    expect(rowsRead).toBeLessThanOrEqual(2 * (shown.length + 1) + 3);
  });

  it("lets a page of every state read each change once, then its filing: one row a change and one a filing", async () => {
    const res = await get(fresh("/filings/changes?limit=100"));
    type Change = { jurisdiction_state: string; initial_financing_number: string };
    const shown = ((await res.json()) as { changes: Change[] }).changes;
    const filingsShown = new Set(shown.map((c) => `${c.jurisdiction_state} ${c.initial_financing_number}`)).size;
    const rowsRead = Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    // First each shard's next 101 changes (or all it has) with its marks (its start, purge mark and last
    // load: four rows), then the page's filings by key, a row each. Reading the page's changes again with their
    // filings read 620 rows here; the filings' ids as a JSON list (json_each) 524, a row more a filing.
    let heads = 0;
    for (const d1 of allD1) {
      heads += Math.min(101, Number((await d1.prepare("select count(*) as n from changes").first<{ n: number }>())?.n));
    }
    expect(shown).toHaveLength(100);
    expect(filingsShown).toBeGreaterThan(20);
    expect(rowsRead).toBeLessThanOrEqual(heads + filingsShown + 4 * allD1.length);
  });

  it("missing, lists the filing the same from its tables", async () => {
    const withForms = await answers();
    // Every page of the set shows filings with their parties.
    for (const [path, answer] of Object.entries(withForms)) {
      expect(answer, path).toMatchObject({ status: 200 });
      expect(JSON.stringify(answer), path).toMatch(/"debtor(_parties)?":\[?\{"name"/);
    }
    const kept = await Promise.all(
      allD1.map((d1) => d1.prepare("select id, listed from filings").all<{ id: number; listed: string | null }>()),
    );
    for (const d1 of allD1) await d1.prepare("update filings set listed = null").run();
    expect(await answers()).toEqual(withForms);
    // The forms back, for the tests below.
    for (const [i, d1] of allD1.entries()) {
      const update = d1.prepare("update filings set listed = ? where id = ?");
      await d1.batch((kept[i]?.results ?? []).map(({ id, listed }) => update.bind(listed, id)));
    }
  });
  it("goes with a filing's last change kept unless it lapses soon, and comes with a lapse the daily job records", async () => {
    // The first load's changes recorded 200 days ago: past 90 days' retention, where the second load's are not.
    for (const [i, d1] of allD1.entries()) {
      await d1
        .prepare("update changes set recorded_at = recorded_at - 200 * 86400 where seq <= ?")
        .bind(firstLoad[i])
        .run();
    }
    let lapsed = 0;
    for (const d1 of allD1) {
      await runDaily(drizzleOf(d1), new Date(NOW), 90);
      // Sixty days on: the lapses since, of filings whose form went with their first change.
      lapsed += (await runDaily(drizzleOf(d1), new Date(NOW + 60 * 86_400_000), 90)).lapsed;
    }
    expect(lapsed).toBeGreaterThan(0);
    const stored = await storedFilings();
    // A form on every filing with a change kept or live and lapsing within 180 days, and on no other; made up
    // by SQL for a lapse or the lapse window, the same text.
    const soon = (rows: (typeof stored)[number]["rows"]) => inLapseWindow(rows.filing, new Date(NOW + 60 * 86_400_000));
    for (const { rows, logged } of stored) {
      expect(rows.listed, rows.filing.number).toBe(logged || soon(rows) ? listedText(rows) : null);
    }
    expect(stored.filter((s) => !s.logged && !soon(s.rows)).length).toBeGreaterThan(100);
    expect(stored.filter((s) => !s.logged && soon(s.rows)).length).toBeGreaterThan(5);
  });
});
