/**
 * Completes package-lock.json with the other platforms' optional binaries
 * (biome's and workerd's macOS, Windows, musl and Android builds) that the
 * registry mirror here does not serve at the pinned versions.
 *
 * npm writes no entry for an optional dependency it could not fetch, and
 * `npm ci` then counts that dependency as missing from the lock file and
 * refuses to install. An entry with the version the parent pins and the
 * package's `os`/`cpu`/`libc` is what npm itself writes on a machine that
 * reaches every build: npm skips it on any other platform without fetching
 * it. The entries carry no `integrity`, since the mirror has no tarball to
 * hash; a machine of that platform fetches the pinned version unchecked.
 *
 *   npm install && npm run lock:platforms && rm -rf node_modules && npm ci
 *
 * `--check` changes nothing and exits 1 when an entry is missing (CI).
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
interface Platform {
  os: string[];
  cpu: string[];
  libc?: string[];
}

const lockPath = join(import.meta.dirname, "..", "package-lock.json");
const check = process.argv.includes("--check");
const lock = JSON.parse(readFileSync(lockPath, "utf8")) as { packages: Record<string, LockEntry> };
const packages = lock.packages;

/** Where Node's resolution from `location` finds `name`, if the lock file has it. */
function resolved(location: string, name: string): { at: string; entry: LockEntry } | undefined {
  let base = location;
  for (;;) {
    const at = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    const entry = packages[at];
    if (entry) return { at, entry };
    if (!base) return undefined;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

/** The platform fields of the newest version the registry serves, else read from the name. */
function platformOf(name: string): Platform {
  try {
    const out = execFileSync("npm", ["view", name, "os", "cpu", "libc", "--json", "--loglevel=silent"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const fields = JSON.parse(out) as Partial<Platform>;
    if (fields.os && fields.cpu) return { os: fields.os, cpu: fields.cpu, ...(fields.libc && { libc: fields.libc }) };
  } catch {
    // not served at any version: fall back to the name
  }
  const words = name.split("/").pop()?.split("-") ?? [];
  const os = words
    .map(
      (w) =>
        ({
          windows: "win32",
          win32: "win32",
          darwin: "darwin",
          linux: "linux",
          android: "android",
          freebsd: "freebsd",
        })[w],
    )
    .find(Boolean);
  const cpu = words
    .map((w) => ({ x64: "x64", "64": "x64", arm64: "arm64", arm: "arm", ia32: "ia32" })[w])
    .find(Boolean);
  if (!os || !cpu)
    throw new Error(`${name}: the registry has no version of it and its name names no platform; add its entry by hand`);
  return { os: [os], cpu: [cpu], ...(words.includes("musl") && { libc: ["musl"] }) };
}

const added: string[] = [];
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    const found = resolved(location, name);
    const exact = /^\d+\.\d+\.\d+(-[\w.]+)?$/.test(spec);
    // A range npm resolved is satisfied (npm would have said otherwise).
    if (found && (!exact || found.entry.version === spec)) continue;
    if (!exact) {
      throw new Error(`${location} wants ${name}@${spec}: only exact versions can be written without the registry`);
    }
    // Beside the package that wants it, where npm places its served siblings
    // (the root's, or a workspace's, at the top).
    const cut = location.lastIndexOf("node_modules/");
    const slot = `${cut < 0 ? "" : location.slice(0, cut)}node_modules/${name}`;
    if (slot === found?.at) throw new Error(`${slot} is ${found.entry.version}, but ${location} pins ${spec}`);
    added.push(`${slot}@${spec}`);
    if (check) continue;
    // Keys in the order npm writes them: version first, the rest sorted.
    const fields: LockEntry = { dev: entry.dev, optional: true, ...platformOf(name) };
    packages[slot] = {
      version: spec,
      ...Object.fromEntries(Object.entries(fields).sort(([a], [b]) => a.localeCompare(b))),
    };
  }
}

if (check) {
  if (added.length > 0) {
    console.error(`package-lock.json lacks ${added.length} platform binaries: run npm run lock:platforms`);
    for (const line of added) console.error(`  ${line}`);
    process.exit(1);
  }
} else {
  if (added.length > 0) {
    // npm keeps `packages` sorted by location, the root ("") first.
    lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b, "en")));
    writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
  }
  console.log(`package-lock.json: ${added.length} platform binaries added`);
  for (const line of added) console.log(`  ${line}`);
}
