/**
 * `npm run db:rekey` (src/db/rekey.ts) brings a database whose name keys
 * were computed under earlier name rules to what loading the same filings
 * under the current rules gives: the parties' keys, the per-debtor
 * aggregates, the lender facets and the sound keys of similar-name search.
 * Run again, it changes nothing.
 */
import type { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { refreshAll, writeFilingRows, writeFilings } from "../../scripts/bulk/load.ts";
import { localD1Database } from "../../scripts/localD1.ts";
import { generateFilings } from "../../seed/generate.ts";
import type { Db } from "../../src/db/database.ts";
import { facetCutoffDay } from "../../src/db/load.ts";
import { type FilingRecord, type PartyRecord, toRows } from "../../src/db/records.ts";
import { rekeyStored } from "../../src/db/rekey.ts";
import { MAX_INDEXED_NAME_ID, NAME_ID_BITS } from "../../src/db/soundKeys.ts";
import { migratedDatabase } from "./migrated.ts";

const NOW = Date.now();

/**
 * Names whose keys the rules before these changed (mathematical and
 * black-letter capitals dropped as separators; Massachusetts's endings
 * unknown), with the keys those rules stored.
 */
const OLD_DEBTOR_KEYS = new Map([
  ["𝐇𝐀𝐑𝐁𝐎𝐑 Manufacturing Inc", "manufacturing"],
  ["ℌarbor Foods LLC", "arborfoods"],
  ["Harbor Dental Prof. Corp.", "harbordentalprof"],
  ["Acme Massachusetts Business Trust", "acmemassachusetts"],
  ["Lakeside L.L.Co.", "lakesidellco"],
  ["𝐉𝐨𝐡𝐧 Smith", "smith ohn "],
  ["Smith, 𝐉𝐎𝐇𝐍", "smith  "],
]);
const OLD_LENDER_WORDS = new Map([
  ["𝐖𝐄𝐋𝐋𝐒 𝐅𝐀𝐑𝐆𝐎 Bank", "bank"],
  ["𝐂𝐈𝐓𝐈 Commercial Lending", "commercial lending"],
]);

const O = "Organization" as const;
const I = "Individual" as const;

/**
 * Debtors and lenders given to some generated filings: names whose keys
 * change beside names whose keys do not (a co-debtor, a lender sharing the
 * changed one's prefix), and names whose old and new keys are other names'.
 */
const PARTIES: { debtors: [string, typeof O | typeof I][]; lenders: string[] }[] = [
  {
    debtors: [
      ["𝐇𝐀𝐑𝐁𝐎𝐑 Manufacturing Inc", O],
      ["𝐉𝐨𝐡𝐧 Smith", I],
    ],
    lenders: ["𝐖𝐄𝐋𝐋𝐒 𝐅𝐀𝐑𝐆𝐎 Bank", "Wells Fargo Equipment Finance"],
  },
  { debtors: [["Manufacturing Inc", O]], lenders: ["Wells Fargo Bank"] },
  {
    debtors: [
      ["Harbor Manufacturing", O],
      ["Smith, 𝐉𝐎𝐇𝐍", I],
    ],
    lenders: ["𝐂𝐈𝐓𝐈 Commercial Lending"],
  },
  {
    debtors: [
      ["Harbor Dental Prof. Corp.", O],
      ["Mary Smith-Jones", I],
    ],
    lenders: ["Citi Commercial Lending", "𝐖𝐄𝐋𝐋𝐒 𝐅𝐀𝐑𝐆𝐎 Bank"],
  },
  {
    debtors: [
      ["Acme Massachusetts Business Trust", O],
      ["ℌarbor Foods LLC", O],
    ],
    lenders: ["Bank of America"],
  },
  { debtors: [["Lakeside L.L.Co.", O]], lenders: ["𝐂𝐈𝐓𝐈 Commercial Lending"] },
];

/** `record` with the parties of PARTIES[k], each where one of its own was (address, label). */
function withParties(record: FilingRecord, k: number): FilingRecord {
  const { debtors, lenders } = PARTIES[k % PARTIES.length]!;
  const at = (parties: PartyRecord[], i: number) => parties[i % parties.length]!;
  return {
    ...record,
    debtors: debtors.map(([name, type], i) => ({ ...at(record.debtors, i), name, type })),
    securedParties: lenders.map((name, i) => ({ ...at(record.securedParties, i), name })),
  };
}

/** 600 generated filings, every 23rd given PARTIES (26 filings, recent and old). */
const RECORDS = [...generateFilings({ filings: 600, seed: 26, now: NOW })].map((r, i) =>
  i % 23 === 5 ? withParties(r, Math.floor(i / 23)) : r,
);

/**
 * RECORDS loaded with the old keys, as a database loaded before the change
 * holds them, without traits, as one loaded before migration 0023, and
 * without its lenders' debtor industries, as one loaded before 0031.
 */
function loadedWithOldKeys(): DatabaseSync {
  const db = migratedDatabase();
  const rows = RECORDS.map((r, i) => toRows(r, i + 1));
  for (const r of rows) {
    r.filing.traits = null;
    for (const d of r.debtors) d.nameKey = OLD_DEBTOR_KEYS.get(d.name) ?? d.nameKey;
    for (const s of r.securedParties) {
      s.nameWords = OLD_LENDER_WORDS.get(s.name) ?? s.nameWords;
      s.debtorIndustries = null;
    }
  }
  writeFilingRows(db, new Map(), rows, facetCutoffDay(NOW));
  refreshAll(db);
  return db;
}

function loadedNow(): DatabaseSync {
  const db = migratedDatabase();
  writeFilings(db, RECORDS, 1, () => {}, NOW);
  refreshAll(db);
  return db;
}

const all = (db: DatabaseSync, query: string) => db.prepare(query).all();

/**
 * Every stored table, in key order; debtor_names and secured parties' names
 * without their ids (a name new to a database gets the next one), and sound keys as the key, state
 * and debtor each row files a name under (rows pointing at no name match
 * nothing, and are left out).
 */
function tables(db: DatabaseSync) {
  return {
    filings: all(db, "select * from filings order by id"),
    debtorParties: all(db, "select * from debtor_parties order by filing_id, position"),
    // A lender's name by its words: a name new to a database gets the next id.
    securedParties: all(
      db,
      "select filing_id, position, (select words from lender_names where id = name_id) as words, filing_state, filed_at, filing_number, lapses_on, debtor_types, debtor_industries from secured_parties order by filing_id, position",
    ),
    lenders: all(db, "select * from lenders order by id"),
    amendments: all(db, "select * from amendments order by filing_id, position"),
    // A lender facet's name by its words, as the parties': its id is the database's.
    facets: [
      all(db, "select * from facet_tallies order by scope, place, name, facet, day"),
      all(
        db,
        "select scope, place, name, facet, filings, old, (select words from lender_names where id = ref) as ref from facet_counts order by scope, place, name, facet",
      ),
    ],
    debtorNames: all(
      db,
      "select name_key, state, name, last_filed_at, filing_count from debtor_names order by name_key, state",
    ),
    debtorAddresses: all(db, "select * from debtor_addresses order by name_key, last_used, address_key"),
    debtorAddressSets: all(db, "select * from debtor_address_sets order by name_key"),
    debtorLinks: all(db, "select * from debtor_links order by name_key, filing_state, other_key, other_address_key"),
    debtorLinkSets: all(db, "select * from debtor_link_sets order by name_key, filing_state"),
    queued: all(db, "select * from debtors_to_refresh"),
    debtorReports: all(db, "select * from debtor_reports order by name_key, state"),
  };
}

function soundKeys(db: DatabaseSync): Set<string> {
  const rows = all(
    db,
    `select s.id >> ${NAME_ID_BITS} as key_state, n.name_key, n.state from debtor_sound_keys s
     join debtor_names n on n.id = s.id & ${MAX_INDEXED_NAME_ID}`,
  );
  return new Set(rows.map((r) => JSON.stringify(r)));
}

const rawSoundKeys = (db: DatabaseSync) =>
  all(
    db,
    `select id >> ${NAME_ID_BITS} as high, id & ${MAX_INDEXED_NAME_ID} as low from debtor_sound_keys order by 1, 2`,
  );

describe("npm run db:rekey", () => {
  it("gives a database keyed under the old rules, without traits and lender industries, what a load under the current rules gives, once", async () => {
    const fresh = loadedNow();
    const db = loadedWithOldKeys();
    const changedDebtors = RECORDS.flatMap((r) => r.debtors).filter((d) => OLD_DEBTOR_KEYS.has(d.name)).length;
    const changedLenders = RECORDS.flatMap((r) => r.securedParties).filter((s) => OLD_LENDER_WORDS.has(s.name)).length;
    expect(changedDebtors).toBeGreaterThan(20);
    expect(changedLenders).toBeGreaterThan(10);
    expect(tables(db).debtorParties).not.toEqual(tables(fresh).debtorParties);
    expect(tables(db).facets).not.toEqual(tables(fresh).facets);

    const local = localD1Database(db) as unknown as Db;
    const pages: number[] = [];
    const summary = await rekeyStored(local, {
      now: new Date(NOW),
      pageIds: 50,
      onPage: (_, done) => pages.push(done),
    });
    expect(summary).toEqual({
      filings: RECORDS.length,
      debtors: changedDebtors,
      lenders: changedLenders,
      traits: RECORDS.length,
      industries: RECORDS.length,
      digestTimes: 0,
    });
    // Pages of 50 filing ids up to the last.
    expect(pages).toEqual(
      Array.from({ length: Math.ceil(RECORDS.length / 50) }, (_, k) => Math.min(50 * (k + 1), RECORDS.length)),
    );

    expect(tables(db)).toEqual(tables(fresh));
    // Each name is found under every key a fresh load files it under.
    const stored = soundKeys(db);
    expect([...soundKeys(fresh)].filter((k) => !stored.has(k))).toEqual([]);

    const before = { tables: tables(db), soundKeys: rawSoundKeys(db) };
    expect(await rekeyStored(local, { now: new Date(NOW), pageIds: 50 })).toEqual({
      filings: RECORDS.length,
      debtors: 0,
      lenders: 0,
      traits: 0,
      industries: 0,
      digestTimes: 0,
    });
    expect({ tables: tables(db), soundKeys: rawSoundKeys(db) }).toEqual(before);
  });

  it("gives report digests an older Worker built without their oldest live filing's time that time, and changes nothing else", async () => {
    const fresh = loadedNow();
    const db = loadedNow();
    const timed = all(db, "select count(*) as n from debtor_reports where first_active is not null")[0]?.n;
    expect(Number(timed)).toBeGreaterThan(10);
    db.exec("update debtor_reports set first_active_at = null");
    const local = localD1Database(db) as unknown as Db;
    const summary = await rekeyStored(local, { now: new Date(NOW), pageIds: 50 });
    expect(summary.digestTimes).toBe(Number(timed));
    expect(tables(db)).toEqual(tables(fresh));
    expect((await rekeyStored(local, { now: new Date(NOW), pageIds: 50 })).digestTimes).toBe(0);
  });
});
