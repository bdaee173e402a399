/**
 * Preloaded into a script under test (`node --import ./test/node/stopAt.ts
 * scripts/import.ts ...`): stops the process with a signal at an exact point
 * of its work on the local D1 files, as an operator's Ctrl-C or a crash
 * would, without any hook in the script itself.
 *
 *   STOP_AT      a regular expression matched against each SQL statement the
 *                process runs through node:sqlite (exec, or run of a
 *                prepared statement);
 *   STOP_AFTER   the match to stop at (default 1, the first);
 *   STOP_SIGNAL  SIGKILL (default) or SIGINT, sent to itself before the
 *                statement runs.
 */
import { DatabaseSync, StatementSync } from "node:sqlite";

const pattern = process.env.STOP_AT ? new RegExp(process.env.STOP_AT, "i") : undefined;
const after = Number(process.env.STOP_AFTER ?? "1");
const signal = (process.env.STOP_SIGNAL ?? "SIGKILL") as NodeJS.Signals;
let matches = 0;

function check(sql: string): void {
  if (!pattern?.test(sql)) return;
  matches += 1;
  if (matches < after) return;
  process.stderr.write(`stopAt: ${signal} before ${sql.slice(0, 80).replace(/\s+/g, " ")}\n`);
  process.kill(process.pid, signal);
  // A signal to oneself is delivered at once; never run the statement.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
}

const exec = DatabaseSync.prototype.exec;
DatabaseSync.prototype.exec = function (this: DatabaseSync, sql: string) {
  check(sql);
  return exec.call(this, sql);
};
// Wraps each way a prepared statement is run, checking its text first.
for (const method of ["run", "all", "get", "iterate"] as const) {
  const original = StatementSync.prototype[method] as (...args: unknown[]) => unknown;
  Object.defineProperty(StatementSync.prototype, method, {
    value(this: StatementSync, ...args: unknown[]) {
      check(this.sourceSQL);
      return original.apply(this, args);
    },
  });
}
