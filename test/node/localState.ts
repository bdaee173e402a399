/**
 * Running the project's scripts as an operator does, against local D1
 * state in a directory of the test's own (`--persist-to`), and reading back
 * every table of that state to compare two loads.
 */
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { MAX_INDEXED_NAME_ID, NAME_ID_BITS } from "../../src/db/soundKeys.ts";

export const root = resolve(import.meta.dirname, "../..");

/** The environment scripts run in: the project's Node and binaries first on PATH. */
export const scriptEnv = { ...process.env, PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env.PATH}` };

/** Runs `node [nodeArgs] SCRIPT.ts args` from the project root (`script`: a path there, such as scripts/import). */
export function runScript(
  script: string,
  args: string[],
  options: { env?: Record<string, string>; nodeArgs?: string[] } = {},
) {
  const result = spawnSync(process.execPath, [...(options.nodeArgs ?? []), `${script}.ts`, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...scriptEnv, ...options.env },
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/**
 * Every table's rows from a local state directory: every shard's, keyed by
 * its file (a shard's file name is the same in every state directory), and
 * all shards' together under the table's name, as one database would hold
 * them. Rows are as stored, but for the ids a loader assigns as it goes:
 * a party or amendment names its filing by state and number, and filings,
 * debtor names, similar-name keys and waiting amendments are compared
 * without their ids, so two loads that wrote the same data in another
 * order compare equal.
 */
export function tablesOf(stateDir: string): Record<string, unknown[]> {
  const dir = join(stateDir, "v3/d1/miniflare-D1DatabaseObject");
  const out: Record<string, unknown[]> = {};
  for (const file of shardFiles(dir)) {
    for (const [table, rows] of Object.entries(shardTablesOf(join(dir, file)))) {
      out[`${file.slice(0, 8)}:${table}`] = rows;
      if (table !== "indexes") out[table] = [...(out[table] ?? []), ...rows].sort();
    }
  }
  return out;
}

/** How the debtors' industries are stored over every shard of a state directory: SQLite's type of each value, each once. */
export function industryTypes(stateDir: string): string[] {
  const dir = join(stateDir, "v3/d1/miniflare-D1DatabaseObject");
  const types = new Set<string>();
  for (const file of shardFiles(dir)) {
    const db = new DatabaseSync(join(dir, file), { readOnly: true });
    try {
      for (const row of db.prepare("select distinct typeof(industry) as t from debtor_parties").all()) {
        types.add(String(row.t));
      }
    } finally {
      db.close();
    }
  }
  return [...types].sort();
}

/** Every shard's database file of a state directory's D1 directory, in name order. */
const shardFiles = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")
    .sort();

/** The names of every shard's indexes, by the shard's file: what a load that drops and rebuilds them must leave. */
export function indexesOf(stateDir: string): Record<string, string[]> {
  const dir = join(stateDir, "v3/d1/miniflare-D1DatabaseObject");
  const out: Record<string, string[]> = {};
  for (const file of shardFiles(dir)) {
    const db = new DatabaseSync(join(dir, file), { readOnly: true });
    try {
      const rows = db.prepare("select name from sqlite_master where type = 'index' order by name").all();
      out[file.slice(0, 8)] = rows.map((r) => String(r.name));
    } finally {
      db.close();
    }
  }
  return out;
}

/** Statements reading a table with the loader's ids replaced by what they stand for. */
const LENDER = "l.type, l.name, l.category, l.street1, l.street2, l.city, l.state, l.zip, l.country";
const BY_NATURAL_KEY: Record<string, string> = {
  // A filing's revision counts the writes that replaced it, which depends on how a load grouped them;
  // its lenders by their details, names by their words: ids follow the order a load first met them.
  filings: `select id, state, number, filed_at, kind, lapse_date, lapse_source, office_lapse_date, collateral, filing_office, terminated_at,
    (select json_group_array(json_array(${LENDER}) order by j.key) from json_each(f.lenders) j join lenders l on l.id = j.value) as lender_details from filings f`,
  lenders: `select ${LENDER} from lenders l`,
  lender_names: "select words from lender_names",
  facet_counts:
    "select scope, place, name, facet, filings, (select words from lender_names where id = ref) as ref from facet_counts",
  debtor_parties:
    "select f.state || ' ' || f.number as filing, p.* from debtor_parties p join filings f on f.id = p.filing_id",
  secured_parties:
    "select f.state || ' ' || f.number as filing, n.words, p.* from secured_parties p join filings f on f.id = p.filing_id join lender_names n on n.id = p.name_id",
  amendments: "select f.state || ' ' || f.number as filing, a.* from amendments a join filings f on f.id = a.filing_id",
  // A row packs sound key, state and debtor_names id into one 63-bit integer: compare the debtor it names.
  debtor_sound_keys: `select k.id >> ${NAME_ID_BITS} as keyAndState, n.name_key as debtor, n.state
    from debtor_sound_keys k left join debtor_names n on n.id = (k.id & ${MAX_INDEXED_NAME_ID})`,
  // A change's number and recording time are the database's to assign as it commits.
  changes: `select f.state || ' ' || f.number as filing, c.type, c.amendment, c.amendment_kind, c.changed_fields, c.occurred_at, c.removed_parties
    from changes c join filings f on f.id = c.filing_id`,
  // A name-index row's id holds its change's number: compare the change it files.
  change_names: `select f.state || ' ' || f.number as filing, c.type, c.amendment, n.id % 4096 as slot, n.key
    from change_names n join changes c on c.seq = n.id / 4096 join filings f on f.id = c.filing_id`,
  // A report digest names its oldest live filing by id: compare the filing it names.
  debtor_reports: `select r.name_key, r.state, r.as_of, r.filings, r.terminated, r.active, r.kinds, r.categories, r.lenders,
    r.recent, (select f.state || ' ' || f.number from filings f where f.id = r.first_active) as first_active, r.lapses_next
    from debtor_reports r`,
  state_loads: "select state, office_through from state_loads",
  // When a load ran is the clock's: whether the backfill began and ended is the data's.
  state_summaries:
    "select state, filings, newest_filed_at, office_through, backfill_began_at is not null as began, backfill_completed_at is not null as completed from state_summaries",
  // When a backfill began and ended, and which load began it, depend on the run.
  state_backfills: "select state, completed_at is not null as completed from state_backfills",
};
const ASSIGNED_IDS = new Set(["id", "filing_id", "name_id", "lenders"]);

function shardTablesOf(path: string): Record<string, unknown[]> {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const tables = db
      .prepare(
        // Not SQLite's or D1's own tables (statistics, the migrations journal, _cf_ tables).
        "select name from sqlite_master where type = 'table' and name not like 'sqlite%' and name not like '\\_%' escape '\\' and name <> 'd1_migrations'",
      )
      .all() as { name: string }[];
    const out: Record<string, unknown[]> = {};
    for (const { name } of tables) {
      const statement = db.prepare(BY_NATURAL_KEY[name] ?? `select * from "${name}"`);
      // Sound-key rows are 63-bit integers; elsewhere numbers compare as values (an integer column may hold 10.0).
      statement.setReadBigInts(name === "debtor_sound_keys");
      out[name] = (statement.all() as Record<string, unknown>[])
        .map((row) =>
          JSON.stringify(
            Object.fromEntries(Object.entries(row).filter(([column]) => !ASSIGNED_IDS.has(column))),
            (_, v) => (typeof v === "bigint" ? v.toString() : v),
          ),
        )
        .sort();
    }
    out.indexes = db.prepare("select name from sqlite_master where type = 'index' order by name").all();
    return out;
  } finally {
    db.close();
  }
}
