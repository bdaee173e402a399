/**
 * GET /debtors/report: one request answers whether a borrower is
 * encumbered, by whom and since when, in every state, with the date each
 * state's records run through. The borrower here files in California,
 * Texas and Washington, three shards of the four-shard layout.
 */
import { parse } from "csv-parse/sync";
import { beforeAll, describe, expect, it } from "vitest";
import { runDaily } from "../src/changes/daily.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { PARTY_LOOKUPS } from "../src/queries/filings.ts";
import { fresh } from "./feeds.ts";
import {
  allD1,
  allPagesA,
  d1Of,
  daysAgo,
  dbOf,
  filing,
  get,
  getJson,
  load,
  loadDelta,
  party,
  REVOKED_KEY,
  registerKeys,
} from "./helpers.ts";

const HARBOR = "Harbor Freight Lines LLC";
const harbor = (over: Parameters<typeof filing>[0]) =>
  filing({ debtors: [party(HARBOR, { label: "Transportation & Logistics" })], ...over });
const IRS = party("Internal Revenue Service");
const MCA = party("Rapid Merchant Funding LLC");
const BLANKET = "All assets of the Debtor, now owned or hereafter acquired, and all proceeds thereof.";
const VIN = "1M8GDM9AXKP042788";

const report = (query: string) => getJson(`/debtors/report?${query}` as "/debtors/report");

beforeAll(async () => {
  await registerKeys();
  await load([
    // California: active, terminated, lapsed, continued past its lapse, a federal tax lien.
    harbor({ number: "H-CA-1", filedAt: daysAgo(400), collateral: `One 2019 tractor, VIN ${VIN}, and equipment.` }),
    harbor({
      number: "H-CA-2",
      filedAt: daysAgo(700),
      amendments: [{ number: "H-CA-2-T", filedAt: daysAgo(100), kind: "termination", description: "Termination" }],
    }),
    harbor({ number: "H-CA-3", filedAt: daysAgo(6 * 365) }),
    harbor({
      number: "H-CA-4",
      filedAt: daysAgo(5 * 365 + 30),
      amendments: [{ number: "H-CA-4-C", filedAt: daysAgo(90), kind: "continuation", description: "Continuation" }],
    }),
    harbor({ number: "H-CA-5", filedAt: daysAgo(200), kind: "federal_tax_lien", securedParties: [IRS] }),
    // Texas: a merchant cash advance stack, blanket liens.
    harbor({ number: "H-TX-1", state: "TX", filedAt: daysAgo(20), securedParties: [MCA], collateral: BLANKET }),
    harbor({ number: "H-TX-2", state: "TX", filedAt: daysAgo(60), securedParties: [MCA], collateral: BLANKET }),
    harbor({ number: "H-TX-3", state: "TX", filedAt: daysAgo(150), collateral: "Accounts receivable and inventory." }),
    // Washington: the oldest live filing, restated by a collateral amendment.
    harbor({
      number: "H-WA-1",
      state: "WA",
      filedAt: daysAgo(1500),
      collateral: "All assets.",
      amendments: [
        {
          number: "H-WA-1-A",
          filedAt: daysAgo(800),
          kind: "collateral_change",
          description: "Amendment",
          collateral: "Equipment only.",
        },
      ],
    }),
    // Others that look alike, and an individual in two states.
    filing({ number: "X-CA-1", debtors: [party("Harbor Freight Logistics LLC")] }),
    filing({ number: "J-CA-1", debtors: [party("Public, John Q", { type: "Individual" })] }),
    filing({ number: "J-TX-1", state: "TX", debtors: [party("Public, John", { type: "Individual" })] }),
    // Spouses on one filing, both found by "J Smith": counted once.
    filing({
      number: "S-CA-1",
      debtors: [party("Smith, John", { type: "Individual" }), party("Smith, Jane", { type: "Individual" })],
    }),
    filing({ number: "S-CA-2", debtors: [party("Smith, Jane", { type: "Individual" })] }),
    // Thirty filings of one borrower: two pages.
    ...Array.from({ length: 30 }, (_, i) =>
      filing({ number: `P-${String(i).padStart(2, "0")}`, filedAt: daysAgo(300 - i), debtors: [party("Paged Co")] }),
    ),
  ]);
});

/** Counts a report must equal, worked out state by state from /debtors/search and /filings. */
async function countedOneByOne(name: string, states: string[]) {
  const out = { filings: 0, active: 0, lapsed: 0, terminated: 0, kinds: new Map<string, number>() };
  for (const state of states) {
    const found = await allPagesA(`/debtors/search?name=${encodeURIComponent(name)}&state=${state}`, "ucc_liens");
    for (const lien of found) {
      const [full] = (
        await getJson(
          `/filings?initial_financing_number=${encodeURIComponent(lien.initial_financing_number)}&state=${state}`,
        )
      ).ucc_liens;
      if (!full) throw new Error(`no filing ${lien.initial_financing_number}`);
      out.filings += 1;
      if (full.estimated_lien_status === "Active") {
        out.active += 1;
        out.kinds.set(full.filing_kind, (out.kinds.get(full.filing_kind) ?? 0) + 1);
      } else if (full.estimated_lien_status === "Lapsed") out.lapsed += 1;
      else out.terminated += 1;
    }
  }
  return out;
}

describe("GET /debtors/report", () => {
  it("answers for a borrower in three states and shards with the counts /debtors/search and /filings give state by state", async () => {
    const body = await report(`name=${encodeURIComponent("Harbor Freight Lines")}`);
    const expected = await countedOneByOne("Harbor Freight Lines", ["CA", "TX", "WA"]);
    expect(body.summary).toMatchObject({
      filings: expected.filings,
      active: expected.active,
      lapsed: expected.lapsed,
      terminated: expected.terminated,
    });
    for (const [kind, n] of expected.kinds) expect(body.summary.active_by_kind[kind as "standard"]).toBe(n);
    expect(body.summary.filings).toBe(9);
  });

  it("counts a terminated, a lapsed, a continued and a tax-lien filing where they belong", async () => {
    const { summary, filings } = await report(`name=${encodeURIComponent(HARBOR)}&state=CA`);
    const status = (n: string) => filings.find((f) => f.initial_financing_number === n)?.estimated_lien_status;
    expect([status("H-CA-2"), status("H-CA-3"), status("H-CA-4"), status("H-CA-5")]).toEqual([
      "Terminated",
      "Lapsed",
      "Active",
      "Active",
    ]);
    expect(summary).toMatchObject({ filings: 5, active: 3, lapsed: 1, terminated: 1 });
    expect(summary.active_by_kind).toMatchObject({ standard: 2, federal_tax_lien: 1 });
    expect(summary.active_secured_parties).toContainEqual({
      name: "Internal Revenue Service",
      kind: "government",
      filings: 1,
    });
  });

  it("links its search logic to the served API reference's section on how names match", async () => {
    const { report: header } = await report(`name=${encodeURIComponent(HARBOR)}`);
    const [path, fragment] = header.search_logic.url.split("#");
    // A path on the service itself: resolved against the origin the client called, never against /debtors/.
    expect(path).toBe("/docs");
    expect((await get(path!, null)).status).toBe(200);
    // Swagger UI's deep link (#/tag/operationId) names an operation of the document, whose description is the logic.
    const [, tag, operationId] = fragment!.split("/");
    const document = (await (await get("/openapi.json", null)).json()) as {
      paths: Record<string, Record<string, { operationId?: string; tags?: string[]; description?: string }>>;
    };
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const linked = operations.find((op) => op.operationId === operationId);
    expect(linked?.tags?.[0]).toBe(tag);
    expect(linked?.description).toContain("UCC standard search logic");
  });

  it("gives the header: the name as submitted and searched, the logic, each state's records-through date and count", async () => {
    const { report: header } = await report(
      `name=${encodeURIComponent("Harbor Freight Lines, L.L.C.")}&state=wa,ca,TX`,
    );
    expect(header.name).toBe("Harbor Freight Lines, L.L.C.");
    expect(header.name_searched[0]).toBe("harborfreightlines");
    expect(header.search_logic.url).toBe("/docs#/Debtors/searchDebtorFilings");
    expect(header.id).toMatch(/^[0-9a-f-]{36}$/);
    const states = await getJson("/states");
    const through = (s: string) => states.states.find((x) => x.state === s)?.data_through;
    expect(header.states).toEqual([
      { state: "CA", records_through: through("CA"), filings: 5 },
      { state: "TX", records_through: through("TX"), filings: 3 },
      { state: "WA", records_through: through("WA"), filings: 1 },
    ]);
  });

  it("summarizes secured parties, blanket liens, collateral, recent filings, the first active filing and the next lapse", async () => {
    const { summary } = await report(`name=${encodeURIComponent(HARBOR)}`);
    expect(summary.active_secured_parties).toEqual([
      { name: "First Test Bank, N.A.", kind: "bank", filings: 4 },
      { name: MCA.name, kind: "funding_company", filings: 2 },
      { name: "Internal Revenue Service", kind: "government", filings: 1 },
    ]);
    expect(summary.blanket_liens).toBe(2);
    // H-WA-1's blanket lien was restated as equipment only: the restatement stands.
    expect(summary.collateral_categories).toMatchObject({
      all_assets: 2,
      equipment: 2,
      vehicles: 1,
      accounts: 1,
      inventory: 1,
    });
    expect(summary).toMatchObject({
      filed_last_30_days: 1,
      filed_last_90_days: 2,
      filed_last_180_days: 3,
      funding_company_filings_last_90_days: 2,
    });
    // H-CA-4, filed five years and 30 days ago, lives on by its continuation: the oldest live filing.
    expect(summary.first_active_filing).toMatchObject({
      initial_financing_number: "H-CA-4",
      jurisdiction_state: "CA",
      secured_parties: [{ name: "First Test Bank, N.A.", kind: "bank" }],
    });
    const lapses = (await report(`name=${encodeURIComponent(HARBOR)}`)).filings
      .filter((f) => f.estimated_lien_status === "Active")
      .map((f) => f.estimated_lien_lapse_date ?? "9999")
      .sort();
    expect(summary.next_lapse_date).toBe(lapses[0]);
  });

  it("lists filings oldest first with their categories, terms, VINs and secured party kinds", async () => {
    const { filings } = await report(`name=${encodeURIComponent(HARBOR)}`);
    const dates = filings.map((f) => f.initial_financing_date);
    expect(dates).toEqual([...dates].sort());
    const tractor = filings.find((f) => f.initial_financing_number === "H-CA-1");
    expect(tractor?.vins).toEqual([VIN]);
    expect(tractor?.collateral_categories).toEqual(expect.arrayContaining(["equipment", "vehicles"]));
    expect(tractor?.collateral_terms.equipment).toContain("equipment");
    const stack = filings.find((f) => f.initial_financing_number === "H-TX-1");
    expect(stack?.involved_parties.secured_parties[0]).toMatchObject({ name: MCA.name, kind: "funding_company" });
    expect(stack?.collateral_categories).toEqual(expect.arrayContaining(["all_assets", "proceeds"]));
    expect(filings.find((f) => f.initial_financing_number === "H-WA-1")?.collateral_categories).toEqual(["equipment"]);
  });

  it("lists a filing's categories as its stored traits record them, as the summary counts them, and reads the rest from its text", async () => {
    const query = `name=${encodeURIComponent(HARBOR)}&state=TX`;
    const categoriesOf = async () =>
      (await report(query)).filings.find((f) => f.initial_financing_number === "H-TX-3")?.collateral_categories;
    const tx = d1Of("TX");
    const setTraits = (traits: number | null) =>
      tx.prepare("update filings set traits = ? where number = 'H-TX-3'").bind(traits).run();
    const { traits } = (await tx.prepare("select traits from filings where number = 'H-TX-3'").first<{
      traits: number;
    }>())!;
    try {
      expect(await categoriesOf()).toEqual(["accounts", "inventory"]);
      // Traits of accounts alone (bit 1: COLLATERAL_CATEGORIES' order): inventory's terms are not sought.
      await setTraits(2);
      expect(await categoriesOf()).toEqual(["accounts"]);
      // None stored (rows loaded before traits were): the text alone.
      await setTraits(null);
      expect(await categoriesOf()).toEqual(["accounts", "inventory"]);
    } finally {
      await setTraits(traits);
    }
  });

  it("finds an individual in every state, by either form of the name", async () => {
    // With no middle name asked, any middle name matches; "John Q Public" would leave out a John Public with none.
    for (const name of ["John Public", "Public, John"]) {
      const body = await report(`name=${encodeURIComponent(name)}`);
      expect(body.filings.map((f) => f.initial_financing_number).sort()).toEqual(["J-CA-1", "J-TX-1"]);
      expect(body.report.name_searched.some((k) => k.startsWith("public john"))).toBe(true);
    }
  });

  it("counts a filing naming two debtors the name finds once", async () => {
    const body = await report("name=J%20Smith&state=CA");
    expect(body.summary.filings).toBe(2);
    expect(body.filings.map((f) => f.initial_financing_number)).toEqual(["S-CA-1", "S-CA-2"]);
  });

  it("answers a name that matches nothing with zero counts and every searched state's records-through date", async () => {
    const body = await report("name=Nobody%20At%20All%20Corp&state=CA,TX,ME");
    expect(body.summary).toMatchObject({ filings: 0, active: 0, first_active_filing: null, next_lapse_date: null });
    expect(body.filings).toEqual([]);
    expect(body.next_cursor).toBeUndefined();
    expect(body.report.states.map((s) => [s.state, s.filings])).toEqual([
      ["CA", 0],
      ["ME", 0],
      ["TX", 0],
    ]);
    expect(body.report.states.find((s) => s.state === "ME")?.records_through).toBeNull();
    expect(body.report.states.find((s) => s.state === "CA")?.records_through).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it("pages 25 filings at a time by cursor, with the same report and summary on every page", async () => {
    const first = await report("name=Paged%20Co");
    expect(first.filings).toHaveLength(25);
    expect(first.next_cursor).toBeDefined();
    const second = await report(`name=Paged%20Co&cursor=${encodeURIComponent(first.next_cursor ?? "")}`);
    expect(second.filings.map((f) => f.initial_financing_number)).toEqual(
      Array.from({ length: 5 }, (_, i) => `P-${25 + i}`),
    );
    expect(second.next_cursor).toBeUndefined();
    expect(second.report).toEqual(first.report);
    expect(second.summary).toEqual(first.summary);
  });

  it("lists once, page by page, a filing that names the debtor twice", async () => {
    // Thirty filings in Oregon, every third naming the debtor at two addresses: two of its index
    // entries, one filing. The name finds one debtor, so its page is read off that debtor's range.
    await loadDelta(
      Array.from({ length: 30 }, (_, i) =>
        filing({
          number: `TW-${String(i).padStart(2, "0")}`,
          state: "OR",
          filedAt: daysAgo(300 - i),
          debtors: [
            party("Twice Named Co", { state: "OR", zip: "97205" }),
            ...(i % 3 === 0 ? [party("Twice Named Co", { state: "OR", zip: "97209", street1: "9 Oak St" })] : []),
          ],
        }),
      ),
    );
    const first = await report("name=Twice%20Named%20Co&state=OR");
    const second = await report(
      `name=Twice%20Named%20Co&state=OR&cursor=${encodeURIComponent(first.next_cursor ?? "")}`,
    );
    expect([...first.filings, ...second.filings].map((f) => f.initial_financing_number)).toEqual(
      Array.from({ length: 30 }, (_, i) => `TW-${String(i).padStart(2, "0")}`),
    );
    expect(second.next_cursor).toBeUndefined();
    expect(first.summary.filings).toBe(30);
  });

  /**
   * Loads `records` (their numbers under `prefix`), reads `path` with the filings' listed forms and
   * again without them (as after the change feed's retention: the page reads each filing's parties),
   * and checks the two answers are the same and that the second read a row for each lender and
   * debtor of the page's `shown` oldest filings (one more past the last beyond PARTY_LOOKUPS), but
   * the found debtor's at position 0, which the page's walk read; up to two more for the oldest
   * live filing's parties, read on their own.
   */
  async function readsWalkedDebtors(
    path: string,
    name: string,
    prefix: string,
    records: FilingRecord[],
    shown: number,
  ) {
    await loadDelta(records);
    const read = async () => {
      const res = await get(fresh(path));
      const body = (await res.json()) as { report: Record<string, unknown> };
      const {
        report: header,
        next_cursor: _,
        response_metadata: ____,
        ...rest
      } = body as typeof body & {
        next_cursor?: string;
        response_metadata: unknown;
      };
      const { id: __, generated_at: ___, ...kept } = header;
      return {
        rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]),
        body: { ...rest, kept },
      };
    };
    const d1 = d1Of(records[0]?.state ?? "OR");
    const formed = `select count(*) as n from filings where number like '${prefix}-%' and listed is not null`;
    expect((await d1.prepare(formed).first<{ n: number }>())?.n).toBe(records.length);
    const withForms = await read();
    await d1.prepare(`update filings set listed = null where number like '${prefix}-%'`).run();
    const fromTables = await read();
    expect(fromTables.body).toEqual(withForms.body);
    const page = [...records]
      .sort((a, b) => a.filedAt.localeCompare(b.filedAt) || a.state.localeCompare(b.state))
      .slice(0, shown);
    const partyRows = page.reduce((n, r) => {
      const debtors = r.debtors.length + (r.debtors.length > PARTY_LOOKUPS ? 1 : 0);
      return n + r.securedParties.length + debtors - (r.debtors[0]?.name === name ? 1 : 0);
    }, 0);
    expect(fromTables.rows - withForms.rows).toBeGreaterThanOrEqual(partyRows);
    expect(fromTables.rows - withForms.rows).toBeLessThanOrEqual(partyRows + 2);
  }

  /** The borrower alone, before a co-debtor, after one, named twice, and before four more (past the lookups one position at a time). */
  const walkShapes = (me: (street1?: string) => ReturnType<typeof party>, partner: string) => [
    [me()],
    [me(), party(`${partner} One LLC`)],
    [party(`${partner} Two LLC`), me()],
    [me(), me("2 Elm St")],
    [me(), ...["A", "B", "C", "D"].map((c) => party(`${partner} ${c} LLC`))],
  ];

  it("shows a filing's debtors from its tables as its listed form does, the found debtor read once, by its page's walk", async () => {
    // Fifteen filings in Oregon, each with one or two lenders: 50 rows more without their listed
    // forms, where 62 when the page looked the borrower up again.
    const name = "Walked Page Holdings LLC";
    const shapes = walkShapes(
      (street1 = "1 Court St") => party(name, { state: "OR", zip: "97301", street1 }),
      "Walk Partner",
    );
    const records = Array.from({ length: 15 }, (_, i) =>
      filing({
        number: `WK-${String(i).padStart(2, "0")}`,
        state: "OR",
        filedAt: daysAgo(900 - i),
        debtors: shapes[i % shapes.length] ?? [],
        securedParties: i % 2 === 0 ? [MCA] : [MCA, IRS],
      }),
    );
    await readsWalkedDebtors(`/debtors/report?name=${encodeURIComponent(name)}&state=OR`, name, "WK", records, 15);
  });

  it("shows a merged page's debtors from their tables as their listed forms do, each found debtor read once, by the merge's walk", async () => {
    // Thirty filings in each of Oregon and Washington (one shard), at alternate times: two debtors with
    // enough filings that the page merges their ranges (src/report/query.ts), 26 filings on the page
    // (the 26th says there is more). 82 rows more without their listed forms, where 102 when each
    // merged entry's borrower was looked up again.
    const name = "Merged Walk Holdings LLC";
    const records = ["OR", "WA"].flatMap((state, k) => {
      const shapes = walkShapes((street1 = "1 Court St") => party(name, { state, street1 }), `Merge Partner ${state}`);
      return Array.from({ length: 30 }, (_, i) =>
        filing({
          number: `MW-${state}-${String(i).padStart(2, "0")}`,
          state,
          filedAt: daysAgo(900 - 2 * i - k),
          debtors: shapes[i % shapes.length] ?? [],
          securedParties: i % 2 === 0 ? [MCA] : [MCA, IRS],
        }),
      );
    });
    await readsWalkedDebtors(`/debtors/report?name=${encodeURIComponent(name)}`, name, "MW", records, 26);
  });

  it("merges several debtors' ranges in report order through ties of time, numbers that prefix others and times before 1970", async () => {
    // Four debtors "J Mergeorder" finds, three in Oregon and one in Washington, thirty filings each:
    // enough that the page merges their ranges (src/report/query.ts, MERGE_KEY). Three filings of
    // each Oregon debtor share a filing time, the same times in every Oregon range, and at each time
    // their numbers prefix one another's (K7, K7- and K7--). Washington's first three come at
    // Oregon's first two times, so page 1 ends at K7, which a merge that sorted K7 after K7- and
    // K7-- would leave for page 2.
    const debtors = [
      { name: "Mergeorder, Ja", state: "OR", suffix: "" },
      { name: "Mergeorder, Jb", state: "OR", suffix: "-" },
      { name: "Mergeorder, Jc", state: "OR", suffix: "--" },
      { name: "Mergeorder, Jd", state: "WA", suffix: "" },
    ];
    const times = ["1962-03-04T05:06:07Z", "1969-12-31T23:59:59Z", "1970-01-01T00:00:00Z", "2001-09-08T01:46:40Z"];
    const filedAt = (state: string, i: number): string => {
      if (state === "WA") return i < 3 ? (times[i < 2 ? 0 : 1] as string) : daysAgo(100 - i);
      return i < 12 ? (times[Math.floor(i / 3)] as string) : daysAgo(400 - Math.floor(i / 3));
    };
    const filings = debtors.flatMap(({ name, state, suffix }) =>
      Array.from({ length: 30 }, (_, i) =>
        filing({
          number: `K${i}${suffix}`,
          state,
          filedAt: filedAt(state, i),
          debtors: [party(name, { type: "Individual", state, zip: "97205" })],
        }),
      ),
    );
    await loadDelta(filings);
    const expected = [...filings]
      .sort((a, b) => {
        const [x, y] = [Date.parse(a.filedAt), Date.parse(b.filedAt)];
        return x - y || (a.state < b.state ? -1 : a.state > b.state ? 1 : a.number < b.number ? -1 : 1);
      })
      .map((f) => `${f.state} ${f.number}`);
    expect(expected[24]).toBe("OR K7");
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const body = await report(`name=J%20Mergeorder${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...body.filings.map((f) => `${f.jurisdiction_state} ${f.initial_financing_number}`));
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it("pages, in report order, a borrower's filings in twelve states of one shard, each once", async () => {
    // Twelve states the layout's first shard holds, twelve filings each at interleaved times, every
    // fourth naming the borrower twice: twelve debtors found on that shard, each one's range read.
    const states = ["OR", "WA", "CO", "AZ", "NV", "UT", "ID", "MT", "WY", "NM", "OK", "KS"];
    const filings = states.flatMap((state, k) =>
      Array.from({ length: 12 }, (_, i) =>
        filing({
          number: `MS-${state}-${String(i).padStart(2, "0")}`,
          state,
          filedAt: daysAgo(400 - 12 * i - k),
          debtors: [
            party("Many States Co", { state, zip: "97205" }),
            ...(i % 4 === 0 ? [party("Many States Co", { state, zip: "97209", street1: "9 Oak St" })] : []),
          ],
        }),
      ),
    );
    await loadDelta(filings);
    const expected = [...filings]
      .sort((a, b) => (a.filedAt < b.filedAt ? -1 : a.filedAt > b.filedAt ? 1 : a.state < b.state ? -1 : 1))
      .map((f) => f.number);
    const seen: string[] = [];
    const oldest: (string | undefined)[] = [];
    let cursor: string | undefined;
    do {
      const res = await get(
        `/debtors/report?name=Many%20States%20Co${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      );
      const body = (await res.json()) as {
        filings: { initial_financing_number: string }[];
        summary: { first_active_filing: { initial_financing_number: string } | null };
        next_cursor?: string;
      };
      seen.push(...body.filings.map((f) => f.initial_financing_number));
      oldest.push(body.summary.first_active_filing?.initial_financing_number);
      cursor = body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(expected);
    // The shard sends the oldest of its twelve states' oldest live filings, on every page.
    expect(new Set(oldest)).toEqual(new Set([expected[0]]));
  });

  it("names the oldest live filing of debtors in two states filed the same second by state, from digests with or without its time", async () => {
    // Both states on the first shard. "Tiebreak, J" (WA) has the lesser key, so the found debtors
    // are read WA's first; report order (time, then state) puts OR's filing first.
    const j = party("Tiebreak, J", { type: "Individual", state: "WA" });
    const jane = party("Tiebreak, Jane", { type: "Individual", state: "OR" });
    const at = daysAgo(300);
    await loadDelta([
      filing({ number: "TB-WA-1", state: "WA", filedAt: at, debtors: [j] }),
      filing({ number: "TB-WA-2", state: "WA", filedAt: daysAgo(100), debtors: [j] }),
      filing({ number: "TB-OR-1", state: "OR", filedAt: at, debtors: [jane] }),
      filing({ number: "TB-OR-0", state: "OR", filedAt: daysAgo(6 * 365), debtors: [jane] }),
    ]);
    const oldest = async () =>
      (await report("name=J%20Tiebreak")).summary.first_active_filing?.initial_financing_number;
    expect(await oldest()).toBe("TB-OR-1");
    // Digests an older Worker built carry no time (migration 0036): each found debtor's oldest is then
    // read for its place in the order, the same answer.
    await d1Of("OR").prepare("update debtor_reports set first_active_at = null where name_key like 'tiebreak%'").run();
    expect(await oldest()).toBe("TB-OR-1");
  });

  it("names the oldest live filing of filings made the same second by number, not by the order they were loaded", async () => {
    const tie = party("Zqtie Holdings Co");
    const at = daysAgo(50);
    // B loaded first: the lesser row id, the greater number.
    await loadDelta([filing({ number: "ZTIE-B", filedAt: at, debtors: [tie] })]);
    await loadDelta([filing({ number: "ZTIE-A", filedAt: at, debtors: [tie] })]);
    const body = await report("name=Zqtie%20Holdings%20Co");
    expect(body.filings.map((f) => f.initial_financing_number)).toEqual(["ZTIE-A", "ZTIE-B"]);
    expect(body.summary.first_active_filing?.initial_financing_number).toBe("ZTIE-A");
    // Counted afresh (a digest not of today), the same answer.
    await d1Of("CA").prepare("update debtor_reports set as_of = as_of + 1 where name_key like 'zqtie%'").run();
    expect((await report("name=Zqtie%20Holdings%20Co")).summary.first_active_filing?.initial_financing_number).toBe(
      "ZTIE-A",
    );
  });

  it("hands back a changes cursor that returns the changes recorded after the report and nothing before", async () => {
    const name = "Harbor Freight Lines";
    const before = await report(`name=${encodeURIComponent(name)}`);
    const one = await report(`name=${encodeURIComponent(name)}&state=TX`);
    await loadDelta([harbor({ number: "H-TX-9", state: "TX", filedAt: daysAgo(1) })]);
    for (const [body, state] of [
      [before, ""],
      [one, "&state=TX"],
    ] as const) {
      const changes = await getJson(
        `/filings/changes?debtor_name=${encodeURIComponent(name)}${state}&cursor=${encodeURIComponent(body.report.changes_cursor)}` as "/filings/changes",
      );
      expect(changes.changes.map((c) => [c.type, c.initial_financing_number])).toEqual([["filing.created", "H-TX-9"]]);
    }
    // One state's cursor holds that state's shards only: without the state it is refused, not read from the oldest.
    const alone = await getJson(`/filings/changes?cursor=${encodeURIComponent(one.report.changes_cursor)}`, 400);
    expect(alone.error.details?.map((d) => d.parameter)).toEqual(["state"]);
  });

  it("answers the page as CSV that parses back, with the next page in a Link header and the report in headers", async () => {
    for (const ask of [
      { query: "", accept: "text/csv" },
      { query: "&format=csv", accept: "application/json" },
    ]) {
      const res = await get(`/debtors/report?name=Paged%20Co${ask.query}`, undefined, {
        headers: { accept: ask.accept },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv; charset=utf-8/);
      expect(res.headers.get("x-report-id")).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get("x-report-generated-at")).toMatch(/Z$/);
      expect(res.headers.get("link")).toMatch(/^<\/debtors\/report\?.*cursor=.*>; rel="next"$/);
      const text = await res.text();
      expect(text.split("\r\n")).toHaveLength(27);
      const rows = parse(text, { bom: true, columns: true }) as Record<string, string>[];
      expect(rows).toHaveLength(25);
      expect(rows[0]).toMatchObject({ initial_financing_number: "P-00", jurisdiction_state: "CA", status: "Active" });
    }
    const res = await get(`/debtors/report?name=${encodeURIComponent(HARBOR)}&state=CA&format=csv`);
    const rows = parse(await res.text(), { bom: true, columns: true }) as Record<string, string>[];
    const tractor = rows.find((r) => r.initial_financing_number === "H-CA-1");
    expect(tractor).toMatchObject({ vins: VIN, secured_party_kinds: "bank", debtors: HARBOR });
    expect(tractor?.collateral_categories?.split("; ")).toEqual(expect.arrayContaining(["equipment", "vehicles"]));
  });

  it("negotiates Accept by its quality values: JSON unless CSV is preferred, and says the answer varies with it", async () => {
    const typeFor = async (accept: string) => {
      const res = await get("/debtors/report?name=Paged%20Co", undefined, { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get("vary")).toBe("Accept, x-api-key, x-d1-bookmark");
      return res.headers.get("content-type")?.split(";")[0];
    };
    expect(await typeFor("text/csv")).toBe("text/csv");
    expect(await typeFor("application/json;q=0.5, text/csv")).toBe("text/csv");
    expect(await typeFor("text/csv;q=0")).toBe("application/json");
    expect(await typeFor("application/json;q=0.9, text/csv;q=0.1")).toBe("application/json");
    expect(await typeFor("application/json, text/csv")).toBe("application/json");
    expect(await typeFor("text/html, */*;q=0.8")).toBe("application/json");
  });

  it("lets a browser script on another origin read a CSV page's Link and the report's id and time", async () => {
    const res = await get("/debtors/report?name=Paged%20Co&format=csv", undefined, {
      headers: { origin: "https://underwriting.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = res.headers.get("access-control-expose-headers")?.toLowerCase().split(",");
    for (const header of ["link", "x-report-id", "x-report-generated-at", "x-request-id"]) {
      expect(res.headers.get(header), header).not.toBeNull();
      expect(exposed, header).toContain(header);
    }
  });

  it("counts afresh where a digest is stale, as it would from a fresh one", async () => {
    const query = `name=${encodeURIComponent(HARBOR)}`;
    const fresh = await report(query);
    // Digests built long ago, whose live filings have lapsed since: counted from the filings instead.
    for (const d1 of allD1)
      await d1.prepare("update debtor_reports set as_of = as_of - 4000, lapses_next = as_of - 4000").run();
    const stale = await report(query);
    expect(stale.summary).toEqual(fresh.summary);
    expect(stale.report.states).toEqual(fresh.report.states);
    // Its oldest live filing too, sought by id once the count is made (with its parties).
    expect(fresh.summary.first_active_filing?.secured_parties.length).toBeGreaterThan(0);
  });

  it("adds the digests of found debtors that share no filing, counting afresh only those that do or are stale", async () => {
    const doe = (first: string) => party(`Doe, ${first}`, { type: "Individual" });
    await loadDelta([
      filing({ number: "D-CA-1", filedAt: daysAgo(50), debtors: [doe("Jack"), doe("Jill")] }),
      filing({ number: "D-CA-2", filedAt: daysAgo(40), debtors: [doe("Jill")] }),
      filing({ number: "D-CA-3", filedAt: daysAgo(30), debtors: [doe("Joan")] }),
      filing({
        number: "D-CA-4",
        filedAt: daysAgo(20),
        debtors: [doe("Joan")],
        amendments: [{ number: "D-CA-4-T", filedAt: daysAgo(5), kind: "termination", description: "Termination" }],
      }),
      filing({
        number: "D-CA-5",
        filedAt: daysAgo(10),
        kind: "federal_tax_lien",
        debtors: [doe("Jude")],
        securedParties: [IRS],
      }),
    ]);
    const query = "name=J%20Doe&state=CA";
    const fresh = await report(query);
    // Jack and Jill share D-CA-1 (counted afresh together, once); Joan's and Jude's digests add.
    expect(fresh.summary).toMatchObject({ filings: 5, active: 4, terminated: 1 });
    expect(fresh.summary.active_by_kind).toMatchObject({ standard: 3, federal_tax_lien: 1 });
    expect(fresh.summary.first_active_filing?.initial_financing_number).toBe("D-CA-1");
    expect(fresh.filings.map((f) => f.initial_financing_number)).toEqual([
      "D-CA-1",
      "D-CA-2",
      "D-CA-3",
      "D-CA-4",
      "D-CA-5",
    ]);
    // Jude's digest stale too: counted afresh beside the spouses, the same answer.
    await d1Of("CA")
      .prepare(
        "update debtor_reports set as_of = as_of - 4000, lapses_next = as_of - 4000 where name_key like 'doe jude%'",
      )
      .run();
    const stale = await report(query);
    expect(stale.summary).toEqual(fresh.summary);
    expect(stale.report.states).toEqual(fresh.report.states);
  });

  it("stores each digest's counts by kind and collateral category without trailing zeros", async () => {
    const stored: { kinds: string; categories: string }[] = [];
    for (const d1 of allD1) {
      const { results } = await d1
        .prepare("select kinds, categories from debtor_reports where kinds is not null")
        .all<{ kinds: string; categories: string }>();
      stored.push(...results);
    }
    expect(stored.length).toBeGreaterThan(3);
    for (const { kinds, categories } of stored) {
      expect(kinds).not.toMatch(/(^\[0\]|,0\])$/);
      expect(categories).not.toMatch(/(^\[0\]|,0\])$/);
    }
    // Harbor's counts (the summary above) come from these: some categories are counted, the rest left off.
    expect(stored.some((d) => d.categories === "[]")).toBe(true);
    expect(stored.some((d) => d.categories.length > 2)).toBe(true);
  });

  it("has the daily job rebuild the digest of a debtor whose filing lapsed, counting it lapsed", async () => {
    const tomorrow = new Date(Date.now() + 86_400_000);
    const day = tomorrow.toISOString().slice(0, 10);
    await loadDelta([
      filing({ number: "L-TX-1", state: "TX", officeLapseDate: day, debtors: [party("Lapsing Lines LLC")] }),
      filing({ number: "L-TX-2", state: "TX", debtors: [party("Lapsing Lines LLC")] }),
    ]);
    const digest = () =>
      d1Of("TX")
        .prepare(
          "select as_of, active, lapses_next from debtor_reports where name_key = 'lapsinglines' and state = 'TX'",
        )
        .first<{ as_of: number; active: number; lapses_next: number }>();
    const days = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;
    expect(await digest()).toMatchObject({ active: 2, lapses_next: days(day) });
    // On its lapse date it still stands; the next day it has lapsed.
    await runDaily(dbOf("TX"), tomorrow, 90);
    expect(await digest()).toMatchObject({ active: 2 });
    const after = new Date(tomorrow.getTime() + 86_400_000);
    await runDaily(dbOf("TX"), after, 90);
    expect(await digest()).toMatchObject({ as_of: days(after.toISOString().slice(0, 10)), active: 1 });
  });

  it("refuses a bad name, state or cursor with a 400 naming it, and a missing or revoked key with a 401", async () => {
    const named = async (query: string) => {
      const body = await getJson(`/debtors/report?${query}` as "/debtors/report", 400);
      return body.error.details?.map((d) => d.parameter);
    };
    expect(await named("state=CA")).toEqual(["name"]);
    expect(await named("name=&state=CA")).toEqual(["name"]);
    expect(await named(`name=${"x".repeat(1001)}`)).toEqual(["name"]);
    expect(await named("name=Acme&state=CA,ZZ")).toEqual(["state"]);
    expect(await named("name=Acme&state=CA,ca")).toEqual(["state"]);
    expect(await named(`name=Acme&state=${Array.from({ length: 57 }, () => "CA").join(",")}`)).toEqual(["state"]);
    const other = await report("name=Paged%20Co");
    expect(await named(`name=Other%20Co&cursor=${encodeURIComponent(other.next_cursor ?? "")}`)).toEqual(["cursor"]);
    const lookup = await getJson("/debtors/search?name=Paged%20Co&state=CA");
    expect(await named(`name=Paged%20Co&cursor=${encodeURIComponent(lookup.pagination.next_cursor ?? "")}`)).toEqual([
      "cursor",
    ]);
    expect((await get("/debtors/report?name=Acme", null)).status).toBe(401);
    expect((await get("/debtors/report?name=Acme", REVOKED_KEY)).status).toBe(401);
  });
});
