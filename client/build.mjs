/**
 * `npm run build` (and so `npm pack`): dist/ as ESM (tsconfig.build.json)
 * and dist/cjs/ as CommonJS (tsconfig.cjs.json, marked as such by its own
 * package.json), so that `import` and `require` both get code and types.
 *
 * It compiles with the TypeScript this package declares, resolved from this
 * folder as Node resolves it (the workspace root has another major version),
 * and stops if what it finds is not that major version.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const require = createRequire(import.meta.url);
const declared = JSON.parse(readFileSync(here("package.json"), "utf8")).devDependencies.typescript;
const { version } = require("typescript/package.json");
const major = (v) => v.replace(/^[^0-9]*/, "").split(".")[0];
if (major(version) !== major(declared)) {
  throw new Error(`found TypeScript ${version}, but the client declares ${declared}: run npm ci`);
}
const tsc = require.resolve("typescript/bin/tsc");

rmSync(here("dist"), { recursive: true, force: true });
for (const project of ["tsconfig.build.json", "tsconfig.cjs.json"]) {
  execFileSync(process.execPath, [tsc, "-p", here(project)], { stdio: "inherit" });
}
writeFileSync(here("dist/cjs/package.json"), `${JSON.stringify({ type: "commonjs" })}\n`);
console.error(`built dist/ (ESM) and dist/cjs/ (CommonJS) with TypeScript ${version}`);
