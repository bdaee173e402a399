/**
 * The listed forms of the lapse window (src/db/listed.ts): the live filings
 * lapsing within 180 days hold their listed form, given by the daily job as
 * they come within the window (src/changes/daily.ts), so a lapse page reads
 * a row a filing rather than one a party.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { runDaily } from "../src/changes/daily.ts";
import { listedText } from "../src/db/listed.ts";
import { storedFilingStatements, storedRows, upsertFilings } from "../src/db/load.ts";
import type { FilingRecord } from "../src/db/records.ts";
import { fresh } from "./feeds.ts";
import { d1Of, dbOf, drizzleOf, filing, get, party, registerKeys } from "./helpers.ts";

const DAY = 86_400_000;
const NOW = Date.now();
const day = (days: number) => new Date(NOW + days * DAY).toISOString().slice(0, 10);

/** Lapse days from today of the filings loaded: every 5th day through 300, and day 181 (tomorrow's edge). */
const LAPSE_DAYS = [...Array.from({ length: 61 }, (_, i) => i * 5), 181];

/** A Texas filing lapsing `days` from today, with three debtors and two secured parties (five party rows). */
function lapsing(days: number, i: number, more: Partial<FilingRecord> = {}): FilingRecord {
  return filing({
    state: "TX",
    number: `LF-${String(i).padStart(3, "0")}`,
    officeLapseDate: day(days),
    filedAt: new Date(NOW - 900 * DAY).toISOString().replace(/\.\d{3}Z$/, "Z"),
    debtors: [
      party(`Lapse Form Debtor ${i} LLC`, { label: "Manufacturing" }),
      party(`Lapse Form Holdings ${i} Inc`, { label: "Equipment" }),
      party(`Lapse Form Partner ${i}`, { type: "Individual" }),
    ],
    securedParties: [party("Lapse Form Bank, N.A.", { label: "Bank" }), party(`Lapse Form Capital ${i % 3} LLC`)],
    ...more,
  });
}

const RECORDS = LAPSE_DAYS.map((days, i) =>
  // Every seventh terminated: not live, so no lapse list shows it.
  i % 7 === 3
    ? lapsing(days, i, {
        amendments: [
          {
            number: `LF-T${i}`,
            filedAt: new Date(NOW - 30 * DAY).toISOString().replace(/\.\d{3}Z$/, "Z"),
            kind: "termination",
            description: "Termination",
          },
        ],
      })
    : lapsing(days, i),
);

/** Every Texas filing's number, listed form and whether it is live and lapses within `through` days. */
async function forms(through: number) {
  const db = dbOf("TX");
  const [stored, debtors, secured, amended] = await db.batch(
    storedFilingStatements(
      db,
      RECORDS.map((r) => r.number),
    ),
  );
  return storedRows(stored, debtors, secured, amended).map((rows) => ({
    rows,
    due: rows.filing.terminatedAt === null && rows.filing.lapseDate !== null && rows.filing.lapseDate <= day(through),
  }));
}

/** Page 1 of Texas's lapse list (envelope B, today through 180 days): its body and the rows it read. */
async function lapsePage() {
  const res = await get(fresh("/filings/lapsing?state=TX"));
  const body = (await res.json()) as { ucc_liens: unknown[] };
  return { liens: body.ucc_liens, rows: Number(/(\d+) rows read/.exec(res.headers.get("server-timing") ?? "")?.[1]) };
}

const formsThrough = async () =>
  (await d1Of("TX").prepare("select forms_through as through from change_marks").first<{ through: number }>())?.through;

beforeAll(async () => {
  await registerKeys();
  // A backfill loaded a year ago: no change recorded, and nothing then lapsed within 180 days, so no form.
  await upsertFilings(dbOf("TX"), RECORDS, { recordChanges: false, record: false, now: new Date(NOW - 365 * DAY) });
});

describe("the lapse window's listed forms", () => {
  it("are given by the daily job to the live filings lapsing within 180 days, and no other, and a lapse page then reads a row a filing", async () => {
    expect((await forms(300)).every(({ rows }) => rows.listed === null)).toBe(true);
    const before = await lapsePage();

    const { formed } = await runDaily(drizzleOf(d1Of("TX")), new Date(NOW), 90);
    const stored = await forms(180);
    // A filing lapsing today stands through today: its form is the window's; yesterday's lapse has its
    // form from the lapse the same run records.
    expect(formed).toBe(stored.filter((f) => f.due && (f.rows.filing.lapseDate ?? "") >= day(0)).length);
    expect(formed).toBeGreaterThan(25);
    // Made up by SQL, the same text as a load writes (an industry's code stored as an integer, not 10.0).
    for (const { rows, due } of stored) expect(rows.listed, rows.filing.number).toBe(due ? listedText(rows) : null);
    // The mark: the window's last day, as the day encoding stores it (days since 1970).
    expect(await formsThrough()).toBe(Math.floor(NOW / DAY) + 180);

    const after = await lapsePage();
    expect(after.liens).toEqual(before.liens);
    expect(after.liens).toHaveLength(10);
    // Eleven filings (the page and one more) and their index entries; before, each filing's five parties too.
    expect(after.rows).toBeLessThanOrEqual(30);
    expect(before.rows).toBeGreaterThan(after.rows + 40);
  });

  it("are given, the day after, to the filings that came within the window since, and a second run that day gives none", async () => {
    const tomorrow = new Date(NOW + DAY);
    const { formed } = await runDaily(drizzleOf(d1Of("TX")), tomorrow, 90);
    expect(formed).toBe(1);
    expect((await runDaily(drizzleOf(d1Of("TX")), tomorrow, 90)).formed).toBe(0);
    for (const { rows, due } of await forms(181))
      expect(rows.listed, rows.filing.number).toBe(due ? listedText(rows) : null);
    expect(await formsThrough()).toBe(Math.floor(NOW / DAY) + 181);
  });
});
