/**
 * Similar names of a state split over two databases (src/queries/similar.ts,
 * candidatesOf): a name in both parts is one candidate with its filings
 * added, and a part that filled a probe's cap is asked for the rows of the
 * candidates it did not send, by key, through the unique index.
 */
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { localD1Database } from "../../scripts/localD1.ts";
import type { DebtorName } from "../../src/db/schema.ts";
import { debtorNameKey } from "../../src/domain/names.ts";
import type { Db } from "../../src/queries/db.ts";
import { candidatesOf, type Hit, namesByKey, rankedOf, similarQuery } from "../../src/queries/similar.ts";
import { migratedDatabase } from "./migrated.ts";

const query = similarQuery({ name: "Harbor Manufacturing Inc", state: "CA" });
const soundProbe = query.probes.findIndex((p) => p.kind === "sound");
const limit = query.probes[soundProbe]?.limit ?? 0;

let id = 0;
function row(name: string, filingCount: number, lastFiledAt = "2026-01-01T00:00:00Z"): DebtorName {
  id += 1;
  return { id, nameKey: debtorNameKey(name), state: "CA", name, lastFiledAt, filingCount };
}

/** A full sound probe in one part: `limit` names, `prefix` 0 to limit - 1, in place order. */
const full = (names: DebtorName[]): Hit[] => names.map((name, place) => ({ probe: soundProbe, place, name }));
const CA_PARTS = (state: string) => (state === "CA" ? [0, 1] : []);

describe("a split state's similar-name candidates", () => {
  it("is one candidate for a name both parts sent, its filings added and its latest filing's spelling kept", () => {
    const one = row("Harbor Manufacturing Inc", 3, "2026-01-01T00:00:00Z");
    const two = { ...row("HARBOR MANUFACTURING, INC.", 4, "2026-03-01T00:00:00Z"), nameKey: one.nameKey };
    const candidates = candidatesOf(
      query.probes,
      [[{ probe: 0, place: 0, name: one }], [{ probe: 0, place: 0, name: two }]],
      CA_PARTS,
    );
    expect(candidates.rows.size).toBe(1);
    expect(candidates.unsent.size).toBe(0);
    const [ranked] = rankedOf(query, candidates);
    expect(ranked).toMatchObject({ name: "HARBOR MANUFACTURING, INC.", filingCount: 7 });
  });

  it("asks a part whose probe was full for the candidates it did not send, and adds what it holds", () => {
    expect(limit).toBeGreaterThan(2);
    const first = Array.from({ length: limit }, (_, i) =>
      row(`Harbor Manufacturing ${String.fromCharCode(65 + i)}`, 1),
    );
    const second = Array.from({ length: limit }, (_, i) =>
      row(`Harber Manufacturing ${String.fromCharCode(65 + i)}`, 2),
    );
    const candidates = candidatesOf(query.probes, [full(first), full(second)], CA_PARTS);
    // The probe keeps its first `limit` of both parts, by place: half from each.
    expect(candidates.rows.size).toBe(limit);
    const asked = candidates.unsent.get(1)?.map((n) => n.name) ?? [];
    expect(asked).toEqual(first.slice(0, Math.ceil(limit / 2)).map((n) => n.name));
    expect(candidates.unsent.get(0)?.length).toBe(Math.floor(limit / 2));
    // Part 2 holds the first of them too, beyond its cap: its filings count.
    const held = { ...first[0]!, id: 999, filingCount: 5 };
    const ranked = rankedOf(query, candidates, [[], [held]]);
    expect(ranked.find((n) => n.name === first[0]!.name)?.filingCount).toBe(6);
  });

  it("asks nothing of a part whose probe ended below its cap: it holds none of the others", () => {
    const first = Array.from({ length: limit }, (_, i) =>
      row(`Harbor Manufacturing ${String.fromCharCode(65 + i)}`, 1),
    );
    const candidates = candidatesOf(query.probes, [full(first), full(first.slice(0, 2))], CA_PARTS);
    expect(candidates.unsent.size).toBe(0);
  });

  it("asks nothing when the state is whole", () => {
    const first = Array.from({ length: limit }, (_, i) =>
      row(`Harbor Manufacturing ${String.fromCharCode(65 + i)}`, 1),
    );
    const other = Array.from({ length: limit }, (_, i) =>
      row(`Harber Manufacturing ${String.fromCharCode(65 + i)}`, 2),
    );
    expect(candidatesOf(query.probes, [full(first), full(other)]).unsent.size).toBe(0);
  });

  it("reads the asked rows by key, each through debtor_names' unique index", async () => {
    const sqlite: DatabaseSync = migratedDatabase();
    const statements: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = (sql: string) => {
      statements.push(sql);
      return prepare(sql);
    };
    const stored = [row("Harbor Manufacturing Inc", 3), row("Harber Manufacturing Co", 2)];
    for (const n of stored) {
      prepare(
        "insert into debtor_names (id, name_key, state, name, last_filed_at, filing_count) values (?, ?, ?, ?, ?, ?)",
      ).run(n.id, n.nameKey, n.state, n.name, Math.floor(Date.parse(n.lastFiledAt) / 1000), n.filingCount);
    }
    const found = await namesByKey(localD1Database(sqlite) as unknown as Db, [
      stored[0]!,
      row("Not Stored LLC", 1),
      stored[1]!,
    ]);
    expect(found.map((n) => [n.name, n.filingCount])).toEqual([
      ["Harbor Manufacturing Inc", 3],
      ["Harber Manufacturing Co", 2],
    ]);
    const sql = statements.find((s) => s.includes("json_each"));
    expect(sql).toBeDefined();
    const plan = (prepare(`explain query plan ${sql}`).all("[]") as { detail: string }[]).map((r) => r.detail);
    expect(plan.some((d) => /^SEARCH debtor_names USING INDEX debtor_names_key_state/.test(d))).toBe(true);
    expect(plan.filter((d) => /^SCAN debtor_names/.test(d))).toEqual([]);
  });
});
