/**
 * Benchmark of the offices' open registers (src/feed/sources/): each
 * source loaded by file and by pull (from the local stand-in for a Socrata
 * portal, scripts/socrataPortal.ts) into empty local state, and Colorado by
 * file at its real size (2.6M transactions and 2M rows in each of its other
 * three tables), with the importer's peak memory:
 *
 *   npm run bench:sources [-- --rows 100000 --co-transactions 2600000 --co-others 2000000 --write]
 *   npm run bench:sources -- --colorado-only --co-transactions 600000 --co-others 461538
 *
 * `--colorado-only` runs Colorado's large load alone (at the sizes given),
 * to compare its memory at several sizes; its results go to
 * bench/SOURCES.local.md only.
 *
 * Rows are generated in each register's columns and shapes (liens of one
 * or two debtors, amendments, releases, continuations, several tables
 * joined on fileid). For each run: wall time, rows and filings a second, and
 * the peak resident memory of the import process (its VmHWM, read from
 * /proc while it runs). Results go to bench/SOURCES.local.md (untracked);
 * --write updates the committed bench/SOURCES.md.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { parseArgs } from "node:util";
import { machine } from "./devServer.ts";
import { localFiles, shardConfig } from "./shardConfig.ts";
import { SocrataPortal } from "./socrataPortal.ts";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "100000" },
    "co-transactions": { type: "string", default: "2600000" },
    "co-others": { type: "string", default: "2000000" },
    write: { type: "boolean", default: false },
    "colorado-only": { type: "boolean", default: false },
  },
});
const ROWS = Number(values.rows);
const CO_TRANSACTIONS = Number(values["co-transactions"]);
const CO_OTHERS = Number(values["co-others"]);
const COLORADO_ONLY = values["colorado-only"];
if (COLORADO_ONLY && values.write)
  throw new Error("--colorado-only writes bench/SOURCES.local.md only, not with --write");
// Colorado's proportions in the smaller runs: 2.6 transactions to 2 rows in each other table.
const CO_SMALL_TRANSACTIONS = Math.round(ROWS * 0.3);
const CO_SMALL_OTHERS = Math.round((CO_SMALL_TRANSACTIONS * 2) / 2.6);
const OUT = values.write ? "bench/SOURCES.md" : "bench/SOURCES.local.md";

const work = mkdtempSync(join(tmpdir(), "lien-bench-sources-"));
const env = { ...process.env, PATH: `${process.cwd()}/node_modules/.bin:${process.env.PATH}` };

type Row = Record<string, string | boolean>;

/** A deterministic stream of numbers, so every run loads the same rows. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const LAST = ["SMITH", "JOHNSON", "RIVERA", "NGUYEN", "GARCIA", "OBRIEN", "KOWALSKI", "PATEL", "MURPHY", "CHEN"];
const FIRST = ["MARIA", "JOHN", "AN", "KATHLEEN", "DAVID", "ROSA", "PAUL", "LEAH", "THOMAS", "INGRID"];
const WORDS = ["HARBOR", "ELM", "SUMMIT", "RIVER", "GRANITE", "MAPLE", "PIONEER", "CEDAR", "ATLAS", "BEACON"];
const KINDS = ["LLC", "INC.", "CO.", "CORPORATION", "HOLDINGS LLC"];
const LENDERS = [
  "FIRSTBANK",
  "WELLS FARGO BANK, N.A.",
  "KUBOTA CREDIT CORPORATION, U.S.A.",
  "ALLY BANK",
  "CORPORATION SERVICE COMPANY",
];
const CITIES = [
  ["HARTFORD", "CT", "06103"],
  ["DENVER", "CO", "80202"],
  ["PORTLAND", "OR", "97209"],
  ["STAMFORD", "CT", "06907"],
  ["BOULDER", "CO", "80302"],
] as const;

const pick = <T>(r: () => number, list: readonly T[]) => list[Math.floor(r() * list.length)] as T;
const day = (r: () => number, from: number, to: number) =>
  new Date(Date.UTC(from, 0, 1) + Math.floor(r() * (to - from) * 365) * 86_400_000).toISOString().slice(0, 10);
const plusYears = (d: string, years: number) => `${Number(d.slice(0, 4)) + years}${d.slice(4)}`;
const business = (r: () => number, i: number) => `${pick(r, WORDS)} ${pick(r, WORDS)} ${i} ${pick(r, KINDS)}`;

/** Connecticut's rows: liens of one or two debtor rows, a third with an amendment, some released. */
function* connecticutRows(count: number): Generator<Row> {
  const r = random(1);
  let made = 0;
  for (let i = 0; made < count; i++) {
    const lien = String(3_000_000 + i).padStart(10, "0");
    const irs = r() < 0.1;
    const filed = day(r, 2015, 2026);
    const released = irs && r() < 0.3;
    const [city, state, zip] = pick(r, CITIES);
    const base = {
      id_lien_flng_nbr: lien,
      lien_status: released ? "Released" : "Active",
      tx_lien_descript: irs ? "IRS" : "OFS",
      debtor_ad_str1: `${i % 900} MAIN ST`,
      debtor_ad_city: city,
      debtor_ad_state: state,
      debtor_ad_zip: zip,
      sec_party_nm_bus: irs ? "IRS Hartford Connecticut" : pick(r, LENDERS),
      dt_lapse: `${irs ? "9999-12-31" : plusYears(filed, 5)}T00:00:00.000`,
      qt_pages: "1",
    };
    const person = r() < 0.4;
    const debtors: Row[] = person
      ? [{ debtor_nm_last: pick(r, LAST), debtor_nm_first: pick(r, FIRST), debtor_nm_mid: "A" }]
      : [{ debtor_nm_bus: business(r, i) }];
    if (r() < 0.3) debtors.push({ debtor_nm_bus: business(r, i + 1) });
    for (const d of debtors) {
      yield { ...base, id_ucc_flng_nbr: lien, cd_flng_type: "ORIG FIN STMT", dt_accept: `${filed}T00:00:00.000`, ...d };
      made += 1;
    }
    if (r() < 0.3 || released) {
      yield {
        ...base,
        id_ucc_flng_nbr: String(6_000_000 + i).padStart(10, "0"),
        cd_flng_type: released ? "RELEASE" : "AMENDMENT",
        dt_accept: `${day(r, Number(filed.slice(0, 4)) + 1, 2027)}T00:00:00.000`,
        ...debtors[0],
      };
      made += 1;
    }
  }
}

/** Oregon's rows: a debtor and a secured party row a filing, some with a later amendment. */
function* oregonRows(count: number): Generator<Row> {
  const r = random(2);
  let made = 0;
  for (let i = 0; made < count; i++) {
    const number = String(90_000_000 + i);
    const filed = day(r, 2021, 2026);
    const [city, state, zip] = pick(r, CITIES);
    const party = (type: string, entity: string) => ({
      file_number: number,
      original_file_number: number,
      file_type: "INITIAL",
      lien_type: "UCC",
      filing_date: `${filed}T00:00:00`,
      lapse_date: `${plusYears(filed, 5)}T00:00:00`,
      party_type: type,
      entity,
      entity_type: "ORG",
      mail_addr_1: `${i % 700} OAK ST`,
      city_descr: city,
      st_cd_txt: state,
      zip_code_txt: zip,
      cntry_cd_txt: "USA",
    });
    yield party("DB", business(r, i));
    yield party("SP", pick(r, LENDERS));
    made += 2;
    if (r() < 0.2) {
      yield {
        ...party("DB", business(r, i)),
        file_number: `${number}-1`,
        file_type: "AMENDMENT",
        filing_date: `${day(r, 2026, 2027)}T00:00:00`,
      };
      made += 1;
    }
  }
}

/** Colorado's four tables: `transactions` of them, and `others` rows in each party and collateral table. */
function coloradoTables(transactions: number, others: number) {
  // About two in three transactions a filing's own; the rest amendments of an earlier one.
  const initials = Math.round(transactions * 0.62);
  const r = random(3);
  function* transactionRows(): Generator<Row> {
    for (let i = 0; i < transactions; i++) {
      const initial = i < initials;
      const id = String(20_000_000_000 + i);
      const filed = day(r, initial ? 2010 : 2021, initial ? 2021 : 2026);
      const master = initial ? id : String(20_000_000_000 + Math.floor(r() * initials));
      const terminated = !initial && r() < 0.25;
      yield {
        transactionId: id,
        masterDocumentId: master,
        fileId: String(i + 1),
        transactionType: initial ? "Initial Filing" : "Amendment",
        documentType: initial ? "UCC financing statement" : terminated ? "Termination" : "Amendment",
        filingType: r() < 0.1 ? "lien_irs" : "ucc",
        filingDate: filed,
        lapseDate: initial ? plusYears(filed, 5) : "",
        continuation: false,
        terminationFlag: terminated,
        manufacturedHomeTransactions: false,
      };
    }
  }
  // Each party or collateral row of a transaction: the filings' own mostly, some an amendment's.
  const fileOf = (j: number) => String((j % initials) + 1 + (j >= initials * 1.2 ? initials : 0));
  function* partyRows(id: string, lender: boolean): Generator<Row> {
    for (let j = 0; j < others; j++) {
      const [city, state, zip] = pick(r, CITIES);
      const person = !lender && r() < 0.35;
      yield {
        fileid: fileOf(j),
        [id]: String(j + 1),
        actiontypecode: "A",
        actiontype: "Add",
        [lender ? "recordstatuscd" : "recordstatuscode"]: "A",
        recordstatus: "Active",
        organizationname: person ? "" : lender ? pick(r, LENDERS) : business(r, j),
        lastname: person ? pick(r, LAST) : "",
        firstname: person ? pick(r, FIRST) : "",
        middlename: "",
        address1: `${j % 1000} COLFAX AVE`,
        address2: "",
        city,
        state,
        zipcode: zip,
        country: "USA",
      };
    }
  }
  function* collateralRows(): Generator<Row> {
    for (let j = 0; j < others; j++) {
      yield {
        fileid: fileOf(j),
        collateralid: String(j + 1),
        actiontypecode: "A",
        actiontype: "Add",
        recordstatuscode: "A",
        recordstatus: "Active",
        collateraldescription:
          "All equipment, inventory, accounts and general intangibles, now owned or hereafter acquired.",
        additionalcollateraldescription: "",
        farmproductflag: false,
      };
    }
  }
  return {
    transactions: transactionRows,
    debtors: () => partyRows("debtorid", false),
    secured: () => partyRows("spid", true),
    collateral: collateralRows,
  };
}

/** Rows as SODA JSON (the portal's layout) or CSV (a whole export's), written a row at a time. */
async function writeRows(path: string, rows: Iterable<Row>, format: "json" | "csv") {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, "drain");
  };
  let columns: string[] | null = null;
  let first = true;
  if (format === "json") await write("[");
  for (const row of rows) {
    if (format === "json") {
      const fields = Object.entries(row)
        .filter(([, v]) => v !== "")
        .map(([k, v]) => `${JSON.stringify(k.toLowerCase())}:${JSON.stringify(v)}`);
      await write(`${first ? "" : "\n,"}{${fields.join("\n,")}}`);
    } else {
      if (!columns) {
        columns = Object.keys(row);
        await write(`${columns.join(",")}\n`);
      }
      const cells = columns.map((c) => {
        const v = row[c];
        const text =
          typeof v === "boolean"
            ? String(v)
            : /^\d{4}-\d{2}-\d{2}$/.test(v ?? "")
              ? `${v?.slice(5, 7)}/${v?.slice(8, 10)}/${v?.slice(0, 4)}`
              : (v ?? "");
        return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
      });
      await write(`${cells.join(",")}\n`);
    }
    first = false;
  }
  if (format === "json") await write("]\n");
  out.end();
  await once(out, "finish");
}

/**
 * A run of `npm run import` with `args`: its wall time, its peak resident
 * memory (VmHWM, read from /proc), and the peak of the part of it that is
 * not the database file mapped into memory (RssAnon, sampled every 250 ms:
 * the heap, SQLite's page cache and the like).
 */
function importRun(args: string[]) {
  return new Promise<{ ms: number; cpuMs: number; peakMiB: number; anonMiB: number; stdout: string; stderr: string }>(
    (resolve, reject) => {
      const started = Date.now();
      const child = spawn(process.execPath, ["scripts/import.ts", ...args], { env });
      let stdout = "";
      let stderr = "";
      let peak = 0;
      let anon = 0;
      let cpuMs = 0;
      child.stdout.on("data", (d) => {
        stdout += d;
      });
      child.stderr.on("data", (d) => {
        stderr += d;
      });
      const sample = setInterval(() => {
        try {
          const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
          peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
          anon = Math.max(anon, Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0));
          // utime and stime, the 14th and 15th fields of /proc/PID/stat, in clock ticks (100 a second).
          const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8")
            .replace(/^.*\) /, "")
            .split(" ");
          cpuMs = (Number(fields[11]) + Number(fields[12])) * 10;
        } catch {
          // The process has ended.
        }
      }, 250);
      child.on("close", (status) => {
        clearInterval(sample);
        if (status !== 0 && status !== 3)
          reject(new Error(`import ${args.join(" ")} exited ${status}:\n${stdout}${stderr}`));
        else resolve({ ms: Date.now() - started, cpuMs, peakMiB: peak / 1024, anonMiB: anon / 1024, stdout, stderr });
      });
    },
  );
}

const template = join(work, "template");
let states = 0;
/** A copy of the migrated, empty template state. */
function freshState(): string {
  const dir = join(work, `state-${++states}`);
  cpSync(template, dir, { recursive: true });
  return dir;
}

const number = (n: number) => Math.round(n).toLocaleString("en-US");

interface Result {
  what: string;
  rows: number;
  filings: number;
  ms: number;
  cpuMs: number;
  peakMiB: number;
  anonMiB: number;
  stagingS: number | null;
  /** Bytes of source_rows and its indexes in the default shard, when measured. */
  stagedBytes?: number;
}

/** Bytes source_rows and its indexes take in the default shard of `state`. */
async function stagedBytes(state: string): Promise<number> {
  const [defaultShard] = localFiles(await shardConfig(), state);
  if (!defaultShard) return 0;
  const db = new DatabaseSync(defaultShard.file, { readOnly: true });
  try {
    const row = db
      .prepare(
        "select sum(pgsize) as bytes from dbstat where name = 'source_rows' or name in (select name from sqlite_master where tbl_name = 'source_rows')",
      )
      .get() as { bytes: number | null };
    return Number(row.bytes ?? 0);
  } finally {
    db.close();
  }
}

/** Loads `files` (or pulls) of `source` into empty state. */
async function load(what: string, source: string, args: string[], measure = false): Promise<Result> {
  const state = freshState();
  const run = await importRun([
    "--source",
    source,
    ...args,
    "--persist-to",
    state,
    "--rejects",
    join(work, "rejects.ndjson"),
    "--warnings",
    join(work, "warnings.ndjson"),
  ]);
  const rows = Number(/^Rows: ([\d,]+) rows read/m.exec(run.stdout)?.[1]?.replaceAll(",", "") ?? 0);
  const filings = Number(/ ([\d,]+) inserted/m.exec(run.stdout)?.[1]?.replaceAll(",", "") ?? 0);
  // A file's staging line ends with its time: `(debtors): N rows read: ... in 12.3s`.
  const staging = [...run.stderr.matchAll(/\): [\d,]+ rows read: .* in ([\d.]+)s$/gm)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
  const staged = measure ? await stagedBytes(state) : undefined;
  rmSync(state, { recursive: true, force: true });
  console.error(
    `${what}: ${number(rows)} rows, ${number(filings)} filings in ${(run.ms / 1000).toFixed(1)} s, peak ${run.peakMiB.toFixed(0)} MiB`,
  );
  return {
    what,
    rows,
    filings,
    ms: run.ms,
    cpuMs: run.cpuMs,
    peakMiB: run.peakMiB,
    anonMiB: run.anonMiB,
    stagingS: staging > 0 ? staging : null,
    ...(staged !== undefined ? { stagedBytes: staged } : {}),
  };
}

/** Each source by file and by pull, ROWS rows a source (Colorado's fewer, in its proportions). */
async function smallRuns(): Promise<Result[]> {
  const results: Result[] = [];
  const portal = new SocrataPortal();
  const now = new Date().toISOString();

  // Connecticut and Oregon: by file (the portal's JSON) and by pull, the same rows.
  const ctRows = [...connecticutRows(ROWS)];
  const orRows = [...oregonRows(ROWS)];
  const co = coloradoTables(CO_SMALL_TRANSACTIONS, CO_SMALL_OTHERS);
  const coSmall = {
    transactions: [...co.transactions()],
    debtors: [...co.debtors()],
    secured: [...co.secured()],
    collateral: [...co.collateral()],
  };
  // As SODA's JSON gives them: a field without a value left out.
  const present = (row: Row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== ""));
  portal.add("xfev-8smz", ctRows, now);
  portal.add("snfi-f79b", orRows, now);
  portal.add("wffy-3uut", coSmall.transactions.map(lowerKeys).map(present), now);
  portal.add("8upq-58vz", coSmall.debtors.map(present), now);
  portal.add("ap62-sav4", coSmall.secured.map(present), now);
  portal.add("4am6-w6u4", coSmall.collateral.map(present), now);
  const url = await portal.start();
  try {
    const ct = join(work, "ct.json");
    await writeRows(ct, ctRows, "json");
    results.push(await load("Connecticut, file (JSON)", "ct", [ct]));
    results.push(await load("Connecticut, pull", "ct", ["--pull", "--portal", url]));
    const or = join(work, "or.json");
    await writeRows(or, orRows, "json");
    results.push(await load("Oregon, file (JSON)", "or", [or]));
    results.push(await load("Oregon, pull", "or", ["--pull", "--portal", url]));
    const coFiles = await Promise.all(
      (Object.entries(coSmall) as [string, Row[]][]).map(async ([name, rows]) => {
        const path = join(work, `co-small-${name}.csv`);
        await writeRows(path, rows, "csv");
        return path;
      }),
    );
    results.push(await load("Colorado, files (CSV)", "co", coFiles));
    results.push(await load("Colorado, pull", "co", ["--pull", "--portal", url]));
  } finally {
    await portal.stop();
  }
  return results;
}

async function main() {
  const migrated = spawn(process.execPath, ["scripts/migrate.ts", "--persist-to", template], { env, stdio: "inherit" });
  const [code] = await once(migrated, "close");
  if (code !== 0) throw new Error("migrations failed");
  const results: Result[] = [];
  if (!COLORADO_ONLY) results.push(...(await smallRuns()));

  // Colorado at its real size, by file: the four tables, each generated a row at a time.
  const big = coloradoTables(CO_TRANSACTIONS, CO_OTHERS);
  const bigFiles: string[] = [];
  let bytes = 0;
  for (const [name, rows] of Object.entries(big)) {
    const path = join(work, `co-${name}.csv`);
    await writeRows(path, rows(), "csv");
    bytes += statSync(path).size;
    bigFiles.push(path);
  }
  const realSize = CO_TRANSACTIONS === 2_600_000 && CO_OTHERS === 2_000_000;
  const label = realSize ? "Colorado at real size" : `Colorado at ${number(CO_TRANSACTIONS + 3 * CO_OTHERS)} rows`;
  const real = await load(`${label}, files (CSV)`, "co", bigFiles, true);
  results.push(real);
  for (const path of bigFiles) rmSync(path, { force: true });

  const rate = (n: number, ms: number) => number(n / (ms / 1000));
  const table = [
    "| run | rows | filings | wall | rows/s | filings/s | CPU | peak RSS | of which not the mapped file |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...results.map(
      (r) =>
        `| ${r.what} | ${number(r.rows)} | ${number(r.filings)} | ${(r.ms / 1000).toFixed(1)} s | ${rate(r.rows, r.ms)} | ${rate(r.filings, r.ms)} | ${(r.cpuMs / 1000).toFixed(1)} s | ${r.peakMiB.toFixed(0)} MiB | ${r.anonMiB.toFixed(0)} MiB |`,
    ),
  ];
  const text = `# Offices' open registers: load benchmark

\`npm run bench:sources\` (scripts/benchSources.ts), ${new Date().toISOString().slice(0, 10)}.
Machine: ${machine()}; load average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(", ")}.

Each run loads generated rows of the office's columns into empty local
state through \`npm run import -- --source\`, by file or by a pull from the
local stand-in for a Socrata portal (pages of 50,000 rows), and records
wall time (migrations already applied), the import process's CPU time
(user and system: on a machine shared with other work, the wall time
grows with the others' load and the CPU time does not), and its peak
resident memory: all of it (VmHWM), which counts the pages of the database
file the loader maps into memory (at most 2 GiB, scripts/localD1.ts), and
the peak of what is not the mapped file (RssAnon: the heap, SQLite's page
cache of at most 512 MiB a connection, and the 256 prepared statements it
keeps). Rows: ${number(ROWS)} a source for the smaller runs
(Colorado: ${number(CO_SMALL_TRANSACTIONS)} transactions and ${number(CO_SMALL_OTHERS)} rows in each other table);
Colorado at real size: ${number(CO_TRANSACTIONS)} transactions and ${number(CO_OTHERS)} rows
in each of the other three tables (${(bytes / 2 ** 30).toFixed(2)} GiB of CSV).
${real.stagedBytes !== undefined ? `\nIts staged rows (source_rows and its four indexes) take ${(real.stagedBytes / 2 ** 30).toFixed(2)} GiB of the default shard: ${number(real.stagedBytes / Math.max(1, real.rows))} bytes a row.\n` : ""}${real.stagingS !== null ? `\n${label} spent ${real.stagingS.toFixed(0)} s staging its four files' rows (source_rows) and ${(real.ms / 1000 - real.stagingS).toFixed(0)} s on the rest: assembling and loading its filings, and rebuilding the aggregates.\n` : ""}
${table.join("\n")}
`;
  writeFileSync(OUT, text);
  console.error(`wrote ${OUT}`);
}

/** Colorado's transaction rows as the API names their fields (lower case; the CSV export's are camel case). */
function lowerKeys(row: Row): Row {
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k.toLowerCase(), v]));
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
