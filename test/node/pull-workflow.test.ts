/**
 * `npm run import -- --source ct --pull --workflow` end to end, as an
 * operator runs it against `npm start`: a real `wrangler dev` (the Worker
 * and its PullSource Workflow, local D1 and R2 in a temporary state
 * directory, a dev registry of its own), the local stand-in portal
 * (scripts/socrataPortal.ts) answering with a 429 and a 500 first, and the
 * CLI starting the pull and following it. Its tables, rejects, warnings
 * and summary are those of the in-process pull of the same rows, and
 * `--status` lists it.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SocrataPortal } from "../../scripts/socrataPortal.ts";
import { type DevServer, devOnFreePorts } from "./devWorker.ts";
import { root, scriptEnv, tablesOf } from "./localState.ts";
import { migratedState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "lien-pull-workflow-"));
const env = { ...scriptEnv, WRANGLER_REGISTRY_PATH: join(work, "registry"), CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const TIMEOUT = 300_000;
const platformState = join(work, "platform");
const cliState = join(work, "cli");

let port = 0;
let server: DevServer | undefined;
let portal: SocrataPortal;
let url: string;

/** `npm run import` with `args`, apart from this process, whose event loop serves the portal. */
function importAsync(args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["scripts/import.ts", ...args], { cwd: root, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

const outputs = (name: string) => [
  "--rejects",
  join(work, `${name}.rejects`),
  "--warnings",
  join(work, `${name}.warnings`),
];
const linesOf = (path: string) => readFileSync(path, "utf8").trim().split("\n").sort();

/**
 * Every table a load writes, but the load records, when each pull ran (its
 * office date through aside) and the webhook dispatcher's positions (which
 * the Workflow's nudge moves; the in-process pull has no session to nudge).
 */
function loadedTables(dir: string) {
  return Object.fromEntries(
    Object.entries(tablesOf(dir))
      .filter(([table]) => !table.endsWith("data_loads") && !table.endsWith("webhook_positions"))
      .map(([table, rows]) => {
        if (!table.endsWith("source_pulls")) return [table, rows];
        return [
          table,
          rows.map((r) => {
            const { source, through, position } = JSON.parse(String(r)) as Record<string, unknown>;
            return { source, through, position };
          }),
        ];
      }),
  );
}

beforeAll(async () => {
  for (const state of [platformState, cliState]) {
    migratedState(state);
  }
  portal = new SocrataPortal();
  const rows = JSON.parse(readFileSync(join(root, "test/fixtures/sources/ct.json"), "utf8"));
  portal.add("xfev-8smz", rows, new Date(Date.now() - 10 * 86_400_000).toISOString());
  url = await portal.start();
  server = await devOnFreePorts(["--persist-to", platformState], env);
  port = server.port;
}, TIMEOUT);

afterAll(async () => {
  await server?.end();
  await portal?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("npm run import -- --source ct --pull --workflow", () => {
  it(
    "pulls through the local Workflow, waiting out a 429 and a 500, into the tables the in-process pull makes, and --status lists it",
    async () => {
      portal.fail({ status: 429, retryAfter: "1" }, { status: 500 });
      const from = portal.requests.length;
      const pull = ["--source", "ct", "--pull", "--portal", url, "--page-size", "5"];
      const platform = await importAsync([
        ...pull,
        "--workflow",
        "--port",
        String(port),
        "--persist-to",
        platformState,
        ...outputs("platform"),
      ]);
      expect(platform.status, platform.stderr).toBe(3);
      expect(platform.stderr).toMatch(/starting pull-ct-\d{8}-\d{6} on the local session/);
      expect(portal.requests.slice(from).map((r) => r.status)).toEqual([429, 500, 200, 200, 200, 200]);

      const cli = await importAsync([...pull, "--persist-to", cliState, ...outputs("cli")]);
      expect(cli.status, cli.stderr).toBe(3);
      const summary = (out: string) => out.split("\n").filter((l) => /^(Rows|Not recognised):/.test(l));
      expect(summary(platform.stdout)).toEqual(summary(cli.stdout));
      expect(platform.stdout).toMatch(/^Imported: 11 records read: 9 inserted, 0 updated, 0 unchanged, 1 rejected;/m);
      expect(loadedTables(platformState)).toEqual(loadedTables(cliState));
      expect(linesOf(join(work, "platform.rejects"))).toEqual(linesOf(join(work, "cli.rejects")));
      expect(linesOf(join(work, "platform.warnings"))).toEqual(linesOf(join(work, "cli.warnings")));

      const status = await importAsync(["--status", "--port", String(port), "--persist-to", platformState]);
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toMatch(/^ct {2}complete {2}at \S+ {2}pull-ct-\d{8}-\d{6}$/m);
      expect(status.stdout).toContain("17 rows read: 15 new or changed, 1 unchanged, 1 rejected in 4 pages");
    },
    TIMEOUT,
  );
});
