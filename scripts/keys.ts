/**
 * Issues, lists and revokes API keys in the API_KEYS namespace, through
 * wrangler, so local and deployed namespaces are handled the same way.
 *
 *   npm run keys -- create --name "Acme Lending"   # prints the key once, last line
 *   npm run keys -- list
 *   npm run keys -- revoke KEY
 *
 * Local state is the default; --remote targets the deployed namespace.
 * Keys are stored only as SHA-256 digests; a key cannot be shown again.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import { hashKey, isKeyMetadata, type KeyMetadata } from "../src/domain/apiKeys.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    remote: { type: "boolean", default: false },
  },
});
const where = values.remote ? "--remote" : "--local";
const [command, arg] = positionals;

function wrangler(args: string[]): string {
  return execFileSync("wrangler", ["kv", "key", ...args, "--binding", "API_KEYS", where], {
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

switch (command) {
  case "create": {
    if (!values.name?.trim()) throw usage("create needs --name LABEL");
    // 256 random bits; the prefix makes a leaked key easy to recognize in scans.
    const key = `lfk_${randomBytes(32).toString("base64url")}`;
    store(await hashKey(key), { label: values.name.trim(), created: new Date().toISOString(), status: "active" });
    console.error(`Created key "${values.name.trim()}" (${where.slice(2)}). It is shown once; store it now:`);
    console.log(key);
    break;
  }
  case "list": {
    for (const { name, metadata } of entries()) {
      console.log(`${name.slice(0, 12)}  ${metadata.status.padEnd(8)} ${metadata.created}  ${metadata.label}`);
    }
    break;
  }
  case "revoke": {
    if (!arg) throw usage("revoke needs the KEY");
    const digest = await hashKey(arg);
    const [found] = entries(digest);
    if (!found) throw usage("no such key");
    store(digest, { ...found.metadata, status: "revoked" });
    console.log(`Revoked key "${found.metadata.label}".`);
    break;
  }
  default:
    throw usage(`unknown command ${command ?? "(none)"}`);
}

function usage(problem: string): Error {
  console.error(`${problem}\nusage: npm run keys -- create --name LABEL | list | revoke KEY  [--remote]`);
  process.exit(2);
}
