/**
 * `npm start`: applies migrations to the local database (`npm run
 * db:migrate`, summarized in a line instead of wrangler's table per
 * migration), seeds it when empty, builds the console from its source
 * (scripts/buildConsole.ts), then serves the Worker with `wrangler dev`.
 * Arguments go to wrangler dev: `npm start -- --port 8811`.
 */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { buildConsole } from "./buildConsole.ts";
import { MIGRATE_STATUS } from "./shardConfig.ts";

const args = process.argv.slice(2);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const migrate = await migrateLocal();
if (migrate.status !== 0) {
  process.stdout.write(migrate.stdout);
  process.stderr.write(migrate.stderr);
  console.error("Migrations failed (output above).");
  process.exit(migrate.status ?? 1);
}
console.log(migrationSummary(migrate.stdout));
// A load stopped part-way is finished by db:migrate (scripts/bulk/load.ts): its line is shown as it is.
for (const line of migrate.stdout.split("\n")) if (line.startsWith("Finished an interrupted")) console.log(line);

const seed = spawnSync(process.execPath, ["seed/seed.ts", "--if-empty"], { stdio: "inherit" });
if (seed.status !== 0) process.exit(seed.status ?? 1);

// The console as its source stands now, not as the last install built it.
await buildConsole();

const portArg = args.indexOf("--port");
const port = portArg >= 0 ? args[portArg + 1] : "8787";
console.log(
  `\nServing http://localhost:${port}: interactive API docs at http://localhost:${port}/docs, the console at http://localhost:${port}/console\n`,
);
// The Worker never reads request.cf, so wrangler need not fetch its
// placeholder from the network (which fails, with a stack trace, offline).
const dev = spawn("wrangler", ["dev", ...args], {
  stdio: "inherit",
  env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false" },
  shell: process.platform === "win32",
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => dev.kill(signal));
dev.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

/**
 * `npm run db:migrate`, its output kept for the summary. The first time it
 * starts wrangler to apply migrations (about 40 s for four new local
 * databases), a line says so as it begins, so a first start is not silent.
 */
async function migrateLocal(): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(npm, ["run", "-s", "db:migrate"], {
    stdio: ["ignore", "pipe", "pipe"],
    shell: process.platform === "win32",
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const closed = once(child, "close");
  let stdout = "";
  let told = false;
  for await (const line of createInterface({ input: child.stdout })) {
    stdout += `${line}\n`;
    if (!told && line.endsWith(`: ${MIGRATE_STATUS.applying}`)) {
      told = true;
      console.log("Migrations: applying them to the local databases (wrangler, about 40 s on a first start)...");
    }
  }
  const [status] = (await closed) as [number | null];
  return { status, stdout, stderr };
}

/**
 * One line from db:migrate's report (scripts/migrate.ts), which says per
 * shard "BINDING (name): migrations applied" or "...: up to date".
 */
function migrationSummary(output: string): string {
  const { applied: done, upToDate } = MIGRATE_STATUS;
  const shards = [...output.matchAll(new RegExp(`^\\s+(\\S+) \\([^)]*\\): (${done}|${upToDate})$`, "gm"))];
  const applied = shards.filter((m) => m[2] === done).map((m) => m[1]);
  const databases = (n: number) => `${n} local database${n === 1 ? "" : "s"}`;
  if (applied.length === 0) return `Migrations: ${databases(shards.length)} up to date.`;
  return `Migrations: applied to ${databases(applied.length)} (${applied.join(", ")})${shards.length > applied.length ? `; ${shards.length - applied.length} already up to date` : ""}.`;
}
