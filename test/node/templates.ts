/**
 * Local state directories (wrangler's `--persist-to`) built once per test
 * run and copied into each test's own: migrating a fresh directory runs
 * wrangler (about 25 s of CPU on a 2-core machine), seeding one the
 * generator and the loader (npm start's 20,000 filings), where a copy takes
 * milliseconds. Where the tests say what a fresh directory does (the first
 * import migrates it), they still start from nothing.
 *
 * The run's directory comes from test/node/globalSetup.ts. Two files
 * running at once that want the same template build it once: the first
 * takes a lock, the other waits for it.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { runScript } from "./localState.ts";

declare module "vitest" {
  interface ProvidedContext {
    /** The directory this run keeps its template states in (globalSetup.ts). */
    templates: string;
  }
}

const WAIT_MS = 10 * 60_000;
const DONE = ".built";

/** Waits `ms` without a timer (the builders are synchronous, like the scripts they run). */
const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** The template `name`, built by `build(dir)` the first time any test file of the run asks for it. */
function template(name: string, build: (dir: string) => void): string {
  const dir = join(inject("templates"), name);
  const done = join(dir, DONE);
  if (existsSync(done)) return dir;
  try {
    mkdirSync(`${dir}.lock`);
  } catch {
    // Another file is building it: wait for it to be done.
    for (const started = Date.now(); !existsSync(done); pause(200)) {
      if (Date.now() - started > WAIT_MS) throw new Error(`template ${name} was not built within ${WAIT_MS / 1000} s`);
    }
    return dir;
  }
  const building = `${dir}.building`;
  rmSync(building, { recursive: true, force: true });
  build(building);
  renameSync(building, dir);
  writeFileSync(done, "");
  return dir;
}

function ran(what: string, result: ReturnType<typeof runScript>): void {
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}): ${result.stderr}`);
}

function migrated(): string {
  return template("migrated", (dir) => {
    const result = runScript("scripts/migrate", ["--persist-to", dir]);
    ran("migrating the template", result);
    writeFileSync(join(inject("templates"), "migrated.out"), result.stdout);
  });
}

/** What `npm run db:migrate` printed as it migrated the run's template from nothing. */
export function migrateOutput(): string {
  migrated();
  return readFileSync(join(inject("templates"), "migrated.out"), "utf8");
}

function seeded(): string {
  return template("seeded", (dir) => {
    cpSync(migrated(), dir, { recursive: true });
    rmSync(join(dir, DONE));
    // npm start's seed (seed/seed.ts's defaults), with the key `local-dev-key`.
    ran("seeding the template", runScript("seed/seed", ["--persist-to", dir]));
  });
}

/** `target`, a state directory migrated as `npm run db:migrate` leaves it. */
export function migratedState(target: string): string {
  copy(migrated(), target);
  return target;
}

/** `target`, a state directory migrated and seeded as `npm start` leaves it on a first start. */
export function seededState(target: string): string {
  copy(seeded(), target);
  return target;
}

function copy(from: string, target: string): void {
  cpSync(from, target, { recursive: true });
  rmSync(join(target, DONE), { force: true });
}
