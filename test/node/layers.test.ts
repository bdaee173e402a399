/**
 * Layers point down, and src/ keeps its types honest:
 * - the queries do not depend on HTTP: src/queries takes Db values (and a
 *   ShardReader for cross-shard merges) and imports nothing from src/http,
 *   so the importer, scripts and tests can run them without a request. The
 *   HTTP layer supplies sessions, metering and 503s (src/http/d1.ts);
 * - the database layer (src/db: schema, loader, the change rows a load
 *   writes) imports only src/domain below it, nothing from the layers that
 *   read or feed it (src/changes, src/queries, src/feed, src/platform,
 *   src/http, src/routes);
 * - the Worker's code imports nothing from the typed client (client/, its
 *   own package, which compiles a copy of src/domain/names.ts) or from the
 *   Node scripts (scripts/);
 * - nothing in src/ asserts a type through `unknown` (`as unknown as`),
 *   which stands in for a check the compiler can no longer make, or writes
 *   a fragment's values into its text with Drizzle's `.inlineParams()`: the
 *   isolate's dialect joins the fragments of a statement without asking
 *   each (src/queries/db.ts, joined); text goes in with sql.raw.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");
const QUERIES = join(ROOT, "src/queries");
const HTTP = join(ROOT, "src/http");

/** The TypeScript files under `dir`, recursively, with their text. */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((entry) => entry.endsWith(".ts"))
    .map((entry) => ({ file: join(dir, entry), text: readFileSync(join(dir, entry), "utf8") }));
}

/** Every module specifier a file names: static and type imports, re-exports, dynamic imports. */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\b(?:import|export)\b[^;'"]*?\bfrom\s*["']([^"']+)["']/g)) found.push(m[1]!);
  for (const m of text.matchAll(/\bimport\s*(?:\(\s*)?["']([^"']+)["']/g)) found.push(m[1]!);
  return found;
}

/** The files of `dir` (recursively) that a relative specifier of theirs resolves into `into`. */
function importsInto(dir: string, into: string): string[] {
  const offending: string[] = [];
  for (const { file, text } of sources(dir)) {
    for (const spec of specifiers(text)) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (!relative(into, target).startsWith("..")) offending.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  return offending;
}

/** `text` without its comments, which may name what the code must not do. */
const code = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");

/** The places in the code of `dir` (comments left out) where `pattern` stands. */
function placesOf(dir: string, pattern: RegExp): string[] {
  return sources(dir).flatMap(({ file, text }) =>
    [...code(text).matchAll(pattern)].map((m) => `${relative(ROOT, file)}: ${m[0]}`),
  );
}

describe("module layers", () => {
  it("src/queries imports nothing from src/http", () => {
    expect(importsInto(QUERIES, HTTP)).toEqual([]);
  });

  it("src/db imports nothing from the layers above it, src/changes among them", () => {
    const above = ["changes", "queries", "feed", "platform", "http", "routes"];
    expect(above.flatMap((layer) => importsInto(join(SRC, "db"), join(SRC, layer)))).toEqual([]);
  });

  it("src imports nothing from client or scripts", () => {
    expect(importsInto(SRC, join(ROOT, "client"))).toEqual([]);
    expect(importsInto(SRC, join(ROOT, "scripts"))).toEqual([]);
  });

  it("src asserts no type through unknown (as unknown as)", () => {
    expect(placesOf(SRC, /\bas\s+unknown\s+as\b/g)).toEqual([]);
  });

  it("src writes no fragment's values into its text with .inlineParams()", () => {
    expect(placesOf(SRC, /\.inlineParams\(\)/g)).toEqual([]);
  });

  it("the guard sees an import into src/http in each form a module can write it", () => {
    const forms = [
      'import { log } from "../http/context.ts";',
      'import type { AppEnv } from "../http/context.ts";',
      'import {\n  a,\n  b,\n} from "../http/errors.ts";',
      'export { x } from "../http/bookmark.ts";',
      'import "../http/side.ts";',
      'const m = await import("../http/lazy.ts");',
    ];
    for (const form of forms) expect(specifiers(form), form).toEqual([expect.stringMatching(/^\.\.\/http\//)]);
  });
});
