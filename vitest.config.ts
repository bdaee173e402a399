import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Three projects:
// - "workers" and "workers-1shard": the suite proper, inside workerd with the
//   bindings of wrangler.toml backed by real local D1 and KV (migrations
//   applied to every shard by test/setup.ts): once with wrangler.toml's four
//   shards, so every cross-state request fans out, and once with
//   SHARD_STATES = {} (one database, DB), as a single-database deployment;
// - "node": checks that need Node-only tooling, such as validating the
//   OpenAPI document (the validator compiles schemas with eval, which
//   workerd forbids).
// `npm test -- --project workers` runs one layout only.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  const workers = (name: string, vars: Record<string, unknown> = {}) => ({
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
      // The typed client's tests (client/test) run here too, against the real Worker.
      include: ["test/**/*.test.ts", "client/test/**/*.test.ts"],
      exclude: ["test/node/**"],
      setupFiles: ["./test/setup.ts"],
      // Speed is measured in benchmarks, not by timing tests: on a shared 2-core
      // machine the rate-limit tests' hundreds of requests can take well over 5 s.
      testTimeout: 60_000,
    },
  });
  return {
    test: {
      // The Worker logs a JSON line per request: shown for failing tests
      // only, or for all with TEST_LOGS=1 (docs/development.md).
      silent: process.env.TEST_LOGS ? false : ("passed-only" as const),
      // Every test by name, under its file, then the summary (CI passes its own --reporter flags).
      reporters: ["tree"],
      projects: [
        workers("workers"),
        workers("workers-1shard", { SHARD_STATES: {} }),
        // Property tests of many cases and real processes take seconds on a busy 2-core machine.
        { test: { name: "node", include: ["test/node/**/*.test.ts"], environment: "node", testTimeout: 60_000 } },
      ],
    },
  };
});
