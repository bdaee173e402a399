/**
 * The operator scripts' command lines (scripts/commandLine.ts): `--help`
 * prints the usage and succeeds; an option a script does not take is a
 * usage error naming it, never Node's stack trace.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { asksForHelp } from "../../scripts/commandLine.ts";
import { root, runScript, scriptEnv } from "./localState.ts";

describe("an operator script's command line", () => {
  it("prints the usage on stdout and exits 0 for --help", () => {
    for (const help of ["--help", "-h"]) {
      const ran = runScript("scripts/cpuLog", [help]);
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/^usage: node scripts\/cpuLog\.ts FILE/);
      expect(ran.stderr).toBe("");
    }
  });

  it("names an option it does not take, with the usage, and exits 2 without a stack trace", () => {
    const ran = runScript("scripts/backfillSql", ["--outt", "x.sql"]);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain("Unknown option '--outt'");
    expect(ran.stderr).toContain("usage: npm run backfill:sql -- --out FILE");
    expect(ran.stderr).not.toMatch(/\n\s+at /);
    expect(ran.stdout).toBe("");
  });

  it("names an option missing its value", () => {
    const ran = runScript("scripts/cpuLog", ["some.log", "--top"]);
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain("--top");
    expect(ran.stderr).toContain("usage: node scripts/cpuLog.ts");
  });

  it("answers npm run seed -- --help without migrating or creating local state", () => {
    // The project's files in a directory of their own, which has no .wrangler/ yet.
    const dir = mkdtempSync(join(tmpdir(), "seed-help-"));
    try {
      for (const entry of ["package.json", "node_modules", "scripts", "seed", "src", "wrangler.toml", "migrations"]) {
        symlinkSync(join(root, entry), join(dir, entry));
      }
      const ran = spawnSync("npm", ["run", "-s", "seed", "--", "--help"], {
        cwd: dir,
        encoding: "utf8",
        env: scriptEnv,
      });
      expect(ran.status, ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/^usage: npm run seed -- /);
      expect(existsSync(join(dir, ".wrangler"))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads --help only before a -- that ends the options", () => {
    expect(asksForHelp(["--state", "CA", "--help"])).toBe(true);
    expect(asksForHelp(["-h"])).toBe(true);
    expect(asksForHelp(["--", "--help"])).toBe(false);
    expect(asksForHelp(["--helpful"])).toBe(false);
  });
});
