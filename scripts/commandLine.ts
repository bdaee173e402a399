/**
 * The command line of an operator script: `--help` (or `-h`) prints the
 * script's usage on stdout and exits 0; an option the script does not take,
 * or one missing its value, prints what is wrong and the usage on stderr
 * and exits 2, where Node's parseArgs would end the script with a stack
 * trace. Scripts that check more themselves end the same way (`usageError`).
 */
import { type ParseArgsConfig, parseArgs } from "node:util";

/** Prints the problem and the usage, and exits 2. */
export function usageError(usage: string, problem: string): never {
  console.error(`${problem}\n${usage}`);
  process.exit(2);
}

/** Whether the arguments ask for help (before a `--` that ends the options). */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h");
}

/** parseArgs over the process's arguments (or `config.args`), with `--help` and usage errors as above. */
export function commandLine<T extends ParseArgsConfig>(usage: string, config: T): ReturnType<typeof parseArgs<T>> {
  if (asksForHelp(config.args ?? process.argv.slice(2))) {
    console.log(usage);
    process.exit(0);
  }
  try {
    return parseArgs(config);
  } catch (err) {
    return usageError(usage, (err as Error).message);
  }
}
