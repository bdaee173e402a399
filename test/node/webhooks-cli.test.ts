/**
 * `npm run webhooks` as an operator runs it, and webhooks as a lender's
 * receiver meets them: subscriptions added to local state of the test's
 * own (--persist-to), a `wrangler dev` over that state, an in-process
 * import that nudges its dispatcher, and a local HTTP server that verifies
 * every delivery with the official `standardwebhooks` library. Wrangler's
 * dev registry is a directory of the test's own too, so no other local
 * session sees its queues.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../scripts/devServer.ts";
import { localD1File } from "../../scripts/shardConfig.ts";
import type { FilingRecord } from "../../src/db/records.ts";
import { lienLine } from "../../src/feed/export.ts";
import { type DevServer, devOnFreePorts } from "./devWorker.ts";
import { root, scriptEnv } from "./localState.ts";
import { migratedState } from "./templates.ts";

const work = mkdtempSync(join(tmpdir(), "webhooks-cli-"));
const state = join(work, "state");
const env = {
  ...scriptEnv,
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_REGISTRY_PATH: join(work, "registry"),
  CLOUDFLARE_DEV_REGISTRY_PATH: join(work, "dev-registry"),
};

function run(script: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [`scripts/${script}.ts`, ...args, "--persist-to", state], {
    cwd: root,
    encoding: "utf8",
    env,
  });
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    lines: result.stdout.trim().split("\n"),
  };
}
const webhooks = (...args: string[]) => run("webhooks", ...args);

const today = new Date().toISOString().slice(0, 10);
const party = (name: string) => ({
  name,
  type: "Organization" as const,
  label: null,
  address: { street1: "1 Main St", city: "Springfield", state: "CA", zipCode: "94107" },
});
const lien = (number: string, state: string, debtor: string, amendments: FilingRecord["amendments"] = []) => ({
  state,
  number,
  filedAt: "2026-01-05T10:00:00Z",
  kind: "standard" as const,
  debtors: [party(debtor)],
  securedParties: [party("First Test Bank, N.A.")],
  amendments,
});
const terminated = (number: string) => [
  { number: `${number}-T`, filedAt: `${today}T08:00:00Z`, kind: "termination" as const, description: "Termination" },
];
function feedFile(name: string, records: FilingRecord[]): string {
  const path = join(work, name);
  writeFileSync(path, `${records.map((r) => JSON.stringify(lienLine(r, today))).join("\n")}\n`);
  return path;
}

/**
 * A receiver: verifies each delivery with the official library under each
 * secret its subscription's path holds (every one must verify on its own),
 * and keeps it. /flaky answers 500 to its first request and /gone always
 * 410: their requests go to `tries`, the rest answer 204 and go to `got`.
 */
const got: { path: string; id: string; type: string; change: string; number: string }[] = [];
const tries: { path: string; id: string; timestamp: string; answered: number }[] = [];
const secrets = new Map<string, string[]>();
let receiver: Server;
let receiverPort: number;
let dev: DevServer | undefined;
let base = "";
let apiKey = "";

beforeAll(async () => {
  receiverPort = await freePort();
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const path = req.url ?? "";
      try {
        const held = secrets.get(path) ?? [];
        if (held.length === 0) throw new Error("no secret");
        for (const secret of held) new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch {
        res.writeHead(400).end();
        return;
      }
      if (path === "/flaky" || path === "/gone") {
        const first = !tries.some((t) => t.path === path);
        const answered = path === "/gone" ? 410 : first ? 500 : 204;
        const [id, timestamp] = [String(req.headers["webhook-id"]), String(req.headers["webhook-timestamp"])];
        tries.push({ path, id, timestamp, answered });
        res.writeHead(answered).end();
        return;
      }
      const sent = JSON.parse(body) as { type: string; data: { id: string; initial_financing_number: string } };
      got.push({
        path,
        id: String(req.headers["webhook-id"]),
        type: sent.type,
        change: sent.data.id,
        number: sent.data.initial_financing_number,
      });
      res.writeHead(204).end();
    });
  }).listen(receiverPort, "127.0.0.1");
  await once(receiver, "listening");
  // A database that holds filings (its first load is a backfill, which records no changes) and a key.
  migratedState(state);
  const backfill = feedFile("base.ndjson", [
    lien("E2E-1", "CA", "Acme Widgets LLC"),
    lien("E2E-2", "TX", "Lone Star Freight Inc"),
    lien("E2E-3", "NY", "Harbor Foods Inc"),
  ]);
  expect(run("import", backfill).status).toBe(0);
  const created = run("keys", "create", "--name", "Lender A");
  expect(created.status).toBe(0);
  apiKey = created.lines.at(-1) ?? "";
}, 120_000);

afterAll(async () => {
  await dev?.end();
  receiver?.close();
  rmSync(work, { recursive: true, force: true });
});

describe("npm run webhooks", () => {
  it("refuses an ftp: or private-address URL, an unknown key, an empty or malformed watchlist, clearly, and creates nothing", () => {
    const empty = join(work, "empty.txt");
    writeFileSync(empty, "\n  \n");
    const malformed = join(work, "malformed.txt");
    writeFileSync(malformed, "Acme Widgets LLC\n*** --- !!!\n");
    const binary = join(work, "binary.txt");
    writeFileSync(binary, Buffer.from([0x41, 0xff, 0xfe, 0x00]));
    const url = `http://127.0.0.1:${receiverPort}/x`;
    const cases: [string[], string][] = [
      [["--url", "ftp://example.com/hook"], "--url ftp://example.com/hook: must be https"],
      [["--url", "https://192.168.1.10/hook"], "a host written as an IP address is not allowed"],
      [["--url", "http://10.0.0.8/hook"], "must be https (or http to a loopback address, locally)"],
      [["--url", url, "--debtors", empty], `--debtors ${empty}: holds no name (one name a line)`],
      [
        ["--url", url, "--debtors", malformed],
        `--debtors ${malformed}: line 2: "*** --- !!!" has no letter or digit to match`,
      ],
      [["--url", url, "--debtors", binary], `--debtors ${binary}: is not UTF-8 text`],
      [["--url", url, "--types", "filing.exploded"], "--types: unknown type filing.exploded"],
      [["--url", url, "--states", "CA,ZZ"], "--states: ZZ is not a US state or territory code"],
    ];
    for (const [args, message] of cases) {
      const result = webhooks("add", "--key", "Lender A", ...args);
      expect(result.status, result.stderr).toBe(2);
      expect(result.stderr).toContain(message);
    }
    const unknown = webhooks("add", "--key", "Nobody", "--url", url);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("--key Nobody: no such API key");
    expect(webhooks("list").lines).toEqual([expect.stringMatching(/^ID\s+STATUS/)]);
  }, 240_000);

  it("sends a load's changes, signed, to each subscription that wants them: again under the same webhook-id after a failure, not after a 410, under both secrets after a rotation, and again on redelivery", async () => {
    const debtors = join(work, "debtors.txt");
    writeFileSync(debtors, "Acme Widgets\r\nJohn Smith\n");
    const add = (path: string, ...args: string[]) => {
      const result = webhooks("add", "--key", "Lender A", "--url", `http://127.0.0.1:${receiverPort}${path}`, ...args);
      expect(result.status, result.stderr).toBe(0);
      const [id, secret] = result.lines.slice(-2);
      expect(id).toMatch(/^wh_[a-z2-7]{20}$/);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      secrets.set(path, [secret ?? ""]);
      return id ?? "";
    };
    const watching = add("/watch", "--debtors", debtors, "--types", "filing.created,filing.terminated");
    const texas = add("/texas", "--states", "TX");
    add("/flaky", "--states", "CA");
    const gone = add("/gone", "--states", "NY");
    expect(webhooks("list").lines).toHaveLength(5);

    dev = await devOnFreePorts(["--persist-to", state], env);
    const { port } = dev;
    base = dev.base;
    const delta = feedFile("delta.ndjson", [
      lien("E2E-1", "CA", "Acme Widgets LLC", terminated("E2E-1")),
      lien("E2E-2", "TX", "Lone Star Freight Inc", terminated("E2E-2")),
      lien("E2E-3", "NY", "Harbor Foods Inc", terminated("E2E-3")),
      lien("E2E-4", "NY", "ACME WIDGETS, INC."),
    ]);
    const imported = run("import", delta, "--port", String(port));
    expect(imported.stderr).toContain("webhooks: the dispatcher was nudged");
    for (let i = 0; i < 60 && got.length < 3; i++) await new Promise((r) => setTimeout(r, 500));
    await new Promise((r) => setTimeout(r, 1_000));
    // Exactly what the change feed's own filters give.
    const feed = async (query: string) =>
      (
        (await (await fetch(`${base}/filings/changes?${query}`, { headers: { "x-api-key": apiKey } })).json()) as {
          changes: { id: string }[];
        }
      ).changes.map((c) => c.id);
    const sorted = (path: string) =>
      got
        .filter((g) => g.path === path)
        .map((g) => g.change)
        .sort();
    expect(sorted("/watch")).toEqual((await feed("debtor_name=Acme%20Widgets")).sort());
    expect(sorted("/watch")).toHaveLength(2);
    expect(sorted("/texas")).toEqual(await feed("state=TX"));
    expect(got).toHaveLength(3);

    // A receiver that failed the first attempt gets the message again, with the same webhook-id, about 5 s
    // later; one that answered 410 Gone is sent nothing more.
    const waiting = () => tries.filter((t) => t.path === "/flaky").length < 2 || !tries.some((t) => t.path === "/gone");
    for (let i = 0; i < 60 && waiting(); i++) {
      await new Promise((r) => setTimeout(r, 500));
    }
    const flaky = tries.filter((t) => t.path === "/flaky");
    expect(flaky.map((t) => t.answered)).toEqual([500, 204]);
    expect(flaky[1]?.id).toBe(flaky[0]?.id);
    expect(Number(flaky[1]?.timestamp)).toBeGreaterThanOrEqual(Number(flaky[0]?.timestamp) + 4);
    expect(webhooks("show", gone).stdout).toMatch(/status\s+disabled: the receiver answered 410 Gone/);

    const log = webhooks("deliveries", watching);
    expect(log.status).toBe(0);
    expect(log.lines.slice(1).map((l) => l.split(/\s+/)[1])).toEqual(["delivered", "delivered"]);

    // Three days of failures leave a delivery failed; redeliver sends it again, with the same webhook-id.
    const [first] = got.filter((g) => g.path === "/texas");
    const shard = new DatabaseSync(localD1File("00000000-0000-4000-8000-000000000001", state));
    shard.exec("update webhook_deliveries set status = 'failed', attempts = 10");
    shard.close();
    expect(webhooks("deliveries", texas, "--failed").lines).toHaveLength(2);
    const replay = webhooks("redeliver", texas, "--port", String(port));
    expect(replay.stderr).toContain("1 failed delivery sent again");
    for (let i = 0; i < 40 && got.length < 4; i++) await new Promise((r) => setTimeout(r, 500));
    expect(got.at(-1)).toMatchObject({ path: "/texas", id: first?.id, change: first?.change });

    // Rotated: the next delivery verifies under the old secret and under the new one, each on its own;
    // disabled: nothing is sent; removed: gone.
    const rotated = webhooks("rotate", watching);
    secrets.set("/watch", [...(secrets.get("/watch") ?? []), rotated.lines.at(-1) ?? ""]);
    const shown = webhooks("show", watching).stdout;
    expect(shown).toMatch(/previous secret\s+signs until/);
    expect(shown).toMatch(/debtors\s+2: Acme Widgets; John Smith/);
    expect(webhooks("disable", texas).status).toBe(0);
    run("import", feedFile("later.ndjson", [lien("E2E-5", "TX", "Acme Widgets LLC")]), "--port", String(port));
    for (let i = 0; i < 40 && got.length < 5; i++) await new Promise((r) => setTimeout(r, 500));
    await new Promise((r) => setTimeout(r, 2_000));
    expect(got.slice(4).map((g) => [g.path, g.number])).toEqual([["/watch", "E2E-5"]]);
    expect(webhooks("remove", texas).status).toBe(0);
    expect(webhooks("list").lines).toHaveLength(4);
  }, 420_000);
});
