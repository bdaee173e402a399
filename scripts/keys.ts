/**
 * Issues, lists, revokes and rotates API keys in the API_KEYS namespace,
 * through wrangler, so local and deployed namespaces are handled alike.
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
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { hashKey, isKeyMetadata, type KeyMetadata, RATE_TIERS, type RateTier } from "../src/domain/apiKeys.ts";

const USAGE =
  "usage: npm run keys -- create --name LABEL [--expires YYYY-MM-DD] [--rate-limit standard|bulk|unmetered]\n" +
  "                      | list | revoke KEY | rotate KEY     [--remote [--env production|preview]]";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    expires: { type: "string" },
    "rate-limit": { type: "string" },
    remote: { type: "boolean", default: false },
    env: { type: "string" },
  },
});
const where = values.remote ? "--remote" : "--local";
const [command, arg] = positionals;

function fail(problem: string): never {
  console.error(`${problem}\n${USAGE}`);
  process.exit(2);
}

// The top level's namespace id is a local placeholder, so --remote always
// names a deployed environment, production unless told otherwise.
const ENVIRONMENTS = ["production", "preview"];
if (values.env !== undefined && !values.remote) fail("--env needs --remote (local state has one namespace)");
if (values.env !== undefined && !ENVIRONMENTS.includes(values.env))
  fail(`--env must be one of ${ENVIRONMENTS.join(", ")}`);
const target = values.remote ? ["--env", values.env ?? "production"] : [];

function wrangler(args: string[]): string {
  return execFileSync("wrangler", ["kv", "key", ...args, "--binding", "API_KEYS", where, ...target], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
}

function store(digest: string, metadata: KeyMetadata): void {
  wrangler(["put", digest, JSON.stringify(metadata), "--metadata", JSON.stringify(metadata)]);
}

function entries(prefix?: string): { name: string; metadata: KeyMetadata }[] {
  const out = wrangler(["list", ...(prefix ? ["--prefix", prefix] : [])]);
  const list = JSON.parse(out.slice(out.indexOf("["))) as { name: string; metadata?: unknown }[];
  return list.flatMap((e) => (isKeyMetadata(e.metadata) ? [{ name: e.name, metadata: e.metadata }] : []));
}

async function find(key: string | undefined): Promise<{ digest: string; metadata: KeyMetadata }> {
  if (!key) fail(`${command} needs the KEY`);
  const digest = await hashKey(key);
  const found = entries(digest).find((e) => e.name === digest);
  if (!found) fail("no such key");
  return { digest, metadata: found.metadata };
}

/** Stores a new key with `metadata` and prints it, once. */
async function issue(metadata: Omit<KeyMetadata, "created" | "status">): Promise<void> {
  // 256 random bits; the prefix makes a leaked key easy to spot in scans.
  const key = `lfk_${randomBytes(32).toString("base64url")}`;
  store(await hashKey(key), { ...metadata, created: new Date().toISOString(), status: "active" });
  const place = values.remote ? `remote, ${target[1]}` : "local";
  console.error(`Issued key "${metadata.label}" (${place}). It is shown once; store it now:`);
  console.log(key);
}

switch (command) {
  case "create": {
    const label = values.name?.trim();
    if (!label) fail("create needs --name LABEL");
    const tier = values["rate-limit"] ?? "standard";
    if (!RATE_TIERS.includes(tier as RateTier)) fail(`--rate-limit must be one of ${RATE_TIERS.join(", ")}`);
    let expires: string | undefined;
    if (values.expires) {
      const at = Date.parse(values.expires.length === 10 ? `${values.expires}T23:59:59Z` : values.expires);
      if (Number.isNaN(at) || at <= Date.now()) fail("--expires must be a future date, YYYY-MM-DD or ISO 8601");
      expires = new Date(at).toISOString();
    }
    await issue({ label, rateLimit: tier as RateTier, ...(expires ? { expires } : {}) });
    break;
  }
  case "list": {
    for (const { name, metadata: m } of entries()) {
      const expiry = m.expires ? `expires ${m.expires}` : "no expiry";
      console.log(
        `${name.slice(0, 12)}  ${m.status.padEnd(8)} ${(m.rateLimit ?? "standard").padEnd(10)} ${m.created}  ${expiry.padEnd(32)} ${m.label}`,
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
    const { created: _, status: __, ...kept } = metadata;
    await issue(kept);
    store(digest, { ...metadata, status: "revoked" });
    console.error(`Revoked the old key "${metadata.label}".`);
    break;
  }
  default:
    fail(`unknown command ${command ?? "(none)"}`);
}
