/**
 * `npm start`: applies migrations to the local database (`npm run
 * db:migrate`, summarized in a line instead of wrangler's table per
 * migration), seeds it when empty, then serves the Worker with `wrangler dev`.
 * Arguments go to wrangler dev: `npm start -- --port 8811`.
 */
import { spawn, spawnSync } from "node:child_process";

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

const seed = spawnSync(process.execPath, ["seed/seed.ts", "--if-empty"], { stdio: "inherit" });
if (seed.status !== 0) process.exit(seed.status ?? 1);

const portArg = args.indexOf("--port");
const port = portArg >= 0 ? args[portArg + 1] : "8787";
console.log(`\nServing http://localhost:${port}: interactive API docs at http://localhost:${port}/docs\n`);
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
 * Wrangler prints the pending migrations as a table, then the whole table
 * again after each one it applies; the names in the first table of each
 * run (one per database) are the ones applied.
 */
function migrationSummary(output: string): string {
  const applied: string[] = [];
  let upToDate = 0;
  let inPending = false;
  for (const line of output.split("\n")) {
    if (line.includes("Migrations to be applied")) inPending = true;
    else if (inPending && /About to apply/.test(line)) inPending = false;
    else if (inPending) {
      const name = /│\s*(\S+\.sql)\s*│/.exec(line)?.[1];
      if (name) applied.push(name);
    } else if (/No migrations to apply/.test(line)) upToDate += 1;
  }
  if (applied.length === 0) return "Migrations: the local database is up to date.";
  const span = applied.length === 1 ? applied[0] : `${applied[0]} … ${applied.at(-1)}`;
  return `Migrations: applied ${applied.length} to the local database (${span})${upToDate ? `; ${upToDate} already up to date` : ""}.`;
}
