/**
 * Each filing's listed form (src/db/listed.ts): what the lists and the
 * change feed show of its parties and amendments, kept on the filing's row
 * so a page reads one row a filing. A load keeps it as the filing's rows
 * stand through every kind of change; a filing loaded before migration
 * 0025, which has none until `npm run db:rekey` writes it, is listed the
 * same from its tables meanwhile; and the rebuild writes what a load writes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { generateFilings } from "../seed/generate.ts";
import { listedText } from "../src/db/listed.ts";
import { storedFilingStatements, storedRows } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { rekeyStored } from "../src/db/rekey.ts";
import { fresh } from "./feeds.ts";
import { allD1, daysAgo, drizzleOf, get, loadDelta, party, registerKeys } from "./helpers.ts";

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

/** Every stored filing's listed form, by shard and filing id. */
async function storedForms(): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const [shard, d1] of allD1.entries()) {
    const { results } = await d1
      .prepare("select id, listed from filings order by id")
      .all<{ id: number; listed: string | null }>();
    for (const { id, listed } of results) out[`${shard}:${id}`] = listed;
  }
  return out;
}

beforeAll(async () => {
  await registerKeys();
  await loadDelta(RECORDS, new Date(NOW - 86_400_000));
  await loadDelta(CHANGED, new Date(NOW));
});

describe("a filing's listed form", () => {
  it("is written by a load as the filing's rows stand, through amendments, moved, dropped and added parties", async () => {
    expect(CHANGED.length).toBeGreaterThan(30);
    let compared = 0;
    for (const d1 of allD1) {
      const db = drizzleOf(d1);
      const { results } = await d1.prepare("select distinct number from filings").all<{ number: string }>();
      const numbers = results.map((r) => r.number);
      for (let i = 0; i < numbers.length; i += 90) {
        const [stored, debtors, secured, amended] = await db.batch(
          storedFilingStatements(db, numbers.slice(i, i + 90)),
        );
        for (const rows of storedRows(stored, debtors, secured, amended)) {
          expect(rows.listed, rows.filing.number).toBe(listedText(rows));
          compared += 1;
        }
      }
    }
    expect(compared).toBe(RECORDS.length);
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

  it("missing, as on a filing loaded before migration 0025, lists the filing the same from its tables; db:rekey writes it as a load did", async () => {
    const withForms = await answers();
    const forms = await storedForms();
    expect(Object.values(forms).every((f) => f !== null)).toBe(true);
    // Every page of the set shows filings with their parties.
    for (const [path, answer] of Object.entries(withForms)) {
      expect(answer, path).toMatchObject({ status: 200 });
      expect(JSON.stringify(answer), path).toMatch(/"debtor(_parties)?":\[?\{"name"/);
    }

    for (const d1 of allD1) await d1.prepare("update filings set listed = null").run();
    expect(await answers()).toEqual(withForms);

    let written = 0;
    for (const d1 of allD1) written += (await rekeyStored(drizzleOf(d1), { now: new Date(NOW) })).listed;
    expect(written).toBe(RECORDS.length);
    expect(await storedForms()).toEqual(forms);
  });
});
