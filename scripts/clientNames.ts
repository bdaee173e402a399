/**
 * Writes the typed client's copy of the API's name rules from the server's
 * one source, so that the client's watch() matches names as the server does:
 *
 *   node scripts/clientNames.ts [out.ts]   # default: client/src/names.ts
 *
 * The client package compiles only its own folder (client/build.mjs), so it
 * cannot import src/domain/names.ts; it gets the file as it is, under a line
 * saying where it comes from. `npm run client:types` runs this; CI writes a
 * fresh copy and fails if the committed one differs (.ci/run).
 */
import { readFileSync, writeFileSync } from "node:fs";

const SOURCE = "src/domain/names.ts";
const out = process.argv[2] ?? "client/src/names.ts";

const text = readFileSync(SOURCE, "utf8");
// A module it named would not be in the client package.
if (/^\s*import\b|^\s*export\b[^;]*\bfrom\s*["']|\bimport\s*\(/m.test(text)) {
  throw new Error(`${SOURCE} imports a module: the client's copy must compile on its own`);
}
const header = `// Generated from ${SOURCE} by \`npm run client:types\` (scripts/clientNames.ts): edit that file, not this one.\n`;
writeFileSync(out, header + text);
console.error(`wrote ${out}`);
