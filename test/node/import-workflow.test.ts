/**
 * `npm run import -- FILE --workflow` end to end, as an operator runs it
 * against `npm start`: a real `wrangler dev` (the Worker, its queue
 * consumer and LoadFeed Workflow, local D1 and R2 in a temporary state
 * directory, and a dev registry of its own, so no other session takes the
 * CLI's message), the CLI putting files and messages into it and following
 * each load. Its tables are an in-process import's, and a generated feed of
 * several hundred MB passes through range steps while the Worker's heap
 * stays flat.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerHeapBytes } from "../../scripts/devServer.ts";
import { type DevServer, devOnFreePorts } from "./devWorker.ts";
import { migratedState } from "./templates.ts";

const root = resolve(import.meta.dirname, "../..");
const work = mkdtempSync(join(tmpdir(), "lien-workflow-"));
const env = {
  ...process.env,
  PATH: `${join(root, "node_modules/.bin")}${delimiter}${process.env.PATH}`,
  WRANGLER_REGISTRY_PATH: join(work, "registry"),
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
};
const MB = 1_048_576;
const TIMEOUT = 300_000;

const node = (args: string[]) =>
  spawnSync(process.execPath, args, { cwd: root, encoding: "utf8", env, maxBuffer: 64 * MB });

const platformState = join(work, "platform");
let port = 0;
let inspectorPort = 0;
let server: DevServer | undefined;

beforeAll(async () => {
  migratedState(platformState);
  server = await devOnFreePorts(["--persist-to", platformState], env);
  ({ port, inspectorPort } = server);
}, TIMEOUT);

afterAll(async () => {
  await server?.end();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Every table's rows of every shard of a state directory, but the load
 * records (which say when loads ran), the webhook dispatcher's positions
 * (which the Workflow's nudges move), and times of loading. A waiting amendment's source names
 * its file as loaded: the path given to the CLI in-process, the object's
 * key on the platform; only its line is compared.
 */
function tablesOf(stateDir: string): Record<string, string[]> {
  const dir = join(stateDir, "v3/d1/miniflare-D1DatabaseObject");
  const out: Record<string, string[]> = {};
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")) {
    const db = new DatabaseSync(join(dir, file), { readOnly: true });
    try {
      const tables = db
        .prepare(
          "select name from sqlite_master where type = 'table' and name not like 'sqlite%' and name not like '\\_%' escape '\\' and name not in ('d1_migrations', 'data_loads', 'feed_loads', 'webhook_positions')",
        )
        .all() as { name: string }[];
      for (const { name } of tables) {
        const rows = db.prepare(`select * from "${name}"`);
        rows.setReadBigInts(true);
        out[`${file.slice(0, 8)}:${name}`] = (rows.all() as Record<string, unknown>[])
          .map((r) => (name === "pending_amendments" ? { ...r, source: String(r.source).replace(/^.*:/, ":") } : r))
          // When a change was recorded, a state last loaded or its backfill ran, is the clock's (and
          // which load began it, the path's); a filing's revision counts the writes that replaced it.
          .map(({ recorded_at, last_loaded_at, revision, began_at, completed_at, source, ...r }) =>
            name === "state_backfills"
              ? { ...r, completed: completed_at !== null }
              : name === "state_summaries"
                ? {
                    ...r,
                    backfill_began_at: r.backfill_began_at !== null,
                    backfill_completed_at: r.backfill_completed_at !== null,
                  }
                : name === "pending_amendments"
                  ? { ...r, source }
                  : r,
          )
          .map((r) => JSON.stringify(r, (_, v) => (typeof v === "bigint" ? v.toString() : v)))
          .sort();
      }
    } finally {
      db.close();
    }
  }
  return out;
}

const withoutTimes = (stdout: string) => stdout.replace(/ in [\d.]+s \([\d,]+ records\/s\)/g, "");

describe("npm run import --workflow", () => {
  it(
    "loads feeds through the local Workflow into the tables an in-process import leaves, with its summary, rejects and warnings",
    () => {
      // Each file on its own, as the platform loads each file (the aggregates after each).
      const files = [
        "test/fixtures/feed.ndjson",
        "test/fixtures/mixed.ndjson",
        "test/fixtures/feed.csv",
        "test/fixtures/office.xml",
      ];
      const local = migratedState(join(work, "local"));
      const outputs = (dir: string, file: string) => {
        const name = file.replaceAll("/", "_");
        return ["--rejects", join(work, `${dir}-${name}.rejects`), "--warnings", join(work, `${dir}-${name}.warnings`)];
      };
      for (const file of files) {
        const platform = node([
          "scripts/import.ts",
          file,
          "--workflow",
          "--port",
          String(port),
          "--persist-to",
          platformState,
          ...outputs("platform", file),
        ]);
        const inProcess = node([
          "scripts/import.ts",
          file,
          "--no-bulk",
          "--persist-to",
          local,
          ...outputs("local", file),
        ]);
        expect(platform.stderr).toContain(`through the local session on port ${port}`);
        expect(withoutTimes(platform.stdout).replaceAll("platform-", "")).toBe(
          withoutTimes(inProcess.stdout).replaceAll("local-", ""),
        );
        expect(platform.status, `${platform.stdout}\n${platform.stderr}`).toBe(inProcess.status);
        for (const kind of ["rejects", "warnings"]) {
          const read = (dir: string) => {
            const path = join(work, `${dir}-${file.replaceAll("/", "_")}.${kind}`);
            return statSync(path, { throwIfNoEntry: false }) ? readFileSync(path, "utf8") : null;
          };
          expect(read("platform"), `${file} ${kind}`).toBe(read("local"));
        }
      }
      expect(tablesOf(platformState)).toEqual(tablesOf(local));

      // Each load's status is its Workflow instance's, asked of the session.
      const status = node(["scripts/import.ts", "--status", "--port", String(port), "--persist-to", platformState]);
      expect(status.status, status.stderr).toBe(0);
      for (const file of files) {
        expect(status.stdout).toMatch(
          new RegExp(`complete\\s+100%  incoming/${file.split("/").at(-1)?.replace(".", "\\.")}`),
        );
      }

      // The same bytes again: not loaded again, and said so, with when and by which load.
      const again = node([
        "scripts/import.ts",
        files[0]!,
        "--workflow",
        "--port",
        String(port),
        "--persist-to",
        platformState,
      ]);
      expect(again.status, `${again.stdout}\n${again.stderr}`).toBe(0);
      expect(again.stderr).toMatch(
        /feed\.ndjson: already loaded, by load-[0-9a-f]{40} \(finished \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\): 5 records read: 5 inserted/,
      );
      expect(again.stdout).toMatch(/^Imported: 0 records read: 0 inserted/m);
    },
    TIMEOUT,
  );

  it(
    "passes a generated feed larger than a Worker's memory through range steps while the Worker's heap stays flat",
    async () => {
      // Generated filings, each line carrying a field of 100 KB the importer ignores: 160 MB, 1,600 filings,
      // a quarter more than the 128 MB a Worker may hold, 40 ranges of 4 MiB.
      const generated = join(work, "generated.ndjson");
      expect(node(["seed/seed.ts", "--filings", "1550", "--out", generated]).status).toBe(0);
      const feed = join(work, "padded.ndjson");
      const out = createWriteStream(feed);
      const padding = "x".repeat(100_000);
      for (const line of readFileSync(generated, "utf8").trim().split("\n")) {
        if (!out.write(`${JSON.stringify({ ...JSON.parse(line), padding })}\n`)) await once(out, "drain");
      }
      out.end();
      await once(out, "finish");
      const size = statSync(feed).size;
      expect(size).toBeGreaterThan(150 * MB);

      const cli = spawn(
        process.execPath,
        ["scripts/import.ts", feed, "--workflow", "--port", String(port), "--persist-to", platformState],
        {
          cwd: root,
          env,
        },
      );
      let stdout = "";
      cli.stdout.on("data", (chunk) => {
        stdout += chunk;
      });
      let stderr = "";
      cli.stderr.on("data", (chunk) => {
        stderr += chunk;
      });
      const exited = once(cli, "exit");
      const heap: number[] = [];
      let running = true;
      void exited.then(() => {
        running = false;
      });
      // A snapshot a second apart: each is a full collection and a heap written out, work the load waits on.
      // (Three seconds apart gave three snapshots of a load that took 13 s.)
      while (running) {
        heap.push(await workerHeapBytes(inspectorPort));
        await new Promise((r) => setTimeout(r, 1_000));
      }
      const [code] = await exited;
      // On a failure, the CLI's last words.
      expect(code, `${stdout.slice(-1500)}\n${stderr.slice(-1500)}`).toBe(0);
      expect(stdout).toMatch(
        /^Imported: 1,[56]\d\d records read: 1,[56]\d\d inserted, 0 updated, 0 unchanged, 0 rejected/m,
      );
      // The follower's progress moved as the ranges wrote, in an in-process import's lines: a line a tenth of the
      // file, at most one a second (scripts/progress.ts). So a quick load has fewer: a line every two seconds the
      // phase took is asked, up to eight (the follower reads the record between steps; 8 s here gave 7 lines).
      const writing = [...stderr.matchAll(/^ {2}\S+: writing (\d+)%, about [\dhms ]+ left: [\d,]+ records written/gm)];
      const tenths = writing.map((m) => Math.floor(Number(m[1]) / 10));
      const seconds = Number(/^ {2}\S+: writing 100% in ([\d.]+)s:/m.exec(stderr)?.[1]);
      expect(seconds, stderr).toBeGreaterThan(0);
      expect(tenths.length, stderr).toBeGreaterThanOrEqual(Math.max(1, Math.min(8, Math.floor(seconds / 2))));
      expect(new Set(tenths).size).toBe(tenths.length);
      expect(tenths).toEqual([...tenths].sort((a, b) => a - b));
      expect(stderr).toMatch(/^ {2}\S+: rebuilding the aggregates of the debtors loaded 100% in [\d.]+s: /m);
      const figures = heap.map((h) => (h / MB).toFixed(1)).join(", ");
      console.log(`${(size / MB).toFixed(0)} MB through range steps; Worker heap after GC: ${figures} MB`);
      expect(heap.length).toBeGreaterThanOrEqual(3);
      // A range (4 MiB) and its records, never the file (154 MB): at most three quarters of a Worker's 128 MB.
      // A snapshot inside a step of this file has read 8.5 to 71.8 MB (64.9 at 4303291, so half the 128 MB
      // failed one run in three), between loads 8.2 MB.
      expect(Math.max(...heap)).toBeLessThan(96 * MB);
    },
    TIMEOUT * 2,
  );
});
