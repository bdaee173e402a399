/**
 * Two `npm run import` processes into the same local state at once, as an
 * operator who starts a second load before the first has ended: both
 * finish, and the tables are those of the same two imports run one after
 * the other. Into a database that holds filings (two deltas), and into an
 * empty one (one loads in bulk, the other waits for its writing and loads
 * as a delta).
 */
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root, runScript, scriptEnv, tablesOf } from "./localState.ts";
import { migratedState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "lien-concurrent-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TIMEOUT = 900_000;

/** `npm run import -- ARGS` as a child process; resolves with its exit status and output. */
function importing(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["scripts/import.ts", ...args], { cwd: root, env: scriptEnv });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** A generated feed of `filings` filings (seed/seed.ts --out), split in three files: base, first and second. */
function feeds() {
  const feed = join(work, "generated.ndjson");
  const seeded = runScript("seed/seed", ["--filings", "900", "--out", feed]);
  expect(seeded.status).toBe(0);
  const lines = readFileSync(feed, "utf8").trim().split("\n");
  const stateOf = (line: string) => (JSON.parse(line) as { jurisdiction_state: string }).jurisdiction_state;
  // The later files name only states the base holds: their new filings are changes whichever load comes first.
  const held = new Set(lines.slice(0, 300).map(stateOf));
  const later = lines.slice(300).filter((l) => held.has(stateOf(l)));
  const half = Math.floor(later.length / 2);
  const write = (name: string, part: string[]) => {
    const path = join(work, name);
    writeFileSync(path, `${part.join("\n")}\n`);
    return path;
  };
  return {
    base: write("base.ndjson", lines.slice(0, 300)),
    first: write("first.ndjson", later.slice(0, half)),
    second: write("second.ndjson", later.slice(half)),
  };
}

/**
 * Tables compared without when each load ran, and each table's rows as a
 * set (a shard's changes are in the order the two loads committed their
 * groups, which differs from run to run); with `order` false, also without
 * what depends on which load came first (into an empty database, the
 * first's states are backfilled and the second's changes are recorded,
 * with their name index).
 */
const compared = (dir: string, order = true) =>
  Object.fromEntries(
    Object.entries(tablesOf(dir))
      .filter(
        ([table]) => !table.endsWith("data_loads") && (order || !/(changes|change_names|state_backfills)$/.test(table)),
      )
      .map(([table, rows]) => [table, rows.map((r) => JSON.stringify(r)).sort()]),
  );

describe("two imports into the same local state at once", () => {
  it(
    "both finish, with the tables of the same imports one after the other, into a database that holds filings and into an empty one",
    async () => {
      const { base, first, second } = feeds();
      const loaded = migratedState(join(work, "loaded"));
      // A database that holds filings: every import of first and second is a delta of states it holds.
      expect(runScript("scripts/import", [base, "--persist-to", loaded]).status).toBe(0);
      const sequential = join(work, "sequential");
      cpSync(loaded, sequential, { recursive: true });
      for (const file of [first, second])
        expect(runScript("scripts/import", [file, "--persist-to", sequential]).status).toBe(0);
      const expected = compared(sequential);
      for (let round = 0; round < 2; round++) {
        const together = join(work, `together-${round}`);
        cpSync(loaded, together, { recursive: true });
        const results = await Promise.all([
          importing([first, "--persist-to", together]),
          importing([second, "--persist-to", together]),
        ]);
        for (const r of results) expect(r.status, r.stderr).toBe(0);
        expect(compared(together)).toEqual(expected);
      }

      // An empty database: one import loads in bulk, the other waits for it.
      const empty = migratedState(join(work, "empty"));
      const inTurn = join(work, "in-turn");
      cpSync(empty, inTurn, { recursive: true });
      for (const file of [first, second])
        expect(runScript("scripts/import", [file, "--persist-to", inTurn]).status).toBe(0);
      const both = join(work, "both");
      cpSync(empty, both, { recursive: true });
      const results = await Promise.all([
        importing([first, "--persist-to", both]),
        importing([second, "--persist-to", both]),
      ]);
      for (const r of results) expect(r.status, r.stderr).toBe(0);
      expect(results.filter((r) => r.stderr.includes("empty: bulk mode"))).toHaveLength(1);
      expect(compared(both, false)).toEqual(compared(inTurn, false));
    },
    TIMEOUT,
  );
});
