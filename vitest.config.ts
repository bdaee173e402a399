import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects:
// - "workers": the suite proper, inside workerd with the bindings of
//   wrangler.toml backed by real local D1 and KV (migrations applied by
//   test/setup.ts);
// - "node": checks that need Node-only tooling, such as validating the
//   OpenAPI document (the validator compiles schemas with eval, which
//   workerd forbids).
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    test: {
      // The Worker logs a JSON line per request: shown for failing tests
      // only, or for all with TEST_LOGS=1 (docs/development.md).
      silent: process.env.TEST_LOGS ? false : ("passed-only" as const),
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: "./wrangler.toml" },
              miniflare: { bindings: { TEST_MIGRATIONS: migrations } },
            }),
          ],
          test: {
            name: "workers",
            // The typed client's tests (client/test) run here too, against the real Worker.
            include: ["test/**/*.test.ts", "client/test/**/*.test.ts"],
            exclude: ["test/node/**"],
            setupFiles: ["./test/setup.ts"],
            // Speed is measured in benchmarks, not by timing tests: on a shared 2-core
            // machine the rate-limit tests' hundreds of requests can take well over 5 s.
            testTimeout: 60_000,
          },
        },
        { test: { name: "node", include: ["test/node/**/*.test.ts"], environment: "node" } },
      ],
    },
  };
});
