/**
 * Issues, lists, revokes and rotates API keys in the API_KEYS namespace,
 * local or deployed (scripts/apiKeyStore.ts).
 *
 *   npm run keys -- create --name "Acme Lending" [--expires 2027-12-31] [--rate-limit bulk]
 *   npm run keys -- list
 *   npm run keys -- revoke KEY
 *   npm run keys -- rotate KEY          # revokes KEY, issues a new one like it
 *
 * A new key is printed once, as the last line of stdout. Keys are stored only
 * as SHA-256 digests and cannot be shown again. Local state is the default;
 * --remote targets a deployed namespace: production's, or preview's with
 * --env preview (wrangler.toml's top level is local only).
 */
import { randomBytes } from "node:crypto";
import { hashKey, isUsable, type KeyMetadata, RATE_TIERS, type RateTier } from "../src/domain/apiKeys.ts";
import { isCalendarDay } from "../src/domain/time.ts";
import { listKeys, putKey } from "./apiKeyStore.ts";
import { commandLine, usageError } from "./commandLine.ts";
import type { Target } from "./feedDb.ts";

const USAGE =
  "usage: npm run keys -- create --name LABEL [--expires YYYY-MM-DD] [--rate-limit standard|bulk|unmetered]\n" +
  "                      | list | revoke KEY | rotate KEY     [--remote [--env production|preview] | --persist-to DIR]";

const { values, positionals } = commandLine(USAGE, {
  allowPositionals: true,
  options: {
    name: { type: "string" },
    expires: { type: "string" },
    "rate-limit": { type: "string" },
    remote: { type: "boolean", default: false },
    env: { type: "string" },
    // Local state elsewhere than .wrangler/state (tests).
    "persist-to": { type: "string" },
  },
});
const [command, arg] = positionals;

function fail(problem: string): never {
  return usageError(USAGE, problem);
}

// The top level's namespace id is a local placeholder, so --remote always
// names a deployed environment, production unless told otherwise.
const ENVIRONMENTS = ["production", "preview"];
if (values.env !== undefined && !values.remote) fail("--env needs --remote (local state has one namespace)");
if (values.env !== undefined && !ENVIRONMENTS.includes(values.env))
  fail(`--env must be one of ${ENVIRONMENTS.join(", ")}`);
if (values["persist-to"] !== undefined && values.remote) fail("--persist-to is for local state only");
const target: Target = values.remote
  ? { remote: true, env: values.env ?? "production" }
  : { remote: false, ...(values["persist-to"] ? { persistTo: values["persist-to"] } : {}) };
const store = (digest: string, metadata: KeyMetadata) => putKey(target, digest, metadata);

async function find(key: string | undefined): Promise<{ digest: string; metadata: KeyMetadata }> {
  if (!key) fail(`${command} needs the KEY`);
  const digest = await hashKey(key);
  const found = (await listKeys(target, digest)).find((e) => e.digest === digest);
  if (!found) fail("no such key");
  return { digest, metadata: found.metadata };
}

/** Stores a new key with `metadata` and returns it: the caller prints it, once, as its last line. */
async function issue(metadata: Omit<KeyMetadata, "created" | "status">): Promise<string> {
  // 256 random bits; the prefix makes a leaked key easy to spot in scans.
  const key = `lfk_${randomBytes(32).toString("base64url")}`;
  store(await hashKey(key), { ...metadata, created: new Date().toISOString(), status: "active" });
  return key;
}
const place = target.remote ? `remote, ${target.env}` : "local";

switch (command) {
  case "create": {
    const label = values.name?.trim();
    if (!label) fail("create needs --name LABEL");
    const tier = values["rate-limit"] ?? "standard";
    if (!RATE_TIERS.includes(tier as RateTier)) fail(`--rate-limit must be one of ${RATE_TIERS.join(", ")}`);
    let expires: string | undefined;
    if (values.expires) {
      const at = Date.parse(values.expires.length === 10 ? `${values.expires}T23:59:59Z` : values.expires);
      // Date.parse rolls a day past its month's end into the next month (2027-02-30 is March 2): such a day is refused.
      if (!isCalendarDay(values.expires.slice(0, 10)) || Number.isNaN(at) || at <= Date.now()) {
        fail("--expires must be a future date, YYYY-MM-DD or ISO 8601");
      }
      expires = new Date(at).toISOString();
    }
    const key = await issue({ label, rateLimit: tier as RateTier, ...(expires ? { expires } : {}) });
    console.error(`Issued key "${label}" (${place}). It is shown once; store it now:`);
    console.log(key);
    break;
  }
  case "list": {
    // DIGEST is the start of the key's SHA-256: keys themselves are not stored.
    const row = (digest: string, status: string, rate: string, created: string, expires: string, label: string) =>
      `${digest.padEnd(12)}  ${status.padEnd(8)}  ${rate.padEnd(10)}  ${created.padEnd(24)}  ${expires.padEnd(24)}  ${label}`;
    console.log(row("DIGEST", "STATUS", "RATE", "CREATED", "EXPIRES", "LABEL"));
    for (const { digest, metadata: m } of await listKeys(target)) {
      console.log(
        row(digest.slice(0, 12), m.status, m.rateLimit ?? "standard", m.created, m.expires ?? "never", m.label),
      );
    }
    break;
  }
  case "revoke": {
    const { digest, metadata } = await find(arg);
    store(digest, { ...metadata, status: "revoked" });
    console.log(`Revoked key "${metadata.label}".`);
    break;
  }
  case "rotate": {
    const { digest, metadata } = await find(arg);
    if (metadata.status !== "active") fail("only an active key can be rotated");
    // Its replacement would inherit the past expiry and be refused from its first request.
    if (!isUsable(metadata, new Date())) fail(`the key expired at ${metadata.expires}: create a new one instead`);
    const { created: _, status: __, ...kept } = metadata;
    // The new key exists before the old one stops working.
    const key = await issue(kept);
    store(digest, { ...metadata, status: "revoked" });
    console.error(
      `Revoked the old key "${metadata.label}" and issued a new one (${place}). It is shown once; store it now:`,
    );
    console.log(key);
    break;
  }
  default:
    fail(`unknown command ${command ?? "(none)"}`);
}
