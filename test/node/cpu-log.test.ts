/**
 * LIEN_CPU_LOG (scripts/fastStart.ts) and its summary (scripts/cpuLog.ts):
 * each Node process a run starts says what it cost as it exits, and the
 * summary adds the runs of one command up.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { root, runScript } from "./localState.ts";

const work = mkdtempSync(join(tmpdir(), "lien-cpu-log-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the CPU log of a run's processes", () => {
  it("gets a line from each process that exits, and sums the runs of a command", () => {
    const log = join(work, "cpu.log");
    for (const empty of ["a", "b"]) writeFileSync(join(work, empty), "");
    // Two runs of one script (its arguments differ only in a temporary path) and one of another.
    for (const args of [
      ["scripts/cpuLog.ts", join(work, "a")],
      ["scripts/cpuLog.ts", join(work, "b")],
      ["scripts/clientNames.ts", join(work, "names.ts")],
    ]) {
      spawnSync(process.execPath, args, { cwd: root, env: { ...process.env, LIEN_CPU_LOG: log } });
    }
    const lines = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    for (const line of lines) {
      expect(line.cpu).toBeGreaterThan(0);
      expect(line.alive).toBeGreaterThan(0);
    }

    const summary = runScript("scripts/cpuLog", [log]);
    expect(summary.status, summary.stderr).toBe(0);
    expect(summary.stdout).toMatch(/^3 processes, [\d.]+ s of CPU/);
    expect(summary.stdout).toMatch(/^ +[\d.]+ +2 +\d+ +scripts\/cpuLog\.ts TMP$/m);
    expect(summary.stdout).toMatch(/^ +[\d.]+ +1 +\d+ +scripts\/clientNames\.ts TMP$/m);
    expect(runScript("scripts/cpuLog", []).status).toBe(2);
  });
});
