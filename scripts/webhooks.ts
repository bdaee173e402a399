/**
 * Manages webhook subscriptions (src/webhooks/, docs/webhooks.md): the
 * operator's side, as `npm run keys` is for API keys. The API itself stays
 * read-only. Run through npm:
 *
 *   npm run webhooks -- add --key NAME --url URL [--types T,...] [--states XX,...] [--debtors FILE] [--secured-parties FILE]
 *   npm run webhooks -- list
 *   npm run webhooks -- show ID
 *   npm run webhooks -- watch ID [--debtors FILE] [--secured-parties FILE]   # replaces the lists given
 *   npm run webhooks -- rotate ID          # a new secret; the old one signs too for 24 hours
 *   npm run webhooks -- disable ID | enable ID | remove ID
 *   npm run webhooks -- deliveries ID [--failed] [--limit N]
 *   npm run webhooks -- redeliver ID [--since TIME]   # sends again what failed
 *   npm run webhooks -- nudge              # matches new changes now
 *   npm run webhooks -- keygen             # the key pair an environment seals secrets with
 *
 * Local state is the default (the top level of wrangler.toml, --persist-to
 * DIR as wrangler's own option); --remote targets a deployed environment,
 * production's or preview's with --env preview. Subscriptions live in the
 * default shard's D1 database; API keys are found in the API_KEYS namespace
 * as npm run keys finds them (scripts/apiKeyStore.ts). `add` and `rotate` print
 * the secret once, as the last line of stdout (the id first, for add); it
 * is stored sealed with the environment's WEBHOOK_PUBLIC_KEY, which only
 * the Worker can open. redeliver and nudge reach the queues of the local
 * npm start (on --port, 8787) or of the environment.
 *
 * Exit status: 0 done, 1 failed, 2 usage or a refused input (nothing is
 * written then).
 */
import { readFileSync } from "node:fs";
import { DEFAULT_SHARD } from "../src/db/shards.ts";
import { isUsable } from "../src/domain/apiKeys.ts";
import type { ChangeType } from "../src/domain/kinds.ts";
import { ROTATION_OVERLAP_MS } from "../src/webhooks/deliver.ts";
import { receiverProblem } from "../src/webhooks/receivers.ts";
import { newSealingKeys, newSecret, sealSecret } from "../src/webhooks/secrets.ts";
import {
  createSubscription,
  findSubscription,
  listDeliveries,
  listSubscriptions,
  newestChanges,
  newSubscriptionId,
  removeSubscription,
  reopenFailed,
  replaceWatchlist,
  rotateSecret,
  type Subscription,
  setStatus,
  watchedNames,
} from "../src/webhooks/store.ts";
import { parseStates, parseTypes, parseWatchlist, type WatchKind, type WatchRow } from "../src/webhooks/watchlists.ts";
import { listKeys, type StoredKey } from "./apiKeyStore.ts";
import { describeTarget, feedCommandLine, migrateLocal, openShards, type Target } from "./feedDb.ts";
import { CONFIG, configVars } from "./shardConfig.ts";
import { nudgeWebhooks, openWebhookQueues } from "./webhookQueues.ts";

const USAGE = `usage: npm run webhooks -- add --key NAME --url URL [--types T,...] [--states XX,...] [--debtors FILE] [--secured-parties FILE]
       | list | show ID | watch ID [--debtors FILE] [--secured-parties FILE] | rotate ID
       | disable ID | enable ID | remove ID | deliveries ID [--failed] [--limit N] | redeliver ID [--since TIME]
       | nudge | keygen
       [--remote [--env production|preview] | --persist-to DIR] [--port N]
  --key NAME: the API key's label (npm run keys -- list), or the start of its DIGEST
  --debtors FILE, --secured-parties FILE: one name a line; debtors by the exact-name rule of /debtors/search, lenders by whole leading words`;

const { values, positionals, target, fail } = feedCommandLine(
  USAGE,
  {
    key: { type: "string" },
    url: { type: "string" },
    types: { type: "string" },
    states: { type: "string" },
    debtors: { type: "string" },
    "secured-parties": { type: "string" },
    failed: { type: "boolean" },
    limit: { type: "string" },
    since: { type: "string" },
    port: { type: "string" },
  },
  true,
);
const [command, id, ...extra] = positionals;
if (extra.length > 0) fail(`unexpected ${extra.join(" ")}`);
const port = Number(values.port ?? 8787);
if (!Number.isInteger(port) || port < 1 || port > 65_535) fail(`--port ${values.port}: not a port`);

/** Refused input: says why, writes nothing, exits 2. */
function refuse(problem: string): never {
  console.error(problem);
  process.exit(2);
}

/** The environment's vars (wrangler.toml; the top level is local). */
const varsOf = (t: Target) => configVars(t.remote ? (t.env ?? "production") : undefined);

/** The usable API key named `name` (its label, or the start of its digest). */
async function findKey(t: Target, name: string): Promise<StoredKey> {
  const keys = await listKeys(t);
  const byDigest = /^[0-9a-f]{8,64}$/.test(name) ? keys.filter((k) => k.digest.startsWith(name)) : [];
  const found = byDigest.length > 0 ? byDigest : keys.filter((k) => k.metadata.label === name);
  if (found.length === 0) refuse(`--key ${name}: no such API key (npm run keys -- list shows them)`);
  const usable = found.filter((k) => isUsable(k.metadata, new Date()));
  if (usable.length === 0) refuse(`--key ${name}: the key is revoked or expired`);
  if (usable.length > 1)
    refuse(`--key ${name}: ${usable.length} active keys have this label; give the start of its DIGEST`);
  return usable[0] as StoredKey;
}

/** A watchlist file's rows, or a refusal naming the file and line. */
function watchlistOf(option: string, kind: WatchKind): WatchRow[] {
  const path = values[option as "debtors" | "secured-parties"];
  if (path === undefined) return [];
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    return refuse(
      `--${option} ${path}: cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
    );
  }
  const parsed = parseWatchlist(bytes, kind);
  if (!parsed.ok) refuse(`--${option} ${path}: ${parsed.problem}`);
  return parsed.value;
}

async function checkedUrl(t: Target, url: string): Promise<string> {
  const vars = await varsOf(t);
  const problem = await receiverProblem(url, { localReceivers: vars.WEBHOOK_LOCAL_RECEIVERS === "true" });
  if (problem) refuse(`--url ${url}: ${problem}`);
  return new URL(url).toString();
}

async function publicKey(t: Target): Promise<string> {
  const key = (await varsOf(t)).WEBHOOK_PUBLIC_KEY;
  if (typeof key !== "string" || key.startsWith("REPLACE_WITH")) {
    return refuse(
      `${CONFIG}${t.remote ? ` [env.${t.env ?? "production"}]` : ""} has no WEBHOOK_PUBLIC_KEY yet: npm run webhooks -- keygen (docs/deploying.md)`,
    );
  }
  return key;
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

function needsId(): string {
  if (!id) fail(`${command} needs the subscription's ID`);
  return id as string;
}

/** The options each command takes beyond the target's. */
const OPTIONS: Record<string, string[]> = {
  add: ["key", "url", "types", "states", "debtors", "secured-parties"],
  list: [],
  show: [],
  watch: ["debtors", "secured-parties"],
  rotate: [],
  disable: [],
  enable: [],
  remove: [],
  deliveries: ["failed", "limit"],
  redeliver: ["since", "port"],
  nudge: ["port"],
  keygen: [],
};
if (command === undefined || !(command in OPTIONS)) fail(`unknown command ${command ?? "(none)"}`);
const allowed = new Set([...(OPTIONS[command as string] ?? []), "remote", "env", "persist-to"]);
for (const [option, value] of Object.entries(values)) {
  if (value !== undefined && !(option === "remote" && value === false) && !allowed.has(option)) {
    fail(`${command} takes no --${option}`);
  }
}
if (["list", "nudge", "keygen"].includes(command as string) && id !== undefined) fail(`${command} takes no ID`);

if (command === "keygen") {
  const { publicKey: pub, privateKey } = await newSealingKeys();
  console.error(
    "A new key pair for an environment's webhook secrets. Put the public key in wrangler.toml as that environment's WEBHOOK_PUBLIC_KEY, and the private key (the last line) in its secret: wrangler secret put WEBHOOK_PRIVATE_KEY --env ENV. Store it nowhere else.",
  );
  console.log(pub);
  console.log(privateKey);
  process.exit(0);
}
if (command === "nudge") {
  console.error(await nudgeWebhooks(target, port, "npm run webhooks -- nudge"));
  process.exit(0);
}

// Everything checkable before a database is opened: the input, then the key and the URL.
const now = new Date();
let input:
  | { types: ChangeType[] | null; states: string[] | null; watch: WatchRow[]; digest: string; url: string }
  | undefined;
if (command === "add") {
  if (!values.key) fail("add needs --key NAME");
  if (!values.url) fail("add needs --url URL");
  const types = values.types === undefined ? null : parseTypes(values.types);
  if (types && !types.ok) refuse(`--types: ${types.problem}`);
  const states = values.states === undefined ? null : parseStates(values.states);
  if (states && !states.ok) refuse(`--states: ${states.problem}`);
  const watch = [...watchlistOf("debtors", "debtor"), ...watchlistOf("secured-parties", "secured_party")];
  const url = await checkedUrl(target, values.url as string);
  const { digest } = await findKey(target, values.key as string);
  input = {
    types: types?.ok ? types.value : null,
    states: states?.ok ? states.value : null,
    watch,
    digest,
    url,
  };
}
if (command === "watch" && values.debtors === undefined && values["secured-parties"] === undefined) {
  fail("watch needs --debtors FILE or --secured-parties FILE (or both)");
}
const watchRows =
  command === "watch" ? [...watchlistOf("debtors", "debtor"), ...watchlistOf("secured-parties", "secured_party")] : [];
let since: Date | null = null;
if (values.since !== undefined) {
  const at = Date.parse(values.since);
  if (Number.isNaN(at))
    refuse(`--since ${values.since}: not a time (ISO 8601, such as 2026-11-20 or 2026-11-20T08:00:00Z)`);
  since = new Date(at);
}
const limit = Number(values.limit ?? 50);
if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
  refuse(`--limit ${values.limit}: a whole number from 1 to 10000`);

if (!target.remote) await migrateLocal(target);
// Every shard for what reads each one's newest change (a new subscription's start, an enabled one's).
const everyShard = command === "add" || command === "enable";
const { shards, dispose } = await openShards(target, everyShard ? undefined : [DEFAULT_SHARD]);
const db = shards.databases.get(DEFAULT_SHARD);
if (!db) throw new Error("no default shard");
const place = describeTarget(target);

async function subscription(): Promise<Subscription> {
  const found = await findSubscription(db as NonNullable<typeof db>, needsId());
  if (!found) refuse(`${id}: no such subscription in the ${place} (npm run webhooks -- list)`);
  return found;
}

const row = (cells: string[], widths: number[]) =>
  cells
    .map((c, i) => c.padEnd(widths[i] ?? 0))
    .join("  ")
    .trimEnd();

try {
  switch (command) {
    case "add": {
      const given = input as NonNullable<typeof input>;
      const secret = newSecret();
      const publicId = newSubscriptionId();
      await createSubscription(db, {
        publicId,
        keyDigest: given.digest,
        url: given.url,
        types: given.types,
        states: given.states,
        watch: given.watch,
        sealedSecret: await sealSecret(secret, await publicKey(target)),
        starts: await newestChanges(shards.databases),
        now,
      });
      const sub = (await findSubscription(db, publicId)) as Subscription;
      console.error(
        `Added ${publicId} (${place}) for ${given.url}: ${describeFilter(sub)}. Its signing secret is shown once, as the last line; store it now.`,
      );
      console.log(publicId);
      console.log(secret);
      break;
    }
    case "list": {
      const widths = [23, 8, 12, 44, 10, 10, 20];
      console.log(row(["ID", "STATUS", "KEY", "URL", "DEBTORS", "LENDERS", "CREATED"], widths));
      for (const s of await listSubscriptions(db)) {
        console.log(
          row(
            [
              s.publicId,
              s.status,
              s.keyDigest.slice(0, 12),
              s.url,
              String(s.debtors),
              String(s.securedParties),
              s.createdAt,
            ],
            widths,
          ),
        );
      }
      break;
    }
    case "show": {
      const s = await subscription();
      const lines: [string, string][] = [
        ["id", s.publicId],
        ["status", s.status === "enabled" ? "enabled" : `disabled: ${s.disabledReason ?? "by the operator"}`],
        ["key", `${s.keyDigest.slice(0, 12)} (DIGEST of npm run keys -- list)`],
        ["url", s.url],
        ["sends", describeFilter(s)],
        ["created", s.createdAt],
        ["failing since", s.failingSince ?? "-"],
        [
          "previous secret",
          s.previousUntil && Date.parse(s.previousUntil) > Date.now() ? `signs until ${s.previousUntil}` : "-",
        ],
      ];
      for (const [kind, label] of [
        ["debtor", "debtors"],
        ["secured_party", "lenders"],
      ] as const) {
        const names = await watchedNames(db, s, kind);
        if (names.length === 0) continue;
        const shown = names.slice(0, 10).join("; ");
        lines.push([label, `${names.length.toLocaleString("en-US")}: ${shown}${names.length > 10 ? "; ..." : ""}`]);
      }
      for (const [k, v] of lines) console.log(`${k.padEnd(16)} ${v}`);
      break;
    }
    case "watch": {
      const s = await subscription();
      const kinds: WatchKind[] = [];
      if (values.debtors !== undefined) kinds.push("debtor");
      if (values["secured-parties"] !== undefined) kinds.push("secured_party");
      await replaceWatchlist(db, s, kinds, watchRows, now);
      console.error(
        `${s.publicId} now sends: ${describeFilter((await findSubscription(db, s.publicId)) as Subscription)}`,
      );
      break;
    }
    case "rotate": {
      const s = await subscription();
      const secret = newSecret();
      const until = new Date(now.getTime() + ROTATION_OVERLAP_MS);
      await rotateSecret(db, s, await sealSecret(secret, await publicKey(target)), until, now);
      console.error(
        `${s.publicId} has a new secret, shown once as the last line. The old one signs too until ${until.toISOString()}: deploy the new one to the receiver before then.`,
      );
      console.log(secret);
      break;
    }
    case "disable":
    case "enable": {
      const s = await subscription();
      const enabling = command === "enable";
      const newest = enabling ? await newestChanges(shards.databases) : undefined;
      await setStatus(db, s.id, enabling, enabling ? null : "by the operator", now, newest);
      console.error(
        command === "enable"
          ? `${s.publicId} enabled: it is sent changes recorded from now on (not those while it was disabled).`
          : `${s.publicId} disabled: nothing is sent until it is enabled.`,
      );
      break;
    }
    case "remove": {
      const s = await subscription();
      await removeSubscription(db, s);
      console.error(`${s.publicId} removed, with its watchlist and delivery log.`);
      break;
    }
    case "deliveries": {
      const s = await subscription();
      const widths = [20, 9, 8, 6, 14, 18, 0];
      console.log(row(["FIRST TRIED", "STATUS", "ATTEMPTS", "LAST", "CHANGE", "TYPE", "ERROR"], widths));
      for (const d of await listDeliveries(db, s, { failed: values.failed === true, limit })) {
        console.log(
          row(
            [
              d.createdAt,
              d.status,
              String(d.attempts),
              String(d.lastStatus ?? "-"),
              d.change,
              d.type,
              d.lastError ?? "",
            ],
            widths,
          ),
        );
      }
      break;
    }
    case "redeliver": {
      const s = await subscription();
      const queues = await openWebhookQueues(target, port);
      if (!queues) refuse(`no local session on port ${port} to send them: npm start first (or --port N)`);
      try {
        const reopened = await reopenFailed(db, s, since, now);
        for (let i = 0; i < reopened.length; i += 100) {
          await queues.deliveries.sendBatch(
            reopened.slice(i, i + 100).map((d) => ({
              body: {
                subscription: d.subscription,
                publicId: s.publicId,
                shard: d.shard,
                seq: d.seq,
                change: d.change,
                type: d.type,
              },
              contentType: "json" as const,
            })),
          );
        }
        console.error(`${s.publicId}: ${count(reopened.length, "failed delivery", "failed deliveries")} sent again.`);
      } finally {
        await queues.dispose();
      }
      break;
    }
  }
} catch (err) {
  console.error(`webhooks ${command} failed: ${(err as Error).message}`);
  process.exitCode = 1;
} finally {
  await dispose();
}

function describeFilter(s: Subscription): string {
  const parts = [
    s.types === null ? "every type" : s.types.split("|").join(", "),
    s.states === null ? "every state" : s.states.split("|").join(", "),
  ];
  if (s.debtors > 0 || s.securedParties > 0) {
    parts.push(`of ${count(s.debtors, "watched debtor")} or ${count(s.securedParties, "watched lender")}`);
  }
  return parts.join("; ");
}
