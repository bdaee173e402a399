/**
 * `npm start`: applies migrations to the local database (`npm run
 * db:migrate`, summarized in a line instead of wrangler's table per
 * migration), seeds it when empty, builds the console from its source
 * (scripts/buildConsole.ts), then serves the Worker with `wrangler dev`.
 * Arguments go to wrangler dev: `npm start -- --port 8811`.
 */
import { spawn, spawnSync } from "node:child_process";
import { buildConsole } from "./buildConsole.ts";

const args = process.argv.slice(2);
const npm = process.platform === "win32" ? "npm.cmd" : "npm";

const migrate = spawnSync(npm, ["run", "-s", "db:migrate"], { encoding: "utf8", shell: process.platform === "win32" });
if (migrate.status !== 0) {
  process.stdout.write(migrate.stdout ?? "");
  process.stderr.write(migrate.stderr ?? "");
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
 * One line from db:migrate's report (scripts/migrate.ts), which says per
 * shard "BINDING (name): migrations applied" or "...: up to date".
 */
function migrationSummary(output: string): string {
  const shards = [...output.matchAll(/^\s+(\S+) \([^)]*\): (migrations applied|up to date)$/gm)];
  const applied = shards.filter((m) => m[2] === "migrations applied").map((m) => m[1]);
  const databases = (n: number) => `${n} local database${n === 1 ? "" : "s"}`;
  if (applied.length === 0) return `Migrations: ${databases(shards.length)} up to date.`;
  return `Migrations: applied to ${databases(applied.length)} (${applied.join(", ")})${shards.length > applied.length ? `; ${shards.length - applied.length} already up to date` : ""}.`;
}
