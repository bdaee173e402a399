import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { hashKey } from "../../src/db/encodings.ts";
import * as schema from "../../src/db/schema.ts";
import { FILING_KINDS } from "../../src/domain/kinds.ts";
import { migratedDatabase } from "./migrated.ts";

const tables = Object.values(schema).filter((v) => is(v, SQLiteTable));

describe("the stored layout", () => {
  const db = migratedDatabase();
  const sqlOf = (name: string) =>
    (db.prepare("select sql from sqlite_master where type = 'table' and name = ?").get(name) as { sql: string }).sql;

  it.each(schema.WITHOUT_ROWID)("migrations leave %s WITHOUT ROWID", (table) => {
    expect(sqlOf(table)).toMatch(/\) WITHOUT ROWID$/);
  });

  it("lists every table keyed by a composite primary key as WITHOUT ROWID", () => {
    const composite = tables.map((t) => getTableConfig(t)).filter((t) => t.primaryKeys.length > 0);
    expect(composite.map((t) => t.name).sort()).toEqual([...schema.WITHOUT_ROWID].sort());
  });

  it("reads timestamps, kinds and type sets back as they were written", () => {
    const { filings, securedParties } = schema;
    const at = "2026-03-01T23:59:07Z";
    expect(filings.filedAt.mapFromDriverValue(filings.filedAt.mapToDriverValue(at))).toBe(at);
    expect(filings.filedAt.mapToDriverValue(at)).toBe(Date.parse(at) / 1000);
    for (const kind of FILING_KINDS) {
      expect(filings.kind.mapFromDriverValue(filings.kind.mapToDriverValue(kind))).toBe(kind);
    }
    for (const set of ["", "Individual", "Organization", "Individual|Organization"]) {
      expect(securedParties.debtorTypes.mapFromDriverValue(securedParties.debtorTypes.mapToDriverValue(set))).toBe(set);
    }
    expect(() => filings.kind.mapToDriverValue("unheard_of" as never)).toThrow();
    for (const date of ["1999-12-31", "2026-02-28", "2031-07-04"]) {
      expect(filings.lapseDate.mapFromDriverValue(filings.lapseDate.mapToDriverValue(date))).toBe(date);
    }
  });

  it("stores a listed industry as a code and any other label as its text, reading both back", () => {
    const { industry } = schema.debtorParties;
    expect(industry.mapToDriverValue("Manufacturing")).toBeTypeOf("number");
    for (const label of ["Manufacturing", "Agriculture & Farming", "Hospitality", "12", "0"]) {
      expect(industry.mapFromDriverValue(industry.mapToDriverValue(label))).toBe(label);
    }
    // No column affinity, so SQLite keeps the text "12" as text.
    const db = migratedDatabase();
    db.exec("insert into filings (id, state, number, filed_at, kind, lapse_source) values (1, 'CA', 'N1', 0, 0, 0)");
    db.prepare(
      "insert into debtor_parties (filing_id, position, type, name, name_key, industry, address_key, filing_state, filed_at, filing_number) values (1, 0, 1, 'A', 'a', ?, 0, 'CA', 0, 'N1')",
    ).run(industry.mapToDriverValue("12") as string);
    expect(db.prepare("select typeof(industry) as t from debtor_parties").get()).toEqual({ t: "text" });
  });

  it("hashes address texts to distinct 47-bit integers", () => {
    const keys = Array.from({ length: 20_000 }, (_, i) => hashKey(`${i} main st|suite ${i % 7}|springfield|IL|62701`));
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every((k) => Number.isSafeInteger(k) && k >= 0 && k < 2 ** 47)).toBe(true);
  });
});
