/**
 * The typed client as a new consumer gets it: `npm pack` of the workspace
 * (built with the TypeScript the client declares), installed from the
 * tarball (offline: it has no dependencies) into fresh strict projects, one
 * CommonJS (what `npm init` makes) and one ESM. The READMEs' TypeScript
 * examples compile there unchanged with that TypeScript, and run against
 * the Worker under `wrangler dev` over the seeded data
 * (test/node/devWorker.ts), a revalidation ending in "not modified" among
 * them.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DevWorker, startDevWorker } from "./devWorker.ts";

const client = resolve("client");
const declaredTypeScript = JSON.parse(readFileSync(join(client, "package.json"), "utf8")).devDependencies.typescript;
/** The client's own TypeScript (the workspace root has another major version). */
const tsc = createRequire(join(client, "package.json")).resolve("typescript/bin/tsc");

/** The ```ts blocks of a README that use the client. */
function examples(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? "")
    .filter((code) => code.includes('from "lien-filing-lookup-client"'));
}
const EXAMPLES = [...examples("README.md"), ...examples("client/README.md")];

const work = mkdtempSync(join(tmpdir(), "client-consumer-"));
let worker: DevWorker;
let tarball: string;
let packLog: string;

beforeAll(async () => {
  const [started] = await Promise.all([
    startDevWorker(),
    (async () => {
      const pack = spawnSync("npm", ["pack", "--workspace", "client", "--pack-destination", work], {
        encoding: "utf8",
      });
      packLog = `${pack.stdout}${pack.stderr}`;
    })(),
  ]);
  worker = started;
  const file = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!file) throw new Error(`npm pack wrote no tarball:\n${packLog}`);
  tarball = join(work, file);
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A fresh project of `format` with the packed client installed and the examples in src/. */
function consumerProject(format: "commonjs" | "module"): string {
  const dir = join(work, format);
  mkdirSync(join(dir, "src"), { recursive: true });
  // As `npm init -y` writes it, which says nothing of `type` for CommonJS.
  const manifest = { name: `consumer-${format}`, version: "1.0.0", private: true };
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify(format === "module" ? { ...manifest, type: format } : manifest),
  );
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "es2022",
        lib: ["es2022", "dom"],
        module: "nodenext",
        strict: true,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noImplicitOverride: true,
        skipLibCheck: false,
        types: [],
        outDir: "dist",
        rootDir: "src",
      },
      include: ["src"],
    }),
  );
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], {
    cwd: dir,
    stdio: "ignore",
  });
  for (const [i, code] of EXAMPLES.entries()) {
    writeFileSync(join(dir, "src", `example${i + 1}.ts`), code.replaceAll("http://localhost:8787", worker.base));
  }
  return dir;
}

describe("the packed client in a fresh project", () => {
  it("is built for the pack with the TypeScript the client declares, in both module formats", () => {
    const built = /with TypeScript (\d+)\.\d+\.\d+/.exec(packLog)?.[1];
    expect(built).toBe(declaredTypeScript.replace(/^\D*/, "").split(".")[0]);
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(2);
  });

  it.each(["commonjs", "module"] as const)(
    "%s: compiles the READMEs' examples strictly and runs them against the Worker, ending in not modified",
    (format) => {
      const dir = consumerProject(format);
      const compiled = (() => {
        try {
          return execFileSync(process.execPath, [tsc, "-p", dir], { encoding: "utf8" });
        } catch (err) {
          return (err as { stdout?: string }).stdout ?? String(err);
        }
      })();
      expect(compiled, "tsc reports no error").toBe("");
      const first = readFileSync(join(dir, "dist", "example1.js"), "utf8");
      expect(first).toContain(format === "commonjs" ? 'require("lien-filing-lookup-client")' : "from");

      // An example that watches the change feed, or receives webhooks, serves until stopped: it is
      // compiled, not run (client/test/client.test.ts runs watch() against the Worker,
      // client/test/webhooks.test.ts verifyWebhook() against the official library).
      const outputs = EXAMPLES.flatMap((code, i) =>
        code.includes(".watch(") || code.includes("verifyWebhook(")
          ? []
          : [execFileSync(process.execPath, [join(dir, "dist", `example${i + 1}.js`)], { encoding: "utf8", cwd: dir })],
      );
      // The root README's walk of one debtor's filings, then the client README's tour.
      expect(outputs[0]!.trim().split("\n").length).toBeGreaterThan(0);
      const tour = outputs.at(-1)!;
      expect(tour).toMatch(/^\d+ /);
      expect(tour).toContain("not modified");
      expect(tour).toContain("400 invalid_parameter");
    },
    120_000,
  );
});
