import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { migratedSchema } from "./test/migratedSchema.ts";

// Three projects:
// - "workers": the suite proper, inside workerd with the bindings of
//   wrangler.toml backed by real local D1 and KV (the migrated schema
//   applied to every shard by test/setup.ts), with wrangler.toml's four shards, so
//   every cross-state request fans out;
// - "workers-1shard": the files whose answers can depend on the shard
//   layout (LAYOUT_DEPENDENT, below) again, with SHARD_STATES = {} (one
//   database, DB), as a single-database deployment;
// - "node": checks that need Node-only tooling, such as validating the
//   OpenAPI document (the validator compiles schemas with eval, which
//   workerd forbids), and the scripts run as an operator runs them.
// `npm test -- --project workers` runs one of them.

/**
 * What the one-database layout changes is how requests and loads reach the
 * databases: a state's shard (routing), reading every shard and merging
 * (fan-out, its cursors and bookmarks), rows read per shard, and the change
 * feed's per-shard positions. These files test those paths; every other
 * file's answers are the same in any layout, and run once, in four shards.
 * (shard-equivalence and split-state build their own layouts and compare
 * them, whatever the project's.)
 */
const LAYOUT_DEPENDENT = [
  // Routing: a feed's records to their states' shards.
  "test/import.test.ts",
  // Fan-out over every shard, and its merge: cross-state lists and reports.
  "test/debtors.test.ts",
  "test/search-similar.test.ts",
  "test/recent-by-postal-code.test.ts",
  "test/public-lookup.test.ts",
  "test/report.test.ts",
  // Cursors across shards, and each shard's bookmark.
  "test/continuation.test.ts",
  "test/sessions.test.ts",
  // Rows read per shard.
  "test/bounded-work.test.ts",
  // The change feed's positions per shard, and its consumers.
  "test/changes.test.ts",
  "test/webhooks.test.ts",
];

/**
 * Files run in the one-database layout only. Two loads at once into one
 * database is the race their tests are about, and one database holding every
 * state is where it is closest: four shards split each load four ways, the
 * same code racing over a quarter of the rows (and about 70 s of a run twice).
 */
const ONE_DATABASE_ONLY = ["test/concurrent-loads.test.ts"];

// Every Node process the run starts (vitest's own workers, the scripts and
// wrangler the Node tests spawn) preloads scripts/fastStart.ts: a second
// less per process start, over the few hundred a run spawns.
const PRELOAD = `--import=${JSON.stringify(resolve("scripts/fastStart.ts"))}`;
if (!process.env.NODE_OPTIONS?.includes(PRELOAD)) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, PRELOAD].filter(Boolean).join(" ");
}

/**
 * Vitest's own order (largest file first without an earlier run's timings,
 * slowest first with them), but the projects in this order where Vitest
 * takes them by name. The one-database project's twelve files include two
 * of the heaviest (the concurrent loads, the bounded-work walk); run last,
 * its concurrent loads were the run's last 42 s, on one core of two. Run
 * before the Workers suite, its files end beside that suite's many short ones.
 */
const PROJECT_ORDER = ["node", "workers-1shard", "workers"];

/**
 * The slowest files, slowest first (a run's JSON report, 2026-12-03), which
 * start before the rest of their project. A fresh clone (every CI run) has
 * no earlier timings, and by size small slow files came last: the docs'
 * examples (65 s), the fuzz (47 s) and the rate limits (25 s) were a CI
 * run's last three files, each alone on a core at the end.
 */
const SLOWEST_FIRST = [
  "test/node/import-workflow.test.ts",
  "test/node/interrupted-load.test.ts",
  "test/node/import-cli.test.ts",
  "test/node/console.test.ts",
  "test/node/webhooks-cli.test.ts",
  "test/node/source-pull.test.ts",
  "test/node/concurrent-imports.test.ts",
  "test/node/running-totals.test.ts",
  "test/node/statement-templates.test.ts",
  "test/node/client-consumer.test.ts",
  "test/platform-load.test.ts",
  "test/concurrent-loads.test.ts",
  "test/docs-examples.test.ts",
  "test/fuzz.test.ts",
  "test/bounded-work.test.ts",
  "test/shard-equivalence.test.ts",
  "test/keys.test.ts",
  "test/key-store.test.ts",
  "test/platform-pull.test.ts",
  "test/changes.test.ts",
];

class ProjectOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => PROJECT_ORDER.indexOf(file.project.name);
    const slow = (file: TestSpecification) => {
      const at = SLOWEST_FIRST.findIndex((path) => file.moduleId.endsWith(`/${path}`));
      return at < 0 ? SLOWEST_FIRST.length : at;
    };
    // Array.prototype.sort is stable: within a project, past its slowest files, Vitest's order stands.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b) || slow(a) - slow(b));
  }
}

export default defineConfig(async () => {
  // The schema the migrations leave, applied as one step (test/migratedSchema.ts).
  const migrations = migratedSchema("./migrations");
  const workers = (name: string, files: string[], vars: Record<string, unknown> = {}, skip: string[] = []) => ({
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        // workerd's --verbose log (the plugin's default) prints every error a
        // Workflow step or instance ends with, and every one an RPC call
        // returns, though the engine or caller handles it: sixty lines per run
        // of the Workflow tests, whose faults are on purpose. A failing test
        // still shows its assertion, its logs and a Workflow's error
        // (test/platform-load.test.ts, ended); an unhandled rejection in a
        // test is still reported by vitest.
        verbose: false,
        miniflare: {
          bindings: { TEST_MIGRATIONS: migrations, ...vars },
          // Test-only databases (test/shard-equivalence.test.ts,
          // test/split-state.test.ts): shards DB_5 to DB_16, for a layout at
          // MAX_SHARDS, and one database holding everything, to compare
          // against.
          d1Databases: [...Array.from({ length: 12 }, (_, i) => `DB_${i + 5}`), "DB_WHOLE"],
        },
      }),
    ],
    test: {
      name,
      include: files,
      exclude: ["test/node/**", ...skip],
      setupFiles: ["./test/setup.ts"],
      // One runtime per vitest worker runs file after file, where a runtime per file cost
      // about 6 s of CPU each (starting workerd and loading every module again), two fifths
      // of the Workers files' CPU. Its storage outlives a file: test/setup.ts empties it.
      isolate: false,
      // Speed is measured in benchmarks, not by timing tests: on a shared 2-core
      // machine the rate-limit tests' hundreds of requests can take well over 5 s.
      testTimeout: 60_000,
    },
  });
  return {
    test: {
      // Files at once. Vitest's default is one fewer than the cores (one on
      // a 2-core machine), which leaves a core idle while a file waits: on
      // workerd starting, on a wrangler process a Node test spawned, on a
      // subprocess's import. Three keep two cores busy.
      maxWorkers: Math.max(3, availableParallelism()),
      // The Worker logs a JSON line per request: shown for failing tests
      // only, or for all with TEST_LOGS=1 (docs/development.md).
      silent: process.env.TEST_LOGS ? false : ("passed-only" as const),
      // Every test by name, under its file, then the summary (CI passes its own --reporter flags).
      reporters: ["tree"],
      sequence: { sequencer: ProjectOrder },
      projects: [
        // The typed client's tests (client/test) run here too, against the real Worker.
        workers("workers", ["test/**/*.test.ts", "client/test/**/*.test.ts"], {}, ONE_DATABASE_ONLY),
        workers("workers-1shard", [...LAYOUT_DEPENDENT, ...ONE_DATABASE_ONLY], { SHARD_STATES: {} }),
        {
          test: {
            name: "node",
            include: ["test/node/**/*.test.ts"],
            environment: "node",
            // One process runs file after file, where vitest starts a fresh one per file (a
            // second or two each, 40 files): these files share no state but the
            // templates' directory, and none patches globals or the environment.
            isolate: false,
            // Template states (migrated, seeded) built once per run and copied (test/node/templates.ts).
            globalSetup: ["./test/node/globalSetup.ts"],
            // Property tests of many cases and real processes take seconds on a busy 2-core machine.
            testTimeout: 60_000,
          },
        },
      ],
    },
  };
});
