/**
 * Bytes on disk per table and per index, and per filing, of local D1
 * databases (SQLite's dbstat virtual table: every B-tree page counted,
 * including its free space, which is what a D1 database is billed and
 * capped by).
 *
 *   npm run db:size                              # every local D1 file, summed
 *   npm run db:size -- --persist-to DIR          # another wrangler state directory
 *   npm run db:size -- FILE.sqlite [FILE ...]    # given SQLite files, summed
 *   npm run db:size -- --json                    # the figures as JSON
 *
 * With several shard files (one D1 database per group of states), each
 * B-tree's bytes and the filings are summed over all of them, so bytes per
 * filing is the whole service's. Files without a `filings` table (wrangler's
 * metadata) are skipped.
 */
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { commandLine, usageError } from "./commandLine.ts";

const USAGE = "usage: npm run db:size -- [--persist-to DIR] [--json] [FILE.sqlite ...]";
const { values, positionals } = commandLine(USAGE, {
  options: { "persist-to": { type: "string", default: ".wrangler/state" }, json: { type: "boolean", default: false } },
  allowPositionals: true,
});

/** Where local D1 files live under a wrangler state directory. */
const D1_DIR = "v3/d1/miniflare-D1DatabaseObject";

function localFiles(stateDir: string): string[] {
  const dir = join(stateDir, D1_DIR);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return usageError(USAGE, `no local D1 databases under ${dir}`);
  }
  return names.filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite").map((f) => join(dir, f));
}

interface Tree {
  name: string;
  /** A WITHOUT ROWID table's B-tree is its primary key: it counts as the table. */
  kind: "table" | "index";
  /** The table an index belongs to (its own name for a table). */
  table: string;
  bytes: number;
  rows: number | null;
}

const files = positionals.length > 0 ? positionals : localFiles(values["persist-to"]!);
const trees = new Map<string, Tree>();
let filings = 0;
let fileBytes = 0;
let freeBytes = 0;
let measured = 0;

for (const file of files) {
  const db = new DatabaseSync(file, { readOnly: true });
  try {
    const hasFilings = db.prepare("select 1 from sqlite_master where type = 'table' and name = 'filings'").get();
    if (!hasFilings) continue;
    measured += 1;
    fileBytes += statSync(file).size;
    const pageSize = Number((db.prepare("pragma page_size").get() as { page_size: number }).page_size);
    const free = Number((db.prepare("pragma freelist_count").get() as { freelist_count: number }).freelist_count);
    freeBytes += pageSize * free;
    filings += Number((db.prepare("select count(*) as n from filings").get() as { n: number }).n);
    const owners = new Map(
      (
        db.prepare("select type, name, tbl_name from sqlite_master where type in ('table', 'index')").all() as {
          type: "table" | "index";
          name: string;
          tbl_name: string;
        }[]
      ).map((r) => [r.name, r]),
    );
    // Aggregate mode: one row per B-tree, with its pages' total size.
    const sizes = db.prepare("select name, pgsize from dbstat('main', 1)").all() as { name: string; pgsize: number }[];
    for (const { name, pgsize } of sizes) {
      const owner = owners.get(name);
      const kind = owner?.type ?? (name.startsWith("sqlite_autoindex_") ? "index" : "table");
      const table = owner?.tbl_name ?? name;
      const tree = trees.get(name) ?? { name, kind, table, bytes: 0, rows: kind === "table" ? 0 : null };
      tree.bytes += Number(pgsize);
      if (kind === "table" && !name.startsWith("sqlite_") && !name.startsWith("_cf_") && tree.rows !== null) {
        tree.rows += Number((db.prepare(`select count(*) as n from "${name}"`).get() as { n: number }).n);
      }
      trees.set(name, tree);
    }
  } finally {
    db.close();
  }
}

if (measured === 0) {
  usageError(USAGE, `none of ${files.join(", ")} holds a migrated database (no filings table)`);
}

const all = [...trees.values()];
const total = all.reduce((s, t) => s + t.bytes, 0);
const perFiling = (bytes: number) => (filings > 0 ? bytes / filings : 0);

if (values.json) {
  console.log(
    JSON.stringify(
      {
        databases: measured,
        filings,
        bytes: total,
        fileBytes,
        freeBytes,
        bytesPerFiling: perFiling(total),
        trees: all,
      },
      null,
      2,
    ),
  );
  process.exit(0);
}

// Tables by size, each followed by its indexes.
const tableBytes = (table: string) => all.filter((t) => t.table === table).reduce((s, t) => s + t.bytes, 0);
const tables = [...new Set(all.map((t) => t.table))].sort((a, b) => tableBytes(b) - tableBytes(a));
const n = (x: number) => x.toLocaleString("en-US");
const mb = (b: number) => (b / 1_048_576).toFixed(1);
const rows: string[][] = [["b-tree", "rows", "MB", "bytes/filing", "share"]];
for (const table of tables) {
  const members = all.filter((t) => t.table === table).sort((a, b) => (a.kind === "table" ? -1 : b.bytes - a.bytes));
  for (const t of members) {
    const label = t.kind === "table" ? t.name : `  ${t.name}`;
    rows.push([
      label,
      t.rows === null ? "" : n(t.rows),
      mb(t.bytes),
      perFiling(t.bytes).toFixed(1),
      `${((100 * t.bytes) / total).toFixed(1)}%`,
    ]);
  }
  if (members.length > 1) {
    rows.push([`  (${table} with indexes)`, "", mb(tableBytes(table)), perFiling(tableBytes(table)).toFixed(1), ""]);
  }
}
rows.push(["total", "", mb(total), perFiling(total).toFixed(1), "100%"]);
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows)
  console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  "));
console.log(
  `\n${n(filings)} filings in ${measured} database file${measured === 1 ? "" : "s"}: ${mb(total)} MB in B-trees, ` +
    `${perFiling(total).toFixed(0)} bytes per filing; files ${mb(fileBytes)} MB (${mb(freeBytes)} MB free pages).`,
);
