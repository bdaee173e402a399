/**
 * `npm run import` and `npm run export` end to end, as an operator runs
 * them: real processes against local D1 state (migrated by wrangler, written
 * in-process with node:sqlite) in a temporary directory given with
 * --persist-to.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FilingRecord } from "../../src/db/records.ts";
import { lienLine } from "../../src/feed/export.ts";
import { readFeed } from "../../src/feed/read.ts";
import { industryTypes, root, runScript, scriptEnv, tablesOf } from "./localState.ts";
import { migratedState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "lien-import-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (script: "import" | "export", args: string[]) => runScript(`scripts/${script}`, args);

const fixtures = ["test/fixtures/feed.ndjson", "test/fixtures/feed.csv", "test/fixtures/mixed.ndjson"];
// Each state directory starts as npm run db:migrate leaves one: a copy of the run's template.
const state = migratedState(join(work, "state"));
const rejectsPath = join(work, "rejects.ndjson");
const warningsPath = join(work, "warnings.ndjson");
const outputs = ["--rejects", rejectsPath, "--warnings", warningsPath];
/** States with filings from NDJSON (CA, OR) and CSV (GA, WA) feeds. */
const STATES = ["CA", "GA", "WA", "OR"];
const TIMEOUT = 180_000;

async function fixtureRecords(file: string): Promise<FilingRecord[]> {
  const out: FilingRecord[] = [];
  for await (const item of readFeed(file, new Response(readFileSync(join(root, file))).body!)) {
    if ("record" in item) out.push(item.record);
  }
  return out;
}

describe("npm run import", () => {
  it(
    "loads NDJSON and CSV feeds into local state, writes the rejects and warnings and exits 3",
    () => {
      const { status, stdout, stderr } = run("import", [...fixtures, "--persist-to", state, ...outputs]);
      expect(stderr).toContain(`into the local D1 database in ${state}`);
      expect(stdout).toMatch(
        /^Imported: 17 records read: 12 inserted, 0 updated, 0 unchanged, 5 rejected; 1 loaded with warnings in [\d.]+s/m,
      );
      expect(stdout).toContain(`Rejects: 5 in ${rejectsPath}`);
      expect(stdout).toContain(`Warnings: 1 in ${warningsPath}`);
      expect(status).toBe(3);
      const rejects = readFileSync(rejectsPath, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rejects.map((r) => [r.file, r.line])).toEqual(
        [2, 4, 6, 8, 11].map((line) => ["test/fixtures/mixed.ndjson", line]),
      );
      expect(JSON.parse(readFileSync(warningsPath, "utf8"))).toMatchObject({
        file: "test/fixtures/mixed.ndjson",
        line: 3,
        filing: "OR MIX-3",
        reason: expect.stringContaining('address.zip_code: "9740" is not a US ZIP code'),
      });
      const lines = readFileSync(join(root, "test/fixtures/mixed.ndjson"), "utf8").split("\n");
      for (const r of rejects) {
        expect(r.reason).toEqual(expect.any(String));
        expect(r.raw).toBe(lines[r.line - 1]);
      }
    },
    TIMEOUT,
  );

  it(
    "changes nothing when the same files are imported again",
    () => {
      const { status, stdout } = run("import", [...fixtures, "--persist-to", state, ...outputs]);
      expect(stdout).toMatch(/^Imported: 17 records read: 0 inserted, 0 updated, 12 unchanged, 5 rejected; 1 loaded/m);
      expect(status).toBe(3);
    },
    TIMEOUT,
  );

  it(
    "writes rejects and warnings next to the input by default, and clears them once the file is clean",
    () => {
      const feed = join(work, "orders.ndjson");
      const mixed = readFileSync(join(root, "test/fixtures/mixed.ndjson"), "utf8");
      writeFileSync(feed, mixed);
      const dirty = run("import", [feed, "--persist-to", state]);
      expect(dirty.status).toBe(3);
      expect(readFileSync(`${feed}.rejects.ndjson`, "utf8").trim().split("\n")).toHaveLength(5);
      expect(readFileSync(`${feed}.warnings.ndjson`, "utf8").trim().split("\n")).toHaveLength(1);
      const clean = mixed
        .split("\n")
        .filter((l) => l.includes('"MIX-1"') || l.includes('"MIX-5"'))
        .join("\n");
      writeFileSync(feed, clean);
      const second = run("import", [feed, "--persist-to", state]);
      expect(second.stdout).toMatch(/^Imported: 2 records read: 0 inserted, 0 updated, 2 unchanged, 0 rejected/m);
      expect(second.status).toBe(0);
      expect(existsSync(`${feed}.rejects.ndjson`)).toBe(false);
      expect(existsSync(`${feed}.warnings.ndjson`)).toBe(false);
    },
    TIMEOUT,
  );

  it(
    "skips a CSV file whose header is unusable, imports the other files and exits 1",
    () => {
      const bad = join(work, "bad-header.csv");
      writeFileSync(bad, "filing_state,filing_number,notes\nIL,1,x\n");
      const { status, stdout, stderr } = run("import", [bad, "test/fixtures/feed.csv", "--persist-to", state]);
      expect(stderr).toContain(`${bad}: not imported: header (line 1): unknown column "notes"`);
      expect(stdout).toMatch(/^Imported: 2 records read: 0 inserted, 0 updated, 2 unchanged, 0 rejected/m);
      expect(status).toBe(1);
    },
    TIMEOUT,
  );

  it(
    "imports an XML bulk file, keeping an amendment whose filing is not loaded yet",
    () => {
      const xmlState = migratedState(join(work, "xml-state"));
      const { status, stdout } = run("import", ["test/fixtures/office.xml", "--persist-to", xmlState, ...outputs]);
      expect(stdout).toMatch(
        /^Imported: 5 records read: 2 inserted, 0 updated, 0 unchanged, 0 rejected; 1 loaded with warnings; 3 amendment records, 1 waiting for their filing in/m,
      );
      expect(status).toBe(0);
      const warnings = readFileSync(warningsPath, "utf8").trim().split("\n");
      expect(warnings.map((l) => JSON.parse(l).filing)).toEqual(["CA U250088812345", "CA U240077700001"]);
    },
    TIMEOUT,
  );

  it(
    "stops a truncated XML file where it breaks, naming the line and byte, keeps what loaded and exits 1",
    () => {
      const xml = readFileSync(join(root, "test/fixtures/office.xml"), "utf8");
      const cut = join(work, "cut.xml");
      writeFileSync(cut, xml.slice(0, xml.indexOf("<OrganizationName>FRANCHISE TAX BOARD")));
      const cutState = migratedState(join(work, "cut-state"));
      const { status, stdout, stderr } = run("import", [cut, "--persist-to", cutState]);
      expect(stderr).toMatch(
        /not fully imported: the file ends inside the <FileDetail> begun at line 97 \(line 118, column 13, byte [\d,]+\): it looks truncated/,
      );
      expect(stdout).toMatch(/^Imported: 3 records read: 1 inserted, 0 updated, 0 unchanged, 0 rejected/m);
      expect(status).toBe(1);
      const exported = run("export", ["--state", "CA", "--persist-to", cutState]);
      expect(
        exported.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l).initial_financing_number),
      ).toEqual(["U250088812345"]);
    },
    TIMEOUT,
  );

  it(
    "refuses unusable arguments with exit 2 before touching any database",
    () => {
      const txt = join(work, "feed.txt");
      writeFileSync(txt, "");
      for (const args of [[], [txt], ["missing.ndjson"], ["test/fixtures/feed.ndjson", "--env", "preview"]]) {
        const { status, stderr } = run("import", args);
        expect(status).toBe(2);
        expect(stderr).toContain("usage: npm run import -- FILE...");
      }
    },
    TIMEOUT,
  );
});

describe("npm run export", () => {
  it(
    "writes a state's filings as the lines the importer reads",
    async () => {
      const { status, stdout, stderr } = run("export", ["--state", "ca", "--persist-to", state]);
      expect(status).toBe(0);
      expect(stderr).toContain("Exported 1 filings of CA");
      const today = new Date().toISOString().slice(0, 10);
      const [record] = await fixtureRecords("test/fixtures/feed.ndjson");
      expect(
        stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l)),
      ).toEqual([lienLine(record!, today)]);
    },
    TIMEOUT,
  );

  it(
    "round-trips: exports imported into empty state export the same again",
    () => {
      const out = (s: string, dir: string) => join(work, `${dir}-${s}.ndjson`);
      for (const s of STATES)
        expect(run("export", ["--state", s, "--out", out(s, "first"), "--persist-to", state]).status).toBe(0);
      const second = migratedState(join(work, "state2"));
      const load = run("import", [...STATES.map((s) => out(s, "first")), "--persist-to", second]);
      expect(load.stdout).toMatch(/^Imported: 8 records read: 8 inserted, 0 updated, 0 unchanged, 0 rejected/m);
      for (const s of STATES) {
        expect(run("export", ["--state", s, "--out", out(s, "again"), "--persist-to", second]).status).toBe(0);
        expect(readFileSync(out(s, "again"), "utf8")).toBe(readFileSync(out(s, "first"), "utf8"));
      }
    },
    TIMEOUT * 2,
  );

  it(
    "through plain `npm run export`, writes only the lines to stdout (the project's .npmrc keeps npm's banner out)",
    () => {
      const direct = run("export", ["--state", "ca", "--persist-to", state]);
      // Without any loglevel the calling npm passed down, so the project's .npmrc decides.
      const env = { ...process.env };
      for (const k of Object.keys(env)) if (/^npm_config_loglevel$/i.test(k)) delete env[k];
      const viaNpm = spawnSync("npm", ["run", "export", "--", "--state", "ca", "--persist-to", state], {
        cwd: root,
        encoding: "utf8",
        env,
      });
      expect(viaNpm.status).toBe(0);
      expect(viaNpm.stdout).toBe(direct.stdout);
      expect(viaNpm.stdout.trim().split("\n")).toHaveLength(1);
    },
    TIMEOUT,
  );

  it(
    "refuses a missing or unknown state with exit 2",
    () => {
      for (const args of [[], ["--state", "XX"], ["--state", "CA", "--remote", "--persist-to", "x"]]) {
        const { status, stderr } = run("export", args);
        expect(status).toBe(2);
        expect(stderr).toContain("usage: npm run export -- --state XX");
      }
    },
    TIMEOUT,
  );
});

describe("npm run import into an empty database (bulk mode)", () => {
  it(
    "ends with the same tables as an ordinary import, the last of a repeated filing winning",
    () => {
      const feed = join(work, "generated.ndjson");
      const seeded = spawnSync(process.execPath, ["seed/seed.ts", "--filings", "400", "--out", feed], {
        cwd: root,
        encoding: "utf8",
      });
      expect(seeded.status).toBe(0);
      // A later file repeats one filing with a changed debtor name.
      const first = JSON.parse(readFileSync(feed, "utf8").split("\n")[0]!);
      first.involved_parties.debtor_parties[0].name = "Renamed Holdings LLC";
      const update = join(work, "update.ndjson");
      writeFileSync(update, `${JSON.stringify(first)}\n`);

      const bulk = run("import", [feed, update, "--persist-to", migratedState(join(work, "bulk"))]);
      expect(bulk.stderr).toContain("empty: bulk mode");
      const generated = readFileSync(feed, "utf8").trim().split("\n").length;
      expect(bulk.stdout).toContain(`Imported: ${generated + 1} records read: ${generated} inserted, 0 updated`);
      expect(bulk.stdout).toContain("1 repeated (the last kept)");
      const plain = run("import", [feed, update, "--persist-to", migratedState(join(work, "plain")), "--no-bulk"]);
      expect(plain.stderr).not.toContain("bulk mode");
      expect(plain.status).toBe(0);

      const [a, b] = [tablesOf(join(work, "bulk")), tablesOf(join(work, "plain"))];
      expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
      for (const table of Object.keys(b)) {
        // data_loads records when each load ran; the rest must match row for row.
        if (!table.endsWith("data_loads")) expect(a[table], table).toEqual(b[table]);
      }
      expect(JSON.stringify(a.debtor_parties)).toContain("Renamed Holdings LLC");
      // A listed industry is stored as its code, an integer (neither D1 nor node:sqlite binds a number so), another as text.
      for (const dir of ["bulk", "plain"])
        expect(industryTypes(join(work, dir)), dir).toEqual(["integer", "null", "text"]);
    },
    TIMEOUT,
  );
});

describe("npm run backfill:sql", () => {
  it(
    "writes the local data as SQL that wrangler d1 execute loads into a migrated, empty database, table for table",
    () => {
      // A project directory of its own, so wrangler's default local state is this test's, in two
      // shards (the fixture's CA and NY in DB_2, FL and OH in DB): a wrangler run per shard to
      // export and another to execute, each several CPU-seconds, where wrangler.toml's four took twice that.
      const project = join(work, "backfill-project");
      mkdirSync(join(project, "public"), { recursive: true });
      const config = readFileSync(join(root, "wrangler.toml"), "utf8");
      const twoShards = config.replace(/^SHARD_STATES = .*$/m, 'SHARD_STATES = { DB_2 = ["CA", "NY", "NJ"] }');
      expect(twoShards).not.toBe(config);
      writeFileSync(join(project, "wrangler.toml"), twoShards);
      cpSync(join(root, "migrations"), join(project, "migrations"), { recursive: true });
      const source = migratedState(join(project, ".wrangler/state"));
      const env = scriptEnv;
      const inProject = (script: string, args: string[]) =>
        spawnSync(process.execPath, [join(root, `scripts/${script}.ts`), ...args], {
          cwd: project,
          encoding: "utf8",
          env,
        });
      const imported = inProject("import", [join(root, "test/fixtures/feed.ndjson"), "--persist-to", source]);
      expect(imported.status, imported.stderr).toBe(0);

      const sqlFile = join(work, "backfill.sql");
      const written = inProject("backfillSql", ["--out", sqlFile]);
      expect(written.status, written.stderr).toBe(0);
      // One file and one command per shard.
      const commands = [
        ...written.stderr.matchAll(/wrangler d1 execute (DB\w*) --remote --env production --file (\S+)/g),
      ];
      expect(commands.map((m) => m[1])).toEqual(["DB", "DB_2"]);

      // The remote side, played by another local state: migrated, then each shard's file executed.
      const target = migratedState(join(work, "backfill-target"));
      const wrangler = (args: string[]) => spawnSync("wrangler", args, { cwd: root, encoding: "utf8", env });
      for (const [, binding, file] of commands) {
        const executed = wrangler([
          "d1",
          "execute",
          binding!,
          "--local",
          "--persist-to",
          target,
          "--file",
          file!,
          "-y",
        ]);
        expect(executed.status, executed.stderr).toBe(0);
      }
      expect(tablesOf(target)).toEqual(tablesOf(source));
      expect(tablesOf(target).filings).toHaveLength(5); // the filings of test/fixtures/feed.ndjson
    },
    // Four wrangler runs (an export and an execute per shard), each several seconds on a busy machine.
    TIMEOUT * 2,
  );
});
