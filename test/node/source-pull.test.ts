/**
 * `npm run import -- --source ... --pull` as an operator runs it: real
 * processes against local D1 state, pulling from a local stand-in for a
 * Socrata portal (scripts/socrataPortal.ts) that pages, filters, leaves out
 * nulls, throttles and fails as a portal does. A pull must leave the same
 * tables as loading the same rows from the portal's files.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/devServer.ts";
import { localFiles, shardConfig } from "../../scripts/shardConfig.ts";
import { SocrataPortal } from "../../scripts/socrataPortal.ts";
import { newPull, type PullPosition } from "../../src/feed/sources/pull.ts";
import { root, runScript, scriptEnv, tablesOf } from "./localState.ts";
import { migratedState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "lien-source-pull-"));
const template = join(work, "template");
const TIMEOUT = 240_000;

/** Listens on a free loopback port; returns it. */
async function listen(server: Server): Promise<number> {
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as { port: number }).port;
}

/** A copy of the migrated, empty template state. */
function freshState(name: string): string {
  const dir = join(work, name);
  cpSync(template, dir, { recursive: true });
  return dir;
}

/** `npm run import` with `args` (run apart from this process, whose event loop serves the portal). */
function importAsync(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["scripts/import.ts", ...args], { cwd: root, env: { ...scriptEnv, ...env } });
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

/** Rejects and warnings files of a run, in the work directory (a pull's default is the current one's). */
const outputs = (name: string) => [
  "--rejects",
  join(work, `r${name}.ndjson`),
  "--warnings",
  join(work, `w${name}.ndjson`),
];

/** `npm run import -- --source ct --pull` from the stand-in portal into `state`, its outputs named by `name`. */
const pullCt = (state: string, name: string, extra: string[] = []) =>
  importAsync(["--source", "ct", "--pull", "--portal", url, "--persist-to", state, ...outputs(name), ...extra]);

const fixture = (name: string) => join("test/fixtures/sources", name);
const rowsOf = (name: string) =>
  JSON.parse(readFileSync(join(root, fixture(name)), "utf8")) as Record<string, string>[];

/**
 * Every table a load writes, as tablesOf reads them, but for what says how
 * the rows came: the load records, a staged row's file and line (a file's
 * line, a pull's place), a waiting amendment's source, and the pull's own
 * bookkeeping (its office date through, which both keep, aside).
 */
function loadedTables(dir: string) {
  const omit: Record<string, string[]> = {
    source_rows: ["file", "line"],
    pending_amendments: ["source"],
    source_pulls: ["changed_since", "pulled_at", "position", "summary"],
    // The day a digest was built: loads on either side of midnight UTC differ in it, and only in it.
    debtor_reports: ["as_of"],
  };
  return Object.fromEntries(
    Object.entries(tablesOf(dir))
      .filter(([table]) => !table.endsWith("data_loads"))
      .map(([table, rows]) => {
        const columns = omit[table.replace(/^.*:/, "")];
        if (!columns) return [table, rows];
        return [
          table,
          rows
            .map((r) => {
              if (typeof r !== "string") return r;
              const row = JSON.parse(r) as Record<string, unknown>;
              for (const c of columns) delete row[c];
              return JSON.stringify(row);
            })
            .sort(),
        ];
      }),
  );
}

/** A fresh state whose ct pull stopped at `position` (saved in source_pulls). */
async function stoppedState(name: string, position: PullPosition) {
  const state = freshState(name);
  const [home] = localFiles(await shardConfig(), state);
  const db = new DatabaseSync(home?.file ?? "");
  db.prepare("insert into source_pulls (source, position) values ('ct', ?)").run(JSON.stringify(position));
  db.close();
  return state;
}

const TEN_DAYS_AGO = new Date(Date.now() - 10 * 86_400_000).toISOString();

let portal: SocrataPortal;
let url: string;

beforeAll(async () => {
  migratedState(template);
  portal = new SocrataPortal();
  portal.add("xfev-8smz", rowsOf("ct.json"), TEN_DAYS_AGO);
  url = await portal.start();
}, TIMEOUT);

afterAll(async () => {
  await portal?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe("npm run import -- --source ct --pull", () => {
  const files = () => freshState("ct-files");
  let fromFiles: string;
  let firstLoad: ReturnType<typeof loadedTables>;

  beforeAll(async () => {
    fromFiles = files();
    const loaded = await importAsync(["--source", "ct", fixture("ct.json"), "--persist-to", fromFiles, ...outputs("")]);
    expect(loaded.status, loaded.stderr).toBe(3);
    firstLoad = loadedTables(fromFiles);
  }, TIMEOUT);

  it(
    "reads the dataset again from its first page when the office deletes a row during the pull, says so, and loads what the file loads",
    async () => {
      const moving = new SocrataPortal();
      moving.add("xfev-8smz", rowsOf("ct.json"), TEN_DAYS_AGO);
      const at = await moving.start();
      try {
        // The first row goes after the first page: every later row moves back a place.
        moving.deleteFirstAfter(1, "xfev-8smz");
        const state = freshState("ct-moving");
        const pulled = await importAsync([
          "--source",
          "ct",
          "--pull",
          "--portal",
          at,
          "--page-size",
          "5",
          "--persist-to",
          state,
          ...outputs("moving"),
        ]);
        expect(pulled.status, pulled.stderr).toBe(3);
        // Said on stderr as it happens, with the page it happened at.
        expect(pulled.stderr).toContain(
          "page 2: the rows before it moved (the office changed the dataset): reading it again from its first page (1 of 5)",
        );
        // The row deleted was read before it went: every row the office published is kept.
        expect(loadedTables(state)).toEqual(firstLoad);
      } finally {
        await moving.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "pages by $order=:id, $limit and $offset, sends the app token, waits out a 429 and a 500, and loads what the file loads",
    async () => {
      const state = freshState("ct-pull");
      portal.fail({ status: 429, retryAfter: "1" }, { status: 500 });
      const from = portal.requests.length;
      const pulled = await importAsync(
        ["--source", "ct", "--pull", "--portal", url, "--page-size", "5", "--persist-to", state],
        { SOCRATA_APP_TOKEN: "test-app-token" },
      );
      expect(pulled.status, pulled.stderr).toBe(3);
      expect(pulled.stderr).toContain("HTTP 429: fault 429; trying again in 1.0s");
      // No Retry-After on the 500: a growing wait, a second on the first try, two on the second.
      expect(pulled.stderr).toContain("HTTP 500: fault 500; trying again in 2.0s");
      expect(pulled.stdout).toMatch(/^Rows: 17 rows read: 15 new or changed, 1 unchanged, 1 rejected$/m);
      expect(pulled.stdout).toMatch(/^Imported: 11 records read: 9 inserted, 0 updated, 0 unchanged, 1 rejected;/m);
      const requests = portal.requests.slice(from);
      expect(requests.map((r) => r.status)).toEqual([429, 500, 200, 200, 200, 200]);
      // Four pages of five: the last one short, which ends the table. Each after the first asks again for
      // the row before it, which must be the one the page before ended with.
      expect(requests.filter((r) => r.status === 200).map((r) => r.params)).toEqual([
        { $order: ":id", $limit: "5", $offset: "0" },
        ...[4, 9, 14].map((offset) => ({ $order: ":id", $limit: "6", $offset: String(offset) })),
      ]);
      expect(new Set(requests.map((r) => r.token))).toEqual(new Set(["test-app-token"]));
      expect(loadedTables(state)).toEqual(firstLoad);
      // Rejects and warnings of a pull name the dataset's URL and the row's place in the pull.
      const rejects = readFileSync(join(root, "ct-pull.rejects.ndjson"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(rejects[0]).toMatchObject({ file: `${url}/resource/xfev-8smz.json` });
      rmSync(join(root, "ct-pull.rejects.ndjson"), { force: true });
      rmSync(join(root, "ct-pull.warnings.ndjson"), { force: true });
    },
    TIMEOUT,
  );

  it(
    "asks later for what changed since the last pull began (a day earlier), catches a lien released in place, and equals loading the changed file",
    async () => {
      const state = join(work, "ct-pull");
      const now = new Date().toISOString();
      // The office marks a lien Released (every row of it), and files an amendment of another.
      expect(
        portal.change("xfev-8smz", (f) => f.id_lien_flng_nbr === "0005229652", { lien_status: "Released" }, now),
      ).toBe(2);
      const amendment = {
        ...rowsOf("ct.json").find((r) => r.id_ucc_flng_nbr === "0002940450"),
        id_ucc_flng_nbr: "0005412345",
        cd_flng_type: "AMENDMENT",
        dt_accept: "2026-11-02T00:00:00.000",
      };
      portal.add("xfev-8smz", [amendment], now);
      const from = portal.requests.length;
      const pulled = await pullCt(state, "2");
      expect(pulled.status, pulled.stderr).toBe(0);
      const [request] = portal.requests.slice(from);
      const pulls = JSON.parse(JSON.stringify(tablesOf(state).source_pulls?.map((r) => JSON.parse(String(r))))) as {
        changed_since: string;
      }[];
      expect(request?.params.$where).toMatch(/^:updated_at > '\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}'$/);
      expect(pulls[0]?.changed_since).toBeDefined();
      expect(pulled.stdout).toMatch(/^Rows: 3 rows read: 2 new or changed, 1 unchanged, 0 rejected$/m);
      expect(pulled.stdout).toMatch(/^Imported: 2 records read: 0 inserted, 2 updated, 0 unchanged/m);
      // The same rows as files: the register as it stands now.
      const changed = join(work, "ct-changed.json");
      const rows = rowsOf("ct.json").map((r) =>
        r.id_lien_flng_nbr === "0005229652" ? { ...r, lien_status: "Released" } : r,
      );
      writeJson(changed, [...rows, amendment]);
      const loaded = await importAsync(["--source", "ct", changed, "--persist-to", fromFiles, ...outputs("3")]);
      expect(loaded.status, loaded.stderr).toBe(3);
      expect(loadedTables(state)).toEqual(loadedTables(fromFiles));
      // Both recorded the termination in the change feed, the pull as the file.
      expect(loadedTables(state).changes).toEqual(
        expect.arrayContaining([expect.stringContaining('"filing":"CT 0005229652","type":2')]),
      );
    },
    TIMEOUT,
  );

  it(
    "writes nothing when a later pull finds nothing new: not when it ran, nor where the next starts",
    async () => {
      // The pull before left ct-pull holding the register as the portal has it now.
      const state = join(work, "ct-pull");
      const before = tablesOf(state);
      const from = portal.requests.length;
      const pulled = await pullCt(state, "5");
      expect(pulled.status, pulled.stderr).toBe(0);
      // The day of overlap read again, unchanged.
      expect(pulled.stdout).toMatch(/^Rows: 3 rows read: 0 new or changed, 3 unchanged, 0 rejected$/m);
      expect(pulled.stderr).toContain("found nothing new: nothing written");
      const after = tablesOf(state);
      expect(after.source_pulls).toEqual(before.source_pulls);
      expect(after.data_loads).toEqual(before.data_loads);
      expect(after).toEqual(before);
      // The next asks for the same window.
      const asked = portal.requests.slice(from).map((r) => r.params.$where);
      const again = portal.requests.length;
      await pullCt(state, "6");
      expect(portal.requests.slice(again).map((r) => r.params.$where)).toEqual(asked);
    },
    TIMEOUT,
  );

  it(
    "resumes a pull stopped part-way at the page it stopped on, reading each row once",
    async () => {
      const stopped = new SocrataPortal();
      stopped.add("xfev-8smz", rowsOf("ct.json"), TEN_DAYS_AGO);
      const stoppedUrl = await stopped.start();
      try {
        const state = freshState("ct-stopped");
        // Two pages, then the portal fails every request (Retry-After: 0, so the tries are quick).
        stopped.failFrom(2, { status: 503, retryAfter: "0" });
        const args = [
          "--source",
          "ct",
          "--pull",
          "--portal",
          stoppedUrl,
          "--page-size",
          "5",
          "--persist-to",
          state,
          ...outputs("4"),
        ];
        const first = await importAsync(args);
        expect(first.status).toBe(1);
        expect(first.stderr).toContain(`Import failed: ${stoppedUrl}/resource/xfev-8smz.json?`);
        expect(first.stderr).toContain("gave up after 5 tries; the last: HTTP 503: fault 503");
        expect(first.stderr).toContain("running the same pull again resumes at the page it stopped on");
        stopped.failFrom(0, null);
        const again = await importAsync(args);
        expect(again.status, again.stderr).toBe(3);
        expect(again.stderr).toContain("resuming the pull stopped at page 3 (10 rows read)");
        // Every page read once: the two before the stop, and the rest after.
        const pages = stopped.requests.filter((r) => r.status === 200).map((r) => Number(r.params.$offset));
        expect(pages).toEqual([0, 4, 9, 14]);
        expect(loadedTables(state)).toEqual(firstLoad);
      } finally {
        await stopped.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "gives a run after one that ran out of restarts restarts of its own: it reads the dataset again from its first page and finishes",
    async () => {
      // As a run leaves it that failed at its sixth move: its page after a row since gone, every restart used.
      const state = await stoppedState("ct-out-of-restarts", {
        ...newPull(null, null),
        table: 0,
        offset: 5,
        last: "a-row-since-gone",
        restarts: 5,
        pages: 8,
      });
      const pulled = await pullCt(state, "restarts", ["--page-size", "5"]);
      expect(pulled.status, pulled.stderr).toBe(3);
      expect(pulled.stderr).toContain("resuming the pull stopped at page 9");
      expect(pulled.stderr).toContain("reading it again from its first page (1 of 5)");
      expect(tablesOf(state).source_pulls?.map((r) => JSON.parse(String(r)).position)).toEqual([null]);
    },
    TIMEOUT,
  );

  it(
    "reads with --since a lien's rows that leave its date blank too, which no later pull would ask for",
    async () => {
      const row = (debtor: string, accept?: string) => ({
        ...rowsOf("ct.json").find((r) => r.id_ucc_flng_nbr === "0002940450"),
        id_lien_flng_nbr: "0000960001",
        id_ucc_flng_nbr: "0000960001",
        cd_flng_type: "ORIG FIN STMT",
        debtor_nm_bus: debtor,
        dt_accept: accept && `${accept}T00:00:00.000`,
        dt_lapse: "2031-01-10T00:00:00.000",
      });
      const since = new SocrataPortal();
      // Its second debtor's row undated, and changed before the pull: read by no pull of what changed since.
      since.add("xfev-8smz", [row("ALPHA SINCE LLC", "2026-01-10"), row("BETA SINCE LLC")], TEN_DAYS_AGO);
      const at = await since.start();
      try {
        const state = freshState("ct-since-undated");
        const args = ["--source", "ct", "--pull", "--since", "2026-01-01", "--portal", at, "--persist-to", state];
        const pulled = await importAsync([...args, ...outputs("since")]);
        expect(pulled.status, pulled.stderr).toBe(0);
        const debtors = JSON.stringify(tablesOf(state).debtor_parties);
        expect(debtors).toContain("ALPHA SINCE LLC");
        expect(debtors).toContain("BETA SINCE LLC");
        expect(since.requests.map((r) => r.params.$where)).toEqual([
          "(dt_accept >= '2026-01-01T00:00:00' OR dt_accept IS NULL)",
        ]);
      } finally {
        await since.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "refuses unusable source arguments with exit 2 before touching any database",
    () => {
      for (const [args, problem] of [
        [["--source", "wa", "x.json"], "--source wa: not one of ct, co, or"],
        [["--source", "ct"], "--source needs FILE..."],
        [["--source", "ct", "--pull", fixture("ct.json")], "--pull reads the portal: no FILE"],
        [["--source", "ct", "--pull", "--since", "2026-02-30"], "--since 2026-02-30: not a day (YYYY-MM-DD)"],
        [
          ["--source", "ct", "--pull", "--portal", "ftp://example.org"],
          "--portal ftp://example.org: not an http(s) URL",
        ],
        [
          ["--source", "ct", "--pull", "--page-size", "50001"],
          "--page-size 50001: not a whole number from 1 to 50,000",
        ],
        [["--source", "ct", fixture("ct.json"), "--state", "CT"], "--source does not take --state"],
        [
          ["--source", "ct", fixture("ct.json"), "--workflow"],
          "--source FILE... loads in-process; on the platform, a source is pulled (--pull)",
        ],
        [["--source", "ct", "--pull", "--port", "0"], "--port 0: not a port"],
        [
          ["--source", "ct", "--pull", "--workflow", "--page-size", "6000"],
          "--page-size 6000: a pull on the platform takes 1 to 5,000 rows a page",
        ],
        [
          ["--source", "ct", "--pull", "--workflow", "--remote"],
          "--workflow is the local Workflow; --remote a deployed one",
        ],
        [["--pull"], "--pull, --since, --portal and --page-size are for --source"],
      ] as const) {
        const { status, stderr } = runScript("scripts/import", [...args]);
        expect(status, stderr).toBe(2);
        expect(stderr).toContain(problem);
        expect(stderr).toContain("usage: npm run import -- FILE...");
      }
    },
    TIMEOUT,
  );
});

describe("an in-process pull beside a Workflow pull of the same source", () => {
  const by = "pull-ct-20261127-101500";
  /** What the stand-in session says of the instance `by` (the local explorer API's answer). */
  let status = "running";
  let session: Server;
  let sessionPort: number;

  beforeAll(async () => {
    // A stand-in for the local npm start's explorer API, which knows one PullSource instance.
    session = createServer((req, res) => {
      const api = "/cdn-cgi/local/explorer/api/workflows/lien-pull-source";
      if (req.url === api) return void res.writeHead(200, { "content-type": "application/json" }).end("{}");
      if (req.url === `${api}/instances/${by}`) {
        return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status }));
      }
      // Anything else (the webhook nudge's look for a session): no session.
      req.socket.destroy();
    });
    sessionPort = await listen(session);
  });

  afterAll(() => new Promise<void>((resolve) => session?.close(() => resolve())));

  /** A state whose ct position is a Workflow pull's, `by`, that has read nothing yet. */
  const heldState = (name: string) => stoppedState(name, { ...newPull(null, null), by });

  const pull = (state: string, port: number, extra: string[] = []) =>
    pullCt(state, "held", ["--port", String(port), ...extra]);

  it(
    "refuses (exit 2, naming it) while the Workflow pull runs or no session can say; goes on once it ended, or with --force",
    async () => {
      const state = await heldState("ct-held");
      const before = tablesOf(state).source_pulls;
      const from = portal.requests.length;
      // No session on the port: it may be running in one not started yet.
      const unknown = await pull(state, await freePort());
      expect(unknown.status, unknown.stderr).toBe(2);
      expect(unknown.stderr).toContain(
        `Refused: a pull of ct is under way: the Workflow instance ${by} (no local session on port`,
      );
      expect(unknown.stderr).toContain("add --force to take over its position if it is stale");
      // The session says it runs.
      status = "running";
      const running = await pull(state, sessionPort);
      expect(running.status, running.stderr).toBe(2);
      expect(running.stderr).toContain(
        `the Workflow instance ${by} (running in the local session on port ${sessionPort};`,
      );
      // Neither asked the portal or wrote anything.
      expect(portal.requests.length).toBe(from);
      expect(tablesOf(state).source_pulls).toEqual(before);
      // Ended (here errored): its position is taken over, and the pull loads the register.
      status = "errored";
      const ended = await pull(state, sessionPort);
      expect(ended.status, ended.stderr).toBe(3);
      expect(ended.stderr).toContain(`the Workflow pull ${by} left its position`);
      // Every row the portal holds (the tests before may have added some), from its first page.
      expect(ended.stdout).toMatch(/^Rows: \d+ rows read: [1-9]\d* new or changed/m);
      expect(portal.requests.slice(from).map((r) => r.params.$offset)).toEqual(["0"]);
      // Still running, but the operator says it is stale.
      const forced = await heldState("ct-forced");
      status = "running";
      const taken = await pull(forced, sessionPort, ["--force"]);
      expect(taken.status, taken.stderr).toBe(3);
      expect(taken.stderr).toContain(`--force: this pull takes over the position of the Workflow pull ${by}`);
    },
    TIMEOUT,
  );
});

describe("npm run import -- --source co|or --pull", () => {
  it(
    "pulls Colorado's four datasets and joins them as its files do",
    async () => {
      const co = new SocrataPortal();
      co.add("wffy-3uut", rowsOf("co-transactions.json"), TEN_DAYS_AGO);
      co.add("8upq-58vz", rowsOf("co-debtors.json"), TEN_DAYS_AGO);
      co.add("ap62-sav4", rowsOf("co-secured.json"), TEN_DAYS_AGO);
      co.add("4am6-w6u4", rowsOf("co-collateral.json"), TEN_DAYS_AGO);
      const coUrl = await co.start();
      try {
        const fromFiles = freshState("co-files");
        const files = ["co-transactions.csv", "co-debtors.json", "co-secured.json", "co-collateral.json"].map(fixture);
        const loaded = await importAsync(["--source", "co", ...files, "--persist-to", fromFiles, ...outputs("co")]);
        expect(loaded.status, loaded.stderr).toBe(3);
        const pulled = freshState("co-pull");
        const pull = await importAsync([
          "--source",
          "co",
          "--pull",
          "--portal",
          coUrl,
          "--page-size",
          "4",
          "--persist-to",
          pulled,
          ...outputs("5"),
        ]);
        expect(pull.status, pull.stderr).toBe(3);
        expect(pull.stderr).toContain("1 rows wait for the row that gives their filing");
        // Pages of four, each after a table's first from the row before it.
        expect(co.requests.map((r) => [r.dataset, r.params.$offset])).toEqual([
          ["wffy-3uut", "0"],
          ["wffy-3uut", "3"],
          ["wffy-3uut", "7"],
          ["8upq-58vz", "0"],
          ["8upq-58vz", "3"],
          ["8upq-58vz", "7"],
          ["ap62-sav4", "0"],
          ["ap62-sav4", "3"],
          ["4am6-w6u4", "0"],
        ]);
        expect(loadedTables(pulled)).toEqual(loadedTables(fromFiles));
        // --since: the office's date where a table has one (or none given), the portal's change time where it has none.
        const since = freshState("co-since");
        const from = co.requests.length;
        const recent = await importAsync([
          "--source",
          "co",
          "--pull",
          "--since",
          "2025-01-01",
          "--portal",
          coUrl,
          "--persist-to",
          since,
          ...outputs("6"),
        ]);
        expect(recent.status, recent.stderr).toBe(3);
        expect([...new Set(co.requests.slice(from).map((r) => `${r.dataset} ${r.params.$where}`))]).toEqual([
          "wffy-3uut (filingdate >= '2025-01-01T00:00:00' OR filingdate IS NULL)",
          "8upq-58vz :updated_at >= '2025-01-01T00:00:00'",
          "ap62-sav4 :updated_at >= '2025-01-01T00:00:00'",
          "4am6-w6u4 :updated_at >= '2025-01-01T00:00:00'",
        ]);
        expect(recent.stdout).toMatch(
          /^Imported: 3 records read: 1 inserted, 0 updated, 0 unchanged, 0 rejected; 0 loaded with warnings; 2 amendment records, 2 waiting for their filing/m,
        );
      } finally {
        await co.stop();
      }
    },
    TIMEOUT,
  );

  it(
    "pulls Oregon's month as its file loads",
    async () => {
      const or = new SocrataPortal();
      or.add("snfi-f79b", rowsOf("or-2026-01.json"), TEN_DAYS_AGO);
      const orUrl = await or.start();
      try {
        const fromFiles = freshState("or-files");
        expect(
          (
            await importAsync([
              "--source",
              "or",
              fixture("or-2026-01.json"),
              "--persist-to",
              fromFiles,
              ...outputs("or"),
            ])
          ).status,
        ).toBe(3);
        const pulled = freshState("or-pull");
        const pull = await importAsync([
          "--source",
          "or",
          "--pull",
          "--portal",
          orUrl,
          "--persist-to",
          pulled,
          ...outputs("7"),
        ]);
        expect(pull.status, pull.stderr).toBe(3);
        expect(loadedTables(pulled)).toEqual(loadedTables(fromFiles));
      } finally {
        await or.stop();
      }
    },
    TIMEOUT,
  );
});

function writeJson(path: string, rows: unknown[]) {
  writeFileSync(path, JSON.stringify(rows));
}
