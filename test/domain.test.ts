import { describe, expect, it } from "vitest";
import { generateFilings } from "../seed/generate.ts";
import { type FilingRecord, toRows } from "../src/db/records.ts";
import {
  lapseDate,
  lapsedThrough,
  lapseOf,
  lienStatus,
  NEVER_LAPSES,
  shiftDate,
  terminatedAt,
} from "../src/domain/lifecycle.ts";
import { debtorNameKey, securedNameRange, securedNameWords } from "../src/domain/names.ts";
import { isCalendarDay, isoDay, isoSeconds } from "../src/domain/time.ts";
import { lienLine } from "../src/feed/export.ts";
import { lienSchema } from "../src/feed/schema.ts";
import { mapsUrl } from "../src/http/present.ts";

describe("debtor name keys (UCC standard search logic)", () => {
  it.each([
    ["The Acme Co., Inc.", "acme"],
    ["ACME COMPANY", "acme"],
    ["Acme Inc", "acme"],
    ["acme, l.l.c.", "acme"],
    ["Acme L L C", "acme"],
    ["Smith & Sons Trucking, LLC", "smithandsonstrucking"],
    ["Smith and Sons Trucking Limited Liability Company", "smithandsonstrucking"],
    ["O'Brien Dental P.C.", "obriendental"],
    ["The Company", "company"],
    ["Theodore Inc", "theodore"],
    ["!!!", ""],
  ])("%s -> %s", (name, key) => {
    expect(debtorNameKey(name)).toBe(key);
  });

  it("keeps different businesses apart", () => {
    expect(debtorNameKey("Acme Industries Inc")).not.toBe(debtorNameKey("Acme Inc"));
    expect(debtorNameKey("Acmee Co")).not.toBe(debtorNameKey("Acme Co"));
  });
});

describe("secured party matching", () => {
  it("reduces names to lowercase whole words", () => {
    expect(securedNameWords("WELLS FARGO BANK, N.A.")).toBe("wells fargo bank na");
    expect(securedNameWords("U.S. Bank National Association")).toBe("us bank national association");
  });

  it("ranges over the name itself and longer names that start with it as whole words", () => {
    const { from, to } = securedNameRange("Wells Fargo");
    const inRange = (n: string) => securedNameWords(n) >= from && securedNameWords(n) < to;
    expect(inRange("Wells Fargo")).toBe(true);
    expect(inRange("WELLS FARGO BANK, N.A.")).toBe(true);
    expect(inRange("Wells Fargo Equipment Finance, Inc.")).toBe(true);
    expect(inRange("Wells Fargos Lending")).toBe(false);
    expect(inRange("Wellsfargo")).toBe(false);
    expect(inRange("Wells")).toBe(false);
  });
});

describe("filing lifecycle", () => {
  it("moves dates by years and months, clamping to the month's end", () => {
    expect(shiftDate("2024-02-29", 5)).toBe("2029-02-28");
    expect(shiftDate("2025-08-31", 0, -6)).toBe("2025-02-28");
  });

  it("lapses five years after filing, thirty for manufactured homes, never for utilities", () => {
    expect(lapseDate("standard", "2020-03-15T12:00:00Z", [])).toBe("2025-03-15");
    expect(lapseDate("manufactured_home", "2020-03-15T12:00:00Z", [])).toBe("2050-03-15");
    expect(lapseDate("public_finance", "2020-03-15T12:00:00Z", [])).toBe("2050-03-15");
    expect(lapseDate("transmitting_utility", "2020-03-15T12:00:00Z", [])).toBeNull();
  });

  it("extends by five years for each continuation filed in the six months before lapse", () => {
    const cont = (filedAt: string) => ({ kind: "continuation" as const, filedAt });
    expect(lapseDate("standard", "2015-06-01T00:00:00Z", [cont("2020-01-10T00:00:00Z")])).toBe("2025-06-01");
    expect(
      lapseDate("standard", "2015-06-01T00:00:00Z", [cont("2020-01-10T00:00:00Z"), cont("2025-03-01T00:00:00Z")]),
    ).toBe("2030-06-01");
  });

  it("ignores a continuation filed too early or after lapse, and counts one filed on the lapse date itself", () => {
    const cont = (filedAt: string) => ({ kind: "continuation" as const, filedAt });
    expect(lapseDate("standard", "2015-06-01T00:00:00Z", [cont("2019-11-30T00:00:00Z")])).toBe("2020-06-01");
    expect(lapseDate("standard", "2015-06-01T00:00:00Z", [cont("2020-06-02T00:00:00Z")])).toBe("2020-06-01");
    // The filing stands through its lapse date: a continuation filed that day is timely.
    expect(lapseDate("standard", "2015-06-01T00:00:00Z", [cont("2020-06-01T14:00:00Z")])).toBe("2025-06-01");
    expect(lapseDate("federal_tax_lien", "2015-06-01T00:00:00Z", [cont("2025-07-01T09:00:00Z")])).toBe("2035-07-31");
  });

  it("reads an office lapse date of 9999-12-31 as the office saying the filing does not lapse, and reloads it so", () => {
    expect(lapseOf("federal_tax_lien", "2019-03-01T00:00:00Z", [], NEVER_LAPSES)).toEqual({
      date: null,
      source: "office",
    });
    // A continuation cannot extend what does not lapse; an amendment's own office date still sets it.
    const cont = { kind: "continuation" as const, filedAt: "2024-01-10T00:00:00Z" };
    expect(lapseDate("other_lien", "2019-03-01T00:00:00Z", [cont], NEVER_LAPSES)).toBeNull();
    const dated = { ...cont, lapseDate: "2030-01-10" };
    expect(lapseDate("other_lien", "2019-03-01T00:00:00Z", [dated], NEVER_LAPSES)).toBe("2030-01-10");
    // Exported (served as null, source office) and read back: the same filing.
    const record: FilingRecord = {
      state: "CT",
      number: "0005300002",
      filedAt: "2025-02-03T00:00:00Z",
      kind: "other_lien",
      officeLapseDate: NEVER_LAPSES,
      debtors: [
        {
          name: "ELM CITY PROPERTIES LLC",
          type: "Organization",
          address: { street1: null, city: null, state: null, zipCode: null },
        },
      ],
      securedParties: [],
      amendments: [],
    };
    const line = lienLine(record, "2026-11-27");
    expect(line).toMatchObject({ estimated_lien_lapse_date: null, lapse_date_source: "office" });
    const parsed = lienSchema().safeParse(line);
    expect(parsed.success && parsed.data.record.officeLapseDate).toBe(NEVER_LAPSES);
  });

  it("terminates at the first termination, and reports status as of a day", () => {
    const end = terminatedAt([
      { kind: "assignment", filedAt: "2021-01-01T00:00:00Z" },
      { kind: "termination", filedAt: "2022-05-05T10:00:00Z" },
    ]);
    expect(end).toBe("2022-05-05T10:00:00Z");
    expect(lienStatus({ lapseDate: "2030-01-01", terminatedAt: end }, "2026-01-01")).toBe("Terminated");
    expect(lienStatus({ lapseDate: "2025-01-01", terminatedAt: null }, "2026-01-01")).toBe("Lapsed");
    // Lapsed once its lapse date has ended: on the day itself it stands.
    expect(lienStatus({ lapseDate: "2026-01-01", terminatedAt: null }, "2026-01-01")).toBe("Active");
    expect(lienStatus({ lapseDate: "2025-12-31", terminatedAt: null }, "2026-01-01")).toBe("Lapsed");
    expect(lapsedThrough("2026-03-01")).toBe("2026-02-28");
    expect(lienStatus({ lapseDate: "2030-01-01", terminatedAt: null }, "2026-01-01")).toBe("Active");
    expect(lienStatus({ lapseDate: null, terminatedAt: null }, "2026-01-01")).toBe("Active");
  });

  it("counts a lien's refiling once: within the term ending on its lapse date, not again on a date it produced", () => {
    const refiling = [{ kind: "continuation" as const, filedAt: "2024-06-01T00:00:00Z" }];
    // The office's date already counts the refiling; an office date before it, or none, does not.
    expect(lapseOf("federal_tax_lien", "2015-03-01T00:00:00Z", refiling, "2035-04-01").date).toBe("2035-04-01");
    expect(lapseOf("state_tax_lien", "2015-03-01T00:00:00Z", refiling, "2035-04-01").date).toBe("2035-04-01");
    expect(lapseOf("federal_tax_lien", "2015-03-01T00:00:00Z", refiling, "2025-04-01").date).toBe("2035-05-01");
    expect(lapseOf("federal_tax_lien", "2015-03-01T00:00:00Z", refiling).date).toBe("2035-04-30");
  });

  it("takes a reinstatement at the time of a termination as revoking it, whichever came first", () => {
    const termination = { kind: "termination" as const, filedAt: "2024-01-05T00:00:00Z" };
    const reinstatement = { kind: "reinstatement" as const, filedAt: "2024-01-05T00:00:00Z" };
    expect(terminatedAt([termination, reinstatement])).toBeNull();
    expect(terminatedAt([reinstatement, termination])).toBeNull();
  });
});

describe("seed generator", () => {
  const now = Date.parse("2026-06-15T12:00:00Z");
  const records = [...generateFilings({ filings: 3000, seed: 42, now })];
  const rows = records.map((r, i) => toRows(r, i + 1));
  const since = new Date(now - 90 * 86_400_000).toISOString();
  const today = "2026-06-15";

  it("is deterministic for the same seed and day, and differs for another seed", () => {
    expect([...generateFilings({ filings: 3000, seed: 42, now })]).toEqual(records);
    expect([...generateFilings({ filings: 50, seed: 43, now })]).not.toEqual(records.slice(0, 50));
  });

  it("names the same debtors in the same states whatever the day it runs", () => {
    const later = [...generateFilings({ filings: 3000, seed: 42, now: now + 40 * 86_400_000 })];
    const who = (rs: typeof records) => rs.map((r) => `${r.state}|${r.debtors.map((d) => d.name).join("+")}`);
    expect(who(later)).toEqual(who(records));
  });

  it("gives every filing a number unique in its state", () => {
    expect(new Set(records.map((r) => `${r.state}|${r.number}`)).size).toBe(records.length);
  });

  it("produces the situations lien discovery meets", () => {
    const count = (p: (r: (typeof rows)[number]) => boolean) => rows.filter(p).length;
    expect(count((r) => r.filing.filedAt >= since && r.filing.state === "CA")).toBeGreaterThan(20);
    expect(count((r) => (r.filing.terminatedAt ?? "") >= since)).toBeGreaterThan(10);
    expect(count((r) => r.filing.terminatedAt === null && (r.filing.lapseDate ?? "9") <= today)).toBeGreaterThan(100);
    expect(count((r) => r.amendments.some((a) => a.kind === "continuation"))).toBeGreaterThan(100);
    expect(
      count((r) => r.debtors.some((d) => d.type === "Individual") && r.debtors.some((d) => d.type === "Organization")),
    ).toBeGreaterThan(100);
    expect(new Set(records.map((r) => r.state)).size).toBeGreaterThan(45);
    expect(new Set(records.map((r) => r.kind)).size).toBe(7);
  });

  it("files the same debtor several times, at more than one address", () => {
    const addresses = new Map<string, Set<number>>();
    for (const r of rows) {
      for (const d of r.debtors) {
        const set = addresses.get(d.nameKey) ?? new Set();
        set.add(d.addressKey);
        addresses.set(d.nameKey, set);
      }
    }
    expect([...addresses.values()].filter((s) => s.size > 1).length).toBeGreaterThan(20);
  });

  it("uses industries beyond the spec's list as well as those in it", () => {
    const labels = new Set(rows.flatMap((r) => r.debtors.map((d) => d.industry)));
    expect(labels.has("Manufacturing")).toBe(true);
    expect(labels.has("Hospitality") || labels.has("Technology") || labels.has("Nonprofit")).toBe(true);
  });
});

describe("timestamps as served", () => {
  it("writes every instant to the second exactly as toISOString does, from year 0 to 9999", () => {
    const instants = [0, -1, 999, 1000, 86_399_999, 86_400_000, -86_400_001, 951_782_400_000, 1_798_761_599_999];
    instants.push(-62_167_219_200_000, 253_402_300_799_999);
    for (let i = 0; i < 2_000; i++) instants.push(Math.floor((Math.random() * 2 - 1) * 62_000_000_000_000));
    for (const ms of instants) {
      expect(isoSeconds(ms)).toBe(`${new Date(ms).toISOString().slice(0, 19)}Z`);
      expect(isoSeconds(new Date(ms))).toBe(`${new Date(ms).toISOString().slice(0, 19)}Z`);
    }
  });

  it("writes a day number as its date, and refuses an instant that is not one", () => {
    expect(isoDay(0)).toBe("1970-01-01");
    expect(isoDay(-1)).toBe("1969-12-31");
    expect(isoDay(20_513)).toBe("2026-03-01");
    // Beyond year 9999, toISOString's six-digit year, still to the second.
    expect(isoSeconds(253_402_300_800_000)).toBe("+010000-01-01T00:00:00Z");
    expect(isoSeconds(-62_167_219_200_001)).toBe("-000001-12-31T23:59:59Z");
    expect(() => isoSeconds(Number.NaN)).toThrow(RangeError);
  });

  it("takes as a calendar day exactly what a Date reads back as the same day, years 0 to 9999", () => {
    const asDate = (text: string) => {
      const ms = Date.parse(`${text}T00:00:00Z`);
      return /^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(text);
    };
    const texts = ["", "2026-1-01", "2026-01-01 ", "20260101", "+02026-01-01", "2026-01-01T00:00:00Z", "abcd-ef-gh"];
    for (const year of [0, 4, 100, 1900, 2000, 2024, 2026, 2100, 9999]) {
      for (let month = 0; month <= 13; month++) {
        for (let day = 0; day <= 32; day++) {
          texts.push([year, month, day].map((n, i) => String(n).padStart(i === 0 ? 4 : 2, "0")).join("-"));
        }
      }
    }
    for (const text of texts) expect(isCalendarDay(text), text).toBe(asDate(text));
    expect(isCalendarDay("2028-02-29")).toBe(true);
    expect(isCalendarDay("2100-02-29")).toBe(false);
  });
});

describe("a party's map link", () => {
  const address = { street1: "1 Main St", city: "Hartford", state: "CT", zip: "06103", country: "US" };
  const query = (a: typeof address | Record<keyof typeof address, string | null>) =>
    decodeURIComponent(mapsUrl(a)?.split("&query=")[1] ?? "(none)");

  it("searches the parts the office recorded, in order, the country only when it is not the US, and is null without any", () => {
    expect(mapsUrl(address)).toBe(
      "https://www.google.com/maps/search/?api=1&query=1%20Main%20St%2C%20Hartford%2C%20CT%2006103",
    );
    expect(query({ ...address, country: "CA" })).toBe("1 Main St, Hartford, CT 06103, CA");
    expect(query({ ...address, street1: null, zip: "" })).toBe("Hartford, CT");
    expect(query({ ...address, state: null, country: null })).toBe("1 Main St, Hartford, 06103");
    expect(query({ street1: "", city: null, state: null, zip: "06103", country: "US" })).toBe("06103");
    expect(mapsUrl({ street1: null, city: "", state: null, zip: null, country: "US" })).toBeNull();
    expect(mapsUrl({ street1: null, city: null, state: null, zip: null, country: null })).toBeNull();
  });
});
