/**
 * Loads stopped part-way, as an operator's Ctrl-C (SIGINT) or a crash
 * (SIGKILL) stops them: at exact points of their work, chosen by the SQL
 * they are about to run (test/node/stopAt.ts, preloaded into the real
 * `npm run import`). The next command that opens the database finishes
 * what was left, and running the same import again ends with the tables
 * of a load that was never stopped. And a file loaded twice changes
 * nothing the second time, even when it gives a filing more than once.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localFiles, shardConfig } from "../../scripts/shardConfig.ts";
import { indexesOf, runScript, tablesOf } from "./localState.ts";
import { migratedState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "lien-interrupted-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const TIMEOUT = 240_000;

const feed = join(work, "feed.ndjson");
const base = join(work, "base.ndjson");
const delta = join(work, "delta.ndjson");
/** Local state migrated (a copy of the run's template, templates.ts), copied for each load. */
const template = join(work, "template");

/** A copy of the migrated, empty template state. */
function freshState(name: string): string {
  const dir = join(work, name);
  cpSync(template, dir, { recursive: true });
  return dir;
}

const importInto = (dir: string, file: string, ...args: string[]) =>
  runScript("scripts/import", [file, "--persist-to", dir, ...args]);

/** The import of `file` into `dir`, stopped with `signal` before the `after`th statement matching `at`. */
function stoppedImport(dir: string, file: string, at: string, after: number, signal: "SIGKILL" | "SIGINT") {
  return runScript("scripts/import", [file, "--persist-to", dir], {
    nodeArgs: ["--import", "./test/node/stopAt.ts"],
    env: { STOP_AT: at, STOP_AFTER: String(after), STOP_SIGNAL: signal },
  });
}

/** Every table but data_loads, which records when each run loaded and how much it changed. */
function loadedTables(dir: string) {
  const tables = tablesOf(dir);
  return Object.fromEntries(Object.entries(tables).filter(([table]) => !table.endsWith("data_loads")));
}

/** Rows a clean load never leaves: zero counts, stale tallies, a refresh queue, an unfinished load. */
function leftovers(dir: string) {
  const out: Record<string, number> = {};
  for (const { file } of localFiles(config, dir)) {
    const db = new DatabaseSync(file, { readOnly: true });
    const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
    out["zero facet days"] =
      (out["zero facet days"] ?? 0) + count("select count(*) as n from facet_tallies where filings = 0");
    out["zero facet totals"] =
      (out["zero facet totals"] ?? 0) + count("select count(*) as n from facet_counts where filings = 0");
    out["stale tallies"] = (out["stale tallies"] ?? 0) + count("select count(*) as n from stale_tallies");
    out["queued debtors"] = (out["queued debtors"] ?? 0) + count("select count(*) as n from debtors_to_refresh");
    out["unfinished bulk loads"] = (out["unfinished bulk loads"] ?? 0) + count("select count(*) as n from bulk_load");
    db.close();
  }
  return out;
}
/** The lines of `phase` of a file's progress (scripts/progress.ts, as a log gets them): share of the file, records. */
function progressLines(stderr: string, phase: "reading" | "writing") {
  return [...stderr.matchAll(new RegExp(`^ {2}\\S+: ${phase} (\\d+)%[^:]*: ([\\d,]+) records`, "gm"))].map((m) => ({
    pct: Number(m[1]),
    records: Number(m[2]!.replaceAll(",", "")),
  }));
}

const NONE = {
  "zero facet days": 0,
  "zero facet totals": 0,
  "stale tallies": 0,
  "queued debtors": 0,
  "unfinished bulk loads": 0,
};

const config = await shardConfig();

beforeAll(() => {
  const generated = runScript("seed/seed", ["--filings", "3000", "--out", feed]);
  expect(generated.status, generated.stderr).toBe(0);
  const lines = readFileSync(feed, "utf8").trim().split("\n");
  // A filing given again, changed (held back in bulk mode), and amendment
  // lines for filings of the file (held back too): a bulk load's last phase.
  const again = JSON.parse(lines[0]!);
  again.involved_parties.debtor_parties[0].name = "Renamed Holdings LLC";
  const amendments = lines.slice(1, 41).map((line, i) => {
    const lien = JSON.parse(line);
    return JSON.stringify({
      initial_financing_number: lien.initial_financing_number,
      jurisdiction_state: lien.jurisdiction_state,
      amendment_financing_number: `AMD-STOP-${i}`,
      amendment_financing_date: lien.initial_financing_date,
      amendment_financing_type_description: "Amendment - Collateral",
    });
  });
  // The bulk feed: 2,200 filings, enough for a first progress line (2,000 records written) before its last.
  writeFileSync(feed, `${[...lines.slice(0, 2200), JSON.stringify(again), ...amendments].join("\n")}\n`);
  // A daily delta onto the first 2,000: 400 of them with their debtors in
  // another industry and street (facets move, counts of old ones fall to
  // nothing), and 400 new filings.
  writeFileSync(base, `${lines.slice(0, 2000).join("\n")}\n`);
  const changed = lines.slice(1600, 2000).map((line) => {
    const lien = JSON.parse(line);
    for (const d of lien.involved_parties.debtor_parties) {
      d.category = d.category === "Retail" ? "Healthcare" : "Retail";
      if (d.address) d.address.street1 = `${d.address.street1 ?? ""} Suite 9`.trim();
    }
    return JSON.stringify(lien);
  });
  writeFileSync(delta, `${[...changed, ...lines.slice(2000, 2400)].join("\n")}\n`);
  migratedState(template);
}, TIMEOUT);

describe("a bulk load (a backfill into an empty database) stopped part-way", () => {
  let clean: ReturnType<typeof loadedTables>;
  /** What the load that was not stopped said as it went (stderr, not a terminal). */
  let said = "";
  beforeAll(() => {
    const dir = freshState("bulk-clean");
    const loaded = importInto(dir, feed);
    expect(loaded.stderr).toContain("empty: bulk mode");
    expect(loaded.status, loaded.stderr).toBe(0);
    said = loaded.stderr;
    clean = loadedTables(dir);
    expect(leftovers(dir)).toEqual(NONE);
  }, TIMEOUT);

  it("says, when not stopped, how far its writing has got as it writes, then each phase after it, each with its time", () => {
    const records = readFileSync(feed, "utf8").trim().split("\n").length;
    const written = progressLines(said, "writing");
    // A line as another tenth of the file is written (groups of 2,000 in bulk), not one at the end.
    expect(written.at(-1)).toEqual({ pct: 100, records });
    expect(written[0]).toEqual({ pct: expect.any(Number), records: 2_000 });
    expect(written[0]!.pct).toBeLessThan(100);
    expect(said).toMatch(/^ {2}\S+feed\.ndjson: writing \d+%, about \d+s left: 2,000 records written or rejected/m);
    const phases = [
      "writing 100% in",
      "building indexes 100% in",
      "rebuilding debtor aggregates and running totals 100% in",
      "loading held-back records (repeated filings, amendments) 100% in",
    ].map((phase) => said.indexOf(phase));
    expect(phases.every((at) => at >= 0)).toBe(true);
    expect(phases).toEqual([...phases].sort((a, b) => a - b));
  });

  it.each([
    ["while writing rows", '^insert into "filings"', 20, "SIGKILL"],
    ["while writing rows", '^insert into "filings"', 20, "SIGINT"],
    ["while building indexes", "^create index", 5, "SIGKILL"],
    ["while building indexes", "^create index", 20, "SIGINT"],
    ["while rebuilding aggregates and running totals", '^insert into "debtor_addresses"', 2, "SIGKILL"],
    ["while rebuilding aggregates and running totals", '^insert into "facet_tallies" \\(scope', 1, "SIGINT"],
    // Only the ordinary path replaces a filing: a held-back amendment updating its filing's row in place.
    ["while loading held-back records", '^update "filings" set .*"revision" = ', 2, "SIGKILL"],
  ] as const)(
    "is finished by the next command and by the same import again, %s (%s at match %i, %s)",
    (phase, at, after, signal) => {
      const dir = freshState(`bulk-${at.replace(/\W+/g, "")}-${after}-${signal}`);
      const stopped = stoppedImport(dir, feed, at, after, signal);
      expect(stopped.stderr).toContain(`stopAt: ${signal}`);
      expect(stopped.signal).toBe(signal);

      // The next command that opens the database finishes the job first, in one line. Held-back
      // records load once every shard has its indexes and aggregates: stopped then, no bulk load is left unfinished.
      const migrated = runScript("scripts/migrate", ["--persist-to", dir]);
      expect(migrated.status, migrated.stderr).toBe(0);
      const finished = migrated.stdout.match(/^Finished an interrupted .*$/gm) ?? [];
      expect(finished).toHaveLength(/held-back/.test(phase) ? 0 : 1);
      const indexes = indexesOf(dir);
      expect(Object.values(indexes).flat().length).toBeGreaterThan(100);
      expect(indexes).toEqual(indexesOf(join(work, "bulk-clean")));

      const again = importInto(dir, feed);
      expect(again.stderr).toContain("was interrupted: this import loads the rest of it");
      expect(again.status, again.stderr).toBe(0);
      expect(loadedTables(dir)).toEqual(clean);
      expect(leftovers(dir)).toEqual(NONE);
    },
    TIMEOUT,
  );
});

describe("an ordinary load (a delta) stopped part-way", () => {
  it(
    "is finished by the next command, and the same delta again ends with the tables of an uninterrupted one",
    () => {
      const cleanDir = freshState("delta-clean");
      expect(importInto(cleanDir, base).status).toBe(0);
      const cleanDelta = importInto(cleanDir, delta);
      expect(cleanDelta.status, cleanDelta.stderr).toBe(0);
      expect(cleanDelta.stdout).toContain("400 inserted, 400 updated, 0 unchanged");
      expect(leftovers(cleanDir)).toEqual(NONE);
      // Not stopped, it says how far it has got as it goes: its first reading, each group of 500 written, the refresh.
      expect(progressLines(cleanDelta.stderr, "reading").at(-1)).toEqual({ pct: 100, records: 800 });
      const written = progressLines(cleanDelta.stderr, "writing");
      expect(written.map((w) => w.records)).toEqual([500, 800]);
      expect(written.map((w) => w.pct)).toEqual([expect.any(Number), 100]);
      expect(written[0]!.pct).toBeLessThan(100);
      expect(cleanDelta.stderr).toMatch(
        /^ {2}rebuilding the aggregates of the debtors loaded 100% in [\d.]+s: [\d,]+ debtors$/m,
      );

      const dir = freshState("delta-stopped");
      expect(importInto(dir, base).status).toBe(0);
      // Before the third batch's commit: two batches of the delta are written, their refresh deferred.
      const stopped = stoppedImport(dir, delta, "^commit$", 3, "SIGKILL");
      expect(stopped.signal).toBe("SIGKILL");
      const migrated = runScript("scripts/migrate", ["--persist-to", dir]);
      expect(migrated.stdout).toMatch(/^Refreshed what a load left queued in .*: the aggregates of [\d,]+ debtors/m);
      expect(leftovers(dir)).toEqual(NONE);

      const again = importInto(dir, delta);
      expect(again.status, again.stderr).toBe(0);
      expect(loadedTables(dir)).toEqual(loadedTables(cleanDir));
      expect(leftovers(dir)).toEqual(NONE);
    },
    TIMEOUT,
  );
});

/** An IACA-style XML file: one FileDetail per [number, debtor, lapse date]. */
function xmlFeed(records: [string, string, string][]): string {
  const detail = ([number, debtor, lapse]: [string, string, string]) => `
      <FileDetail>
        <TransType Type="Initial"/>
        <FileNumber>${number}</FileNumber>
        <FileDate>20250305 1420</FileDate>
        <LapseDate>${lapse}</LapseDate>
        <FilingOffice>CO</FilingOffice>
        <Debtors><DebtorName><Names>
          <OrganizationName>${debtor}</OrganizationName>
          <MailAddress>1 MAIN ST</MailAddress><City>DENVER</City><State>CO</State><PostalCode>80202</PostalCode>
        </Names></DebtorName></Debtors>
        <Secured><Names><OrganizationName>FIRST WESTERN BANK</OrganizationName></Names></Secured>
      </FileDetail>`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Document><Record><Results>${records.map(detail).join("")}\n</Results></Record></Document>\n`;
}

describe("a file that gives a filing more than once, loaded twice", () => {
  it.each([
    ["NDJSON (each copy replaces)", "repeats.ndjson"],
    ["IACA XML (each copy merges)", "repeats.xml"],
  ])(
    "%s: the second load reports every filing unchanged and changes no row",
    (_format, name) => {
      const file = join(work, name);
      if (name.endsWith(".xml")) {
        writeFileSync(
          file,
          xmlFeed([
            ["CO-REP-1", "ROCKY MESA FARMS LLC", "20300305"],
            ["CO-REP-2", "ALPINE DELIVERY INC", "20300305"],
            ["CO-REP-1", "ROCKY MESA HOLDINGS LLC", "20310305"],
            ["CO-REP-1", "ROCKY MESA FARMS LLC", "20320305"],
          ]),
        );
      } else {
        const lines = readFileSync(base, "utf8").trim().split("\n").slice(0, 300);
        const copy = (i: number, debtor: string) => {
          const lien = JSON.parse(lines[i]!);
          lien.involved_parties.debtor_parties[0].name = debtor;
          return JSON.stringify(lien);
        };
        // One filing three times, one twice, in groups far apart.
        writeFileSync(
          file,
          `${[...lines, copy(0, "Second Copy LLC"), copy(5, "Other LLC"), copy(0, "Third Copy LLC")].join("\n")}\n`,
        );
      }
      const dir = freshState(`repeats-${name}`);
      const first = importInto(dir, file, "--no-bulk");
      expect(first.status, first.stderr).toBe(0);
      expect(first.stderr).toContain(
        name.endsWith(".xml") ? "1 filing given more than once" : "2 filings given more than once",
      );
      const before = loadedTables(dir);

      const second = importInto(dir, file, "--no-bulk");
      expect(second.status, second.stderr).toBe(0);
      expect(second.stdout).toMatch(/ 0 inserted, 0 updated, \d+ unchanged, 0 rejected/);
      expect(second.stdout).toContain(
        name.endsWith(".xml") ? "2 repeated (the last kept)" : "3 repeated (the last kept)",
      );
      expect(loadedTables(dir)).toEqual(before);
      if (name.endsWith(".xml")) {
        // Every copy merged: both spellings of the debtor, the last copy's lapse date.
        expect(JSON.stringify(before.debtor_parties)).toContain("ROCKY MESA HOLDINGS LLC");
        const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / 86_400_000;
        const filings = (before.filings as string[]).map((row) => JSON.parse(row));
        expect(filings.find((f) => f.number === "CO-REP-1")?.office_lapse_date).toBe(day("2032-03-05"));
      } else expect(JSON.stringify(before.debtor_parties)).toContain("Third Copy LLC");
    },
    TIMEOUT,
  );
});
