/**
 * Facet tallies (src/db/tallies.ts): a load writes a filing's days' rows,
 * and a day's later tallies only when they move; the refresh computes a
 * stale facet's later days once. Whatever the loads, every tally is its
 * facet's filings from its oldest day through that day, and migration
 * 0024 builds the same rows from a database loaded before it.
 */
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { Counting } from "../../scripts/countingStatements.ts";
import { localD1Database } from "../../scripts/localD1.ts";
import { generateFilings } from "../../seed/generate.ts";
import { runDaily } from "../../src/changes/daily.ts";
import { facetCutoffDay, refreshQueued, upsertFilings } from "../../src/db/load.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { isoSeconds } from "../../src/domain/time.ts";
import { loadedBefore, migratedDatabase, runMigration } from "./migrated.ts";

const FACETS = ["facet_tallies", "facet_counts", "stale_tallies", "lapse_set_changes"];

/** A database of 1,500 Californian filings loaded as an import loads them, counting what each later load writes. */
async function loaded(now: number) {
  const db = migratedDatabase();
  const counting = new Counting(db);
  const local = localD1Database(db, counting);
  const records = [...generateFilings({ filings: 1500, seed: 4, now, state: "CA" })];
  await upsertFilings(local, records, { now: new Date(now) });
  const load = async (changed: FilingRecord[]) => {
    counting.take();
    await upsertFilings(local, changed, { now: new Date(now), refresh: false });
    const written = counting.takeRows(...FACETS);
    await refreshQueued(local);
    return { written, refreshed: counting.takeRows(...FACETS) };
  };
  return { db, records, load };
}

/**
 * A tally row's group (src/db/tallies.ts): a facet's days, a month's days of
 * one dated by lapse, or its months; a lender's by lapse ("k"), each row.
 */
const GROUP =
  "case when scope = 'k' then day when scope not in ('x', 'y') then '' when day like 'm%' then 'm' else substr(day, 1, 7) end";

/**
 * Every tally that is not its group's filings from its first row through
 * its own, every facet whose total is not its days' and old bucket's, every
 * month whose row is not its days', any group left stale, and any day of
 * a facet without a total.
 */
function wrongTallies(db: DatabaseSync) {
  return [
    db
      .prepare(
        `select * from (select *, sum(filings) over (partition by scope, place, name, facet, ${GROUP} order by day) as expected
          from facet_tallies) where through <> expected or filings = 0 or day = '0000-00-00'`,
      )
      .all(),
    db
      .prepare(
        `select * from facet_counts c where filings = 0 or filings <> old + coalesce((select sum(filings) from facet_tallies t
          where t.scope = c.scope and t.place = c.place and t.name = c.name and t.facet = c.facet
            and case when c.scope = 'k' then t.day like 'm%' else t.day not like 'm%' end), 0)`,
      )
      .all(),
    db
      .prepare(
        // A month's row holds its days' filings; a lender's by lapse ("k", months alone) their running
        // totals, kept from its first day with one to the day before its last (src/db/tallies.ts,
        // keptRunning): the first kept not 0, the last not its filings.
        `select * from facet_tallies m where day like 'm%' and case when m.scope = 'k' then not (
            (m.sets ->> 0) between 0 and 30 and json_array_length(m.sets) <= 31 - (m.sets ->> 0)
            and (json_array_length(m.sets) = 1 or (m.sets ->> 1 > 0 and m.sets ->> '$[#-1]' <> m.filings)))
          else filings <> (select sum(filings) from facet_tallies d
            where d.scope = m.scope and d.place = m.place and d.name = m.name and d.facet = m.facet
              and d.day >= substr(m.day, 2) and d.day < substr(m.day, 2) || '~') end`,
      )
      .all(),
    db.prepare("select * from stale_tallies").all(),
    // A facet's days without its total: a facet taken back to nothing goes whole.
    db
      .prepare(
        `select * from facet_tallies t where not exists (select 1 from facet_counts c
          where c.scope = t.scope and c.place = t.place and c.name = t.name and c.facet = t.facet)`,
      )
      .all(),
    wrongSets(db),
    // A facet's aged filings: its days before the window the daily job marked.
    db
      .prepare(
        `select * from facet_counts c where aged <> case when scope in ('x', 'y', 'k') then 0 else coalesce((select sum(filings)
          from facet_tallies t where t.scope = c.scope and t.place = c.place and t.name = c.name and t.facet = c.facet
            and t.day < (select window_from from tally_marks)), 0) end`,
      )
      .all(),
  ];
}

/**
 * Every row of a state's "x" facet whose sets (schema.ts, facet_tallies.sets)
 * are not its group's live filings that lapse, by the exact set of one or
 * two of their debtors' industries, counted here from the filings: a day's
 * row its month's days through its own, a month's row its month and every
 * earlier one.
 */
function wrongSets(db: DatabaseSync) {
  const lapsing = db
    .prepare(
      `select f.state, date(f.lapse_date * 86400, 'unixepoch') as day, (select group_concat(l, '') from (
          select distinct char(97 + cast(d.industry as integer)) as l from debtor_parties d
          where d.filing_id = f.id and typeof(d.industry) in ('integer', 'real') order by l)) as letters
        from filings f where f.terminated_at is null and f.lapse_date is not null`,
    )
    .all() as { state: string; day: string; letters: string | null }[];
  const rows = db.prepare("select place, day, sets from facet_tallies where scope = 'x'").all() as {
    place: string;
    day: string;
    sets: string | null;
  }[];
  return rows.flatMap((row) => {
    const month = row.day.startsWith("m") ? row.day.slice(1) : row.day.slice(0, 7);
    const expected: Record<string, number> = {};
    for (const f of lapsing) {
      if (f.state !== row.place || !f.letters || f.letters.length > 2) continue;
      const counted = row.day.startsWith("m")
        ? f.day.slice(0, 7) <= month
        : f.day.slice(0, 7) === month && f.day <= row.day;
      if (counted) expected[f.letters] = (expected[f.letters] ?? 0) + 1;
    }
    const held = JSON.parse(row.sets ?? "null") as Record<string, number> | null;
    const sorted = (o: Record<string, number> | null) =>
      JSON.stringify(o && Object.fromEntries(Object.entries(o).sort()));
    return sorted(held) === sorted(expected) ? [] : [{ ...row, expected: sorted(expected) }];
  });
}

const DAY = 86_400_000;

const today = (now: number, second: number) =>
  isoSeconds(Date.parse(`${isoSeconds(now).slice(0, 10)}T00:00:00Z`) + second * 1000);

describe("facet tallies", () => {
  it("take a new filing on its days' rows alone, and a collateral amendment on none", async () => {
    const now = Date.now();
    const { db, records, load } = await loaded(now);
    // New filings filed today, lapsing in five years: their facets' newest days.
    const fresh = records.slice(0, 100).map((r, i) => ({
      ...r,
      number: `${r.number}-NEW`,
      filedAt: today(now, i),
      amendments: [],
    }));
    const added = await load(fresh);
    // Two rows a facet at most (its total and its day), a handful of facets a filing.
    expect(added.written / fresh.length).toBeLessThan(15);
    expect(added.refreshed / fresh.length).toBeLessThan(2);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);

    // A collateral amendment replaces the filing on the same days: nothing to count.
    const record = records.find((r) => r.amendments.length === 0 && r.debtors.some((d) => d.label !== null))!;
    const amendment = {
      number: `${record.number}-K`,
      filedAt: isoSeconds(now),
      kind: "collateral_change" as const,
      description: "Amendment - Collateral",
    };
    expect(await load([{ ...record, amendments: [amendment] }])).toEqual({ written: 0, refreshed: 0 });
  });

  it("leave a change on an earlier day to the refresh, which writes each later day once", async () => {
    const now = Date.now();
    const { db, records, load } = await loaded(now);
    // Terminations of live filings lapsing in the years ahead: each moves its lapse day's later tallies.
    const live = records.filter((r) => r.amendments.length === 0).slice(0, 60);
    const terminated = live.map((r, i) => ({
      ...r,
      amendments: [
        { number: `${r.number}-T`, filedAt: today(now, i), kind: "termination" as const, description: "Termination" },
      ],
    }));
    const stale = await load(terminated);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    // The refresh wrote no more rows than the stale facets have days.
    const days = Number(
      (db.prepare(`select count(*) as n from facet_tallies where scope in ('x', 'y')`).get() as { n: number }).n,
    );
    expect(stale.refreshed).toBeGreaterThan(0);
    expect(stale.refreshed).toBeLessThan(days);

    // Filings filed a day late, loaded in groups, and the terminations taken back: still every tally right.
    const late = records.slice(200, 500).map((r, i) => ({
      ...r,
      number: `${r.number}-LATE`,
      filedAt: isoSeconds(now - (1 + (i % 5)) * DAY),
    }));
    await load(late);
    await load(live);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
  });
});

describe("the lapse facet's sets", () => {
  it("stay right when a day's one filing is terminated and another made for that day before the refresh", async () => {
    const now = Date.now();
    const db = migratedDatabase();
    const local = localD1Database(db);
    const records = [...generateFilings({ filings: 400, seed: 9, now, state: "CA" })];
    await upsertFilings(local, records, { now: new Date(now) });
    const lapseDay = (r: FilingRecord) =>
      (
        db
          .prepare("select date(lapse_date * 86400, 'unixepoch') as day from filings where number = ?")
          .get(r.number) as { day: string }
      ).day;
    // A live filing alone on its lapse day, with a debtor in an industry.
    const alone = records.find((r) => {
      if (r.amendments.length > 0 || !r.debtors.some((d) => d.label)) return false;
      const day = lapseDay(r);
      const n = db
        .prepare("select count(*) as n from facet_tallies where scope = 'x' and day = ? and filings = 1")
        .get(day) as { n: number };
      return n.n === 1;
    })!;
    const termination = {
      number: `${alone.number}-T`,
      filedAt: isoSeconds(now),
      kind: "termination" as const,
      description: "Termination",
    };
    // Its day's row goes to nothing in one load, and is made again by the next, both before the refresh.
    await upsertFilings(local, [{ ...alone, amendments: [termination] }], { now: new Date(now), refresh: false });
    await upsertFilings(local, [{ ...alone, number: `${alone.number}-AGAIN` }], { now: new Date(now), refresh: false });
    await refreshQueued(local);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    expect(db.prepare("select * from lapse_set_changes").all()).toEqual([]);
  });
});

describe("the daily job", () => {
  it("moves the facets' days that leave the recency window into their aged filings, day after day", async () => {
    const now = Date.now();
    const { db, records, load } = await loaded(now);
    const local = localD1Database(db);
    await runDaily(local, new Date(now), 90);
    const mark = () => (db.prepare("select window_from as day from tally_marks").get() as { day: string }).day;
    expect(mark()).toBe(facetCutoffDay(now));
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    for (const days of [1, 2, 30, 95]) {
      const later = new Date(now + days * DAY);
      await runDaily(local, later, 90);
      expect(mark()).toBe(facetCutoffDay(later));
      expect(wrongTallies(db), `${days}`).toEqual([[], [], [], [], [], [], []]);
    }
    const aged = Number((db.prepare("select sum(aged) as n from facet_counts").get() as { n: number }).n);
    expect(aged).toBeGreaterThan(0);
    // A load dated before the window the job marked: its days before it are aged at once, by its refresh.
    await load(records.slice(0, 20).map((r) => ({ ...r, number: `${r.number}-EARLY`, filedAt: isoSeconds(now) })));
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
  });
});

describe("a facet taken back to nothing", () => {
  it("goes whole, though its filing was taken back in the old bucket after its day left the window", async () => {
    const now = Date.now();
    const db = migratedDatabase();
    const local = localD1Database(db);
    const lent = (number: string, filedAt: number, lender: string): FilingRecord => ({
      state: "CA",
      number,
      filedAt: isoSeconds(filedAt),
      kind: "standard",
      debtors: [{ name: `Debtor ${number} LLC`, type: "Organization", address: address("90001") }],
      securedParties: [{ name: lender, type: "Organization", address: address("89501") }],
      amendments: [],
    });
    const address = (zipCode: string) => ({ street1: "1 Main St", city: "Springfield", state: "CA", zipCode });
    // Counted on its day when loaded; assigned to another lender a hundred days on, when its day is old.
    await upsertFilings(local, [lent("A1", now - 10 * DAY, "Zephyr Lending LLC")], { now: new Date(now) });
    const later = now + 100 * DAY;
    await runDaily(local, new Date(later), 90);
    await upsertFilings(local, [lent("A1", now - 10 * DAY, "Other Lending LLC")], { now: new Date(later) });
    const zephyr = "select * from facet_tallies where scope = 'l' and name = 'zephyr lending llc'";
    expect(db.prepare(zephyr).all()).toEqual([]);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    // The lender's next filings are counted from nothing, and its aged days are its own when the job moves them.
    await upsertFilings(
      local,
      [lent("A2", later, "Zephyr Lending LLC"), lent("A3", later - 90 * DAY, "Zephyr Lending LLC")],
      { now: new Date(later) },
    );
    await runDaily(local, new Date(later + DAY), 90);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    const since = db
      .prepare(
        "select filings - old - aged as n, aged from facet_counts where scope = 'l' and name = 'zephyr lending llc'",
      )
      .get() as { n: number; aged: number };
    // A3 was on the window's first day; a day on, it has left it.
    expect({ ...since }).toEqual({ n: 1, aged: 1 });
  });
});

describe("migration 0028", () => {
  it("deletes the facets no Worker since 0027 reads, and keeps every row the loaders write", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 8, now })];
    const db = loadedBefore("0028_drop_unread_facets.sql", records, now);
    // Each table in its key's order.
    const keys: Record<string, string> = {
      facet_tallies: "1, 2, 3, 4, 5",
      facet_counts: "1, 2, 3, 4",
      stale_tallies: "1, 2, 3, 4, 5",
      lapse_set_changes: "1, 2, 3",
    };
    const rows = () => FACETS.map((t) => db.prepare(`select * from ${t} order by ${keys[t]}`).all());
    const written = rows();
    const unread = "scope = 'y' and name in ('i1', 'i2')";
    // Today's loaders write none of them.
    expect(db.prepare(`select count(*) as n from facet_counts where ${unread}`).get()).toEqual({ n: 0 });
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    // What a database of 0027's loaders holds beside: the "y" facets of one and two industries, and a
    // ZIP code's facets of 0022's old form (left by the code before it); and facet_days.
    db.exec(`insert into facet_counts (scope, place, name, facet, filings, old, aged)
      select 'y', place, name, facet, filings, 0, 0 from facet_counts where scope = 's' and name in ('i1', 'i2')`);
    db.exec(`insert into facet_tallies (scope, place, name, facet, day, filings, through)
      select 'y', place, name, facet, day, filings, through from facet_tallies where scope = 's' and name in ('i1', 'i2')`);
    db.exec("insert into stale_tallies values ('y', 'CA', 'i1', 'a', '', '2031-01-01')");
    db.exec(
      "insert into facet_counts (scope, place, name, facet, filings) values ('z', '97205', '', 'Equipment|Manufacturing', 3)",
    );
    db.exec(
      "insert into facet_tallies (scope, place, name, facet, day, filings, through) values ('z', '97205', '', 'Equipment', '2026-01-02', 1, 1)",
    );
    expect(db.prepare(`select count(*) as n from facet_tallies where ${unread}`).get()).not.toEqual({ n: 0 });
    expect(db.prepare("select count(*) as n from facet_days").get()).toEqual({ n: 0 });
    runMigration(db, "0028_drop_unread_facets.sql");
    expect(rows()).toEqual(written);
    expect(db.prepare("select name from sqlite_master where name = 'facet_days'").all()).toEqual([]);
  });
});

describe("migration 0027", () => {
  it("builds the lapse facet's sets the loaders write from a database loaded before it", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 7, now })];
    const db = loadedBefore("0027_lapse_sets.sql", records, now);
    const sets = () =>
      (
        db.prepare("select place, day, sets from facet_tallies where scope = 'x' order by place, day").all() as {
          sets: string;
        }[]
      ).map((r) => ({ ...r, sets: Object.fromEntries(Object.entries(JSON.parse(r.sets) as object).sort()) }));
    const written = sets();
    expect(written.filter((r) => Object.keys(r.sets).length > 3).length).toBeGreaterThan(100);
    expect(wrongTallies(db)).toEqual([[], [], [], [], [], [], []]);
    // What a database before 0027 holds: the tallies without their sets, and no table of changes.
    db.exec("drop table lapse_set_changes");
    db.exec("alter table facet_tallies drop column sets");
    runMigration(db, "0027_lapse_sets.sql");
    expect(sets()).toEqual(written);
  });
});

describe("migration 0024", () => {
  it("builds the tallies, co-debtor sets and live filings the loaders write from a database loaded before it", () => {
    const now = Date.now();
    const records = [...generateFilings({ filings: 2000, seed: 6, now })];
    const db = loadedBefore("0024_bounded_writes.sql", records, now);
    const today = new Date(now).toISOString().slice(0, 10);
    const rows = () =>
      [
        "select scope, place, name, facet, day, filings, through from facet_tallies order by scope, place, name, facet, day",
        "select * from debtor_links order by name_key, filing_state, other_key, other_address_key",
        "select * from debtor_link_sets order by name_key, filing_state",
        // Lapsed through yesterday, as loads count it now (lapsedThrough): the migration counted through the day it ran.
        `select state, live, lapsed - (select count(*) from filings f where f.state = s.state and f.terminated_at is null
          and s.lapsed_on = '${today}' and f.lapse_date = cast(julianday(s.lapsed_on) - 2440587.5 as integer)) as lapsed
          from state_summaries s order by state`,
        "select * from facet_counts order by scope, place, name, facet",
      ].map((q) => db.prepare(q).all());
    const written = rows();
    expect(written[0]!.length).toBeGreaterThan(1000);
    expect(written[2]!.length).toBeGreaterThan(100);
    // What a database before 0024 holds: facet_days (written from the tallies), and none of the new.
    db.exec("drop table facet_tallies");
    db.exec("drop table stale_tallies");
    db.exec("drop table lapse_set_changes");
    db.exec("drop table debtor_link_sets");
    db.exec("alter table state_summaries drop column live");
    db.exec("alter table state_summaries drop column lapsed");
    db.exec("alter table state_summaries drop column lapsed_on");
    db.exec("alter table facet_counts drop column old");
    db.exec("alter table facet_counts drop column aged");
    db.exec("drop table tally_marks");
    // A facet the loaders before 0024 took back to nothing: its total gone, a day left (its filing taken back in the old bucket).
    db.exec(`insert into facet_days values ('l', 'CA', 'gone lending llc', 'Organization', '${isoSeconds(now).slice(0, 10)}', 1, 1),
      ('l', 'CA', 'gone lending llc', 'Organization', '0000-00-00', -1, 0)`);
    runMigration(db, "0024_bounded_writes.sql");
    for (const [i, table] of rows().entries()) expect(table, String(i)).toEqual(written[i]);
  });
});
