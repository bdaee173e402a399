/**
 * Sums a LIEN_CPU_LOG file (scripts/fastStart.ts) by command: which of the
 * Node processes a test run started took its CPU. A command is its script
 * (or wrangler's subcommand) and first argument, with temporary paths
 * replaced, so an import's many runs add up to one row.
 *
 *   LIEN_CPU_LOG=/tmp/cpu.log npm test -- --project node
 *   node scripts/cpuLog.ts /tmp/cpu.log [--top N]
 */
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { commandLine, usageError } from "./commandLine.ts";

const USAGE = "usage: node scripts/cpuLog.ts FILE [--top N]";
const { values, positionals } = commandLine(USAGE, { allowPositionals: true, options: { top: { type: "string" } } });
const top = Number(values.top ?? 25);
if (positionals.length !== 1) usageError(USAGE, "one FILE, the CPU log");
if (!Number.isInteger(top) || top < 1) usageError(USAGE, `--top ${values.top}: not a whole number`);

interface Line {
  argv: string[];
  cpu: number;
  alive: number;
}

const root = `${process.cwd()}/`;
const temporary = `${tmpdir()}/`;
/** The script, or wrangler and its subcommand, and the first argument after it. */
function command(argv: string[]): string {
  // The project's own paths first: a checkout may itself lie under the temporary directory.
  const words = argv.map((a) => a.replace(root, "")).map((a) => (a.startsWith(temporary) ? "TMP" : a));
  const script = words[0]?.replace(/^.*node_modules\/wrangler\/.*$/, "wrangler") ?? "?";
  return [script, ...words.slice(1, script === "wrangler" ? 3 : 2)].join(" ");
}

const lines = readFileSync(positionals[0] ?? "", "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l) as Line);
const sums = new Map<string, { runs: number; cpu: number; alive: number }>();
for (const line of lines) {
  const key = command(line.argv);
  const sum = sums.get(key) ?? { runs: 0, cpu: 0, alive: 0 };
  sum.runs += 1;
  sum.cpu += line.cpu;
  sum.alive += line.alive;
  sums.set(key, sum);
}
const total = lines.reduce((s, l) => s + l.cpu, 0);
console.log(
  `${lines.length} processes, ${total.toFixed(1)} s of CPU (killed processes and non-Node ones, such as workerd, not counted)`,
);
console.log("  cpu s  runs  alive s  command");
for (const [key, sum] of [...sums].sort((a, b) => b[1].cpu - a[1].cpu).slice(0, top)) {
  console.log(
    `${sum.cpu.toFixed(1).padStart(7)}  ${String(sum.runs).padStart(4)}  ${sum.alive.toFixed(0).padStart(7)}  ${key}`,
  );
}
