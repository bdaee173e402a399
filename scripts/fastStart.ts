/**
 * Preloaded into every Node process a test run starts (vitest.config.ts
 * puts `--import` of this file in NODE_OPTIONS), of which a run makes a few
 * hundred, and into the operator's npm scripts (package.json: start, import,
 * export, backfill:sql, keys, webhooks, seed, db:*, loadtest and bench*), to
 * take most of a second off each start of a script (`npm run bench --
 * --help`: 2.6 s without it, 1.5 s with it):
 * - Node 24 resolves an ES module by reading its package's scope, parsing
 *   that package.json again for every module: drizzle-orm's is 179 KB over
 *   about 190 modules, 1.1 s of CPU before a script's first line (Node 20
 *   took 0.1 s). drizzle-orm's modules import each other by relative `.js`
 *   paths inside a `"type": "module"` package, so their URL and format are
 *   known without asking the package; and each `drizzle-orm/...` entry our
 *   own modules name resolves to the same file from all of them, so it is
 *   resolved once. Every other resolution is Node's own.
 * - Node's compile cache keeps each module's type-stripped, compiled code
 *   (in the system's temporary directory), where stripping our TypeScript
 *   took another 0.3 s or so.
 * - With LIEN_CPU_LOG=FILE, each process that exits of itself appends a
 *   line to FILE: its command line, CPU seconds and seconds alive; killed
 *   ones write nothing. `node scripts/cpuLog.ts FILE` sums it by command
 *   (docs/development.md, "The test loop").
 */
import { appendFileSync, existsSync } from "node:fs";
import { enableCompileCache, type ResolveFnOutput, registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

enableCompileCache();

const DRIZZLE = "/node_modules/drizzle-orm/";
const root = new URL("..", import.meta.url).href;
/** `drizzle-orm` entries resolved for our own modules, by specifier and conditions. */
const entries = new Map<string, ResolveFnOutput>();

registerHooks({
  resolve(specifier, context, nextResolve) {
    const parent = context.parentURL ?? "";
    if (
      parent.includes(DRIZZLE) &&
      (specifier.startsWith("./") || specifier.startsWith("../")) &&
      specifier.endsWith(".js")
    ) {
      const url = new URL(specifier, parent);
      if (url.pathname.includes(DRIZZLE) && existsSync(fileURLToPath(url.href))) {
        return { url: url.href, format: "module", shortCircuit: true };
      }
    }
    const ours = parent.startsWith(root) && !parent.includes("/node_modules/");
    if (ours && (specifier === "drizzle-orm" || specifier.startsWith("drizzle-orm/"))) {
      const key = `${specifier}\u0000${context.conditions?.join(",") ?? ""}`;
      let resolved = entries.get(key);
      if (!resolved) {
        resolved = nextResolve(specifier, context);
        entries.set(key, resolved);
      }
      return { ...resolved, shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});

const cpuLog = process.env.LIEN_CPU_LOG;
if (cpuLog) {
  process.on("exit", () => {
    const { user, system } = process.cpuUsage();
    const line = { argv: process.argv.slice(1), cpu: (user + system) / 1e6, alive: performance.now() / 1000 };
    appendFileSync(cpuLog, `${JSON.stringify(line)}\n`);
  });
}
