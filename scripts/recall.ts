/**
 * Recall benchmark of similar-name search over the local database (seed it
 * first, e.g. `npm run seed -- --filings 1000000`):
 *
 *   npm run bench:recall [-- --samples 200 --port 8793 --label "after"]
 *
 * 1. Samples debtor names from debtor_names of every shard (each in
 *    proportion to its names) with a seeded PRNG, and misspells each one of
 *    the ways in scripts/misspell.ts.
 * 2. Asks the service (`wrangler dev` over the same file) for each
 *    misspelling, with the name's state and without a state, and checks
 *    whether page 1 (the top 5) holds the name: the same match key in the
 *    same state, or (without a state) the same match key in any state.
 * 3. Reports per kind: recall in the top 5, D1 rows read (in all, and per
 *    shard read: the bound is per shard) and round trips (from
 *    Server-Timing) and latency, into bench/RECALL.md: the latest run only,
 *    which replaces the one before (older runs are in git history).
 *
 * A misspelling that is itself another debtor's name in scope (a typo that
 * makes another real name, a swap that names another firm) has no single
 * right answer; neither has a left-out word when five or more other names
 * read the same without one of their words ("Smith Bakery" for one of
 * "Smith & Sons Bakery", "Smith & Jones Bakery", ...), nor a left-out or
 * changed middle initial, or a first and last name run together without
 * the middle initial, when five or more other people share the first and
 * last name. Those samples are counted as ambiguous and left out of recall; their
 * number is reported.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import type { SQLInputValue } from "node:sqlite";
import { prng } from "../seed/generate.ts";
import { debtorParties } from "../src/db/schema.ts";
import type { PartyType } from "../src/domain/kinds.ts";
import { debtorKey, significantWords } from "../src/domain/names.ts";
import { commandLine } from "./commandLine.ts";
import { exitUnlessPortsFree, startDevServer, stopDevServer, unmeteredKey, waitUntilUp } from "./devServer.ts";
import { openLocalD1File } from "./localD1.ts";
import { INDIVIDUAL_KINDS, KINDS, type Kind, misspell } from "./misspell.ts";
import { localFiles, shardConfig } from "./shardConfig.ts";

const USAGE = "usage: npm run bench:recall -- [--samples 200] [--port 8793] [--seed 15] [--label TEXT] [--running]";
const { values } = commandLine(USAGE, {
  options: {
    samples: { type: "string", default: "200" },
    port: { type: "string", default: "8793" },
    seed: { type: "string", default: "15" },
    label: { type: "string", default: "" },
    /** Use a server already running on --port instead of starting one. */
    running: { type: "boolean", default: false },
  },
});
const SAMPLES = Number(values.samples);
const PORT = Number(values.port);
const BASE = `http://127.0.0.1:${PORT}`;
const PAGE = 5;

/** One shard's local SQLite file: names are sampled, and ambiguity checked, in every shard. */
interface Shard {
  one<T>(sql: string, ...params: SQLInputValue[]): T | undefined;
  all<T>(sql: string, ...params: SQLInputValue[]): T[];
  /** Its debtor_names ids, for sampling. */
  lo: number;
  hi: number;
}
const shards: Shard[] = localFiles(await shardConfig()).map(({ file }) => {
  const sqlite = openLocalD1File(file);
  const one = <T>(sql: string, ...params: SQLInputValue[]) => sqlite.prepare(sql).get(...params) as T | undefined;
  const all = <T>(sql: string, ...params: SQLInputValue[]) => sqlite.prepare(sql).all(...params) as T[];
  const ids = one<{ lo: number | null; hi: number | null }>("select min(id) as lo, max(id) as hi from debtor_names");
  return { one, all, lo: ids?.lo ?? 1, hi: ids?.hi ?? 0 };
});
const filingCount = shards.reduce((n, s) => n + s.one<{ n: number }>("select count(*) as n from filings")!.n, 0);
/** In one state's shard when `state` is given, else in every shard. */
const shardsFor = (target: Name, state?: string) => (state ? [target.shard] : shards);

interface Name {
  id: number;
  nameKey: string;
  state: string;
  name: string;
  type: PartyType;
  shard: Shard;
}
interface Sample {
  kind: Kind;
  target: Name;
  query: string;
  ambiguous: { state: boolean; any: boolean };
}

const contentWords = (name: string) => significantWords(name).filter((w) => w !== "and");

/** The query's match key, read as the target's kind of debtor (a person's key keeps last, first and middle apart). */
const keyOf = (query: string, target: Name) => debtorKey(query, target.type);

/** Whether another debtor in scope has the query's own key: the query names someone else. */
function namesAnother(query: string, target: Name, state?: string): boolean {
  const key = keyOf(query, target);
  if (key === target.nameKey) return false;
  return state
    ? target.shard.one("select 1 from debtor_names where name_key = ? and state = ?", key, state) !== undefined
    : shards.some((s) => s.one("select 1 from debtor_names where name_key = ?", key) !== undefined);
}

/** Debtor names in scope whose key starts with `prefix`, other than the target. */
function keysFrom(prefix: string, target: Name, state?: string): Omit<Name, "shard" | "type">[] {
  const columns = "select id, name_key as nameKey, state, name from debtor_names";
  return shardsFor(target, state)
    .flatMap((shard) =>
      state
        ? shard.all<Omit<Name, "shard" | "type">>(
            `${columns} where state = ? and name_key >= ? and name_key < ?`,
            state,
            prefix,
            `${prefix}{`,
          )
        : shard.all<Omit<Name, "shard" | "type">>(
            `${columns} where name_key >= ? and name_key < ?`,
            prefix,
            `${prefix}{`,
          ),
    )
    .filter((r) => r.nameKey !== target.nameKey);
}

/**
 * Where names that may read like `query` are found: for an organization,
 * keys that start with the query's first words (its key is its words run
 * together); for a person, keys of the same last name (a person's key
 * starts with it).
 */
function neighbours(query: string, target: Name, state?: string) {
  if (target.type === "Individual") return keysFrom(`${keyOf(query, target).split(" ")[0]} `, target, state);
  const words = contentWords(query);
  return words.slice(1).flatMap((_, i) => keysFrom(words.slice(0, i + 1).join(""), target, state));
}

/** Distinct debtors among `rows` (by key, and state when one is given). */
function distinct(rows: Omit<Name, "shard" | "type">[], state?: string): number {
  return new Set(rows.map((r) => (state ? `${r.nameKey}|${r.state}` : r.nameKey))).size;
}

/**
 * Other debtors in scope that read like `query` with one of their middle
 * words left out, counted by match key (and state, when one is given).
 */
function sameReadings(query: string, target: Name, state?: string): number {
  const words = contentWords(query).join(" ");
  const alike = neighbours(query, target, state).filter((r) => {
    const theirs = contentWords(r.name);
    return theirs.some((_, at) => at > 0 && at < theirs.length - 1 && theirs.toSpliced(at, 1).join(" ") === words);
  });
  return distinct(alike, state);
}

/**
 * Other debtors in scope with the query's words once middle initials are
 * set aside ("Nancy Allen" reads like "Nancy Q. Allen" and "Nancy R. Allen").
 */
function sameWithoutInitials(query: string, target: Name, state?: string): number {
  const longWords = (name: string) =>
    contentWords(name)
      .filter((w) => w.length > 1)
      .join(" ");
  const words = longWords(query);
  return distinct(
    neighbours(query, target, state).filter((r) => longWords(r.name) === words),
    state,
  );
}

/**
 * Other people in scope with the target's first and last name when the
 * target has a middle name: a query of the two run together reads like
 * each of them.
 */
function sameFirstAndLast(target: Name, state?: string): number {
  const [last, first, middle] = target.nameKey.split(" ");
  if (!middle) return 0;
  return distinct(keysFrom(`${last} ${first} `, target, state), state);
}

function ambiguity(kind: Kind, query: string, target: Name) {
  const check = (state?: string) =>
    namesAnother(query, target, state) ||
    (kind === "a middle word left out" && sameReadings(query, target, state) >= PAGE) ||
    (kind.includes("middle initial") && sameWithoutInitials(query, target, state) >= PAGE) ||
    (kind === "individual: first and last name joined" && sameFirstAndLast(target, state) >= PAGE);
  return { state: check(target.state), any: check() };
}

// --- 1. Samples ---------------------------------------------------------------
const rng = prng(Number(values.seed));
// The type column holds a code (src/db/encodings.ts): read it back through the schema.
const typeOf = (shard: Shard, nameKey: string, state: string): PartyType => {
  const row = shard.one<{ type: number }>(
    "select type from debtor_parties where name_key = ? and filing_state = ? limit 1",
    nameKey,
    state,
  );
  return row !== undefined && debtorParties.type.mapFromDriverValue(row.type) === "Individual"
    ? "Individual"
    : "Organization";
};

/** A debtor name of any shard, each shard as likely as its share of the ids. */
const idCount = shards.reduce((n, s) => n + Math.max(0, s.hi - s.lo + 1), 0);
function sampleName(): Name | undefined {
  let at = rng.int(idCount);
  const shard = shards.find((s) => {
    const size = Math.max(0, s.hi - s.lo + 1);
    if (at < size) return true;
    at -= size;
    return false;
  })!;
  const row = shard.one<Omit<Name, "shard" | "type">>(
    "select id, name_key as nameKey, state, name from debtor_names where id = ?",
    shard.lo + at,
  );
  return row && { ...row, shard, type: typeOf(shard, row.nameKey, row.state) };
}

const samples: Sample[] = [];
for (const kind of KINDS) {
  let made = 0;
  for (let tries = 0; made < SAMPLES && tries < SAMPLES * 200; tries++) {
    const target = sampleName();
    if (!target) continue;
    const individual = target.type === "Individual";
    if (INDIVIDUAL_KINDS.includes(kind) && !individual) continue;
    const query = misspell(rng, kind, target.name, individual);
    if (query === null || query === target.name) continue;
    samples.push({ kind, target, query, ambiguous: ambiguity(kind, query, target) });
    made += 1;
  }
}
console.log(`${samples.length} misspellings of ${KINDS.length} kinds over ${filingCount.toLocaleString()} filings`);

// --- 2. Asking the service --------------------------------------------------
interface Outcome {
  hit: boolean;
  rowsRead: number;
  /** Shards read, and the most rows one of them read (Server-Timing names both when more than one). */
  shards: number;
  busiestShard: number;
  batches: number;
  ms: number;
  rank: number;
}
if (!values.running) await exitUnlessPortsFree([PORT]);
const key = await unmeteredKey("recall benchmark");
const server = values.running ? null : startDevServer(PORT);
const outcomes = new Map<Sample, { state: Outcome; any: Outcome }>();
let counter = 0;

async function ask(sample: Sample, state?: string): Promise<Outcome> {
  counter += 1;
  const params = new URLSearchParams({ name: sample.query, ...(state ? { state } : {}), r: String(counter) });
  const started = performance.now();
  const res = await fetch(`${BASE}/debtors/search-similar?${params}`, { headers: { "x-api-key": key } });
  const body = (await res.json()) as { similar_debtors?: { debtor_name: string; debtor_state: string }[] };
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`${res.status} for ${params}: ${JSON.stringify(body)}`);
  const timing = res.headers.get("server-timing") ?? "";
  const found = body.similar_debtors ?? [];
  const rank = found.findIndex(
    (d) => keyOf(d.debtor_name, sample.target) === sample.target.nameKey && (!state || d.debtor_state === state),
  );
  return {
    hit: rank >= 0,
    rank,
    rowsRead: Number(/(\d+) rows read/.exec(timing)?.[1] ?? Number.NaN),
    shards: Number(/(\d+) shards/.exec(timing)?.[1] ?? 1),
    busiestShard: Number(/at most (\d+) on one/.exec(timing)?.[1] ?? /(\d+) rows read/.exec(timing)?.[1] ?? Number.NaN),
    batches: Number(/(\d+) batch/.exec(timing)?.[1] ?? Number.NaN),
    ms,
  };
}

try {
  if (server) await waitUntilUp(server, BASE);
  // Warm the worker up before timing anything.
  for (const s of samples.slice(0, 20)) await ask(s);
  for (const s of samples) {
    outcomes.set(s, { state: await ask(s, s.target.state), any: await ask(s) });
  }
} finally {
  stopDevServer(server);
}

// --- 3. Report --------------------------------------------------------------
const pct = (n: number, d: number) => (d === 0 ? "-" : `${((100 * n) / d).toFixed(1)}%`);
const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};

function table(scope: "state" | "any"): string {
  const lines = [
    "| misspelling kind | asked | ambiguous | recall (top 5) | rows read (mean) | rows read (max) | per shard read (max) | round trips | p50 ms | p95 ms |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  const row = (label: string, of: Sample[]) => {
    const fair = of.filter((s) => !s.ambiguous[scope]);
    const got = of.map((s) => outcomes.get(s)![scope]);
    const hits = fair.filter((s) => outcomes.get(s)![scope].hit).length;
    const rows = got.map((o) => o.rowsRead);
    lines.push(
      `| ${label} | ${fair.length} | ${of.length - fair.length} | ${pct(hits, fair.length)} | ${Math.round(
        rows.reduce((a, b) => a + b, 0) / Math.max(1, rows.length),
      )} | ${Math.max(...rows)} | ${Math.max(...got.map((o) => o.busiestShard))} | ${Math.max(...got.map((o) => o.batches))} | ${quantile(
        got.map((o) => o.ms),
        0.5,
      ).toFixed(0)} | ${quantile(
        got.map((o) => o.ms),
        0.95,
      ).toFixed(0)} |`,
    );
  };
  for (const kind of KINDS)
    row(
      kind,
      samples.filter((s) => s.kind === kind),
    );
  row("**all**", samples);
  return lines.join("\n");
}

for (const scope of ["state", "any"] as const) {
  console.log(`\n${scope === "state" ? "With state" : "Without state"}:\n${table(scope)}`);
  for (const kind of KINDS) {
    const misses = samples.filter((s) => s.kind === kind && !s.ambiguous[scope] && !outcomes.get(s)![scope].hit);
    for (const s of misses.slice(0, 3)) {
      console.log(`  miss (${kind}): "${s.query}" for "${s.target.name}" (${s.target.state})`);
    }
  }
}

const heading = `## ${filingCount.toLocaleString("en-US")} filings${values.label ? ` (${values.label})` : ""}`;
const section = `${heading}

Run on ${new Date().toISOString().slice(0, 10)}: ${SAMPLES} misspellings per kind (PRNG seed ${values.seed}),
each asked once with the name's state and once without, one request at a time.

With \`state\`:

${table("state")}

Without \`state\`:

${table("any")}
`;
const file = "bench/RECALL.md";
const intro = `# Similar-name search: recall

Written by \`npm run bench:recall\` (scripts/recall.ts) over the local database through
\`wrangler dev\`. Each sample is a debtor name from \`debtor_names\`, misspelled one way
(scripts/misspell.ts); a hit is the same debtor (match key, and state when one is given;
without a state, the same match key in any state) on page 1, the top 5. **ambiguous**
samples (the misspelling is another debtor's own name in scope, or five or more other
debtors read the same with a word or a middle initial left out) have no single right
answer and are left out of recall. **rows read** and **round trips** are D1's, from \`Server-Timing\`:
rows read in all, and **per shard read** (the most one shard read: every shard is read without a
state, the state's with one), which the bound (\`MAX_ROWS_READ\`) holds to.
Names are sampled from every shard. Latency is the client's, per request, on this project's
reference machine (2 cores).
`;
mkdirSync("bench", { recursive: true });
writeFileSync(file, `${[intro, section].map((s) => s.trim()).join("\n\n")}\n`);
console.log(`\nWrote ${file} (${heading.slice(3)}).`);
process.exit(0);
