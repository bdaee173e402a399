/**
 * The queries do not depend on HTTP: src/queries takes Db values (and a
 * ShardReader for cross-shard merges) and imports nothing from src/http,
 * so the importer, scripts and tests can run them without a request. The
 * HTTP layer supplies sessions, metering and 503s (src/http/d1.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const QUERIES = join(ROOT, "src/queries");
const HTTP = join(ROOT, "src/http");

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
  for (const entry of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue;
    const file = join(dir, entry);
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) continue;
      const target = resolve(dirname(file), spec);
      if (!relative(into, target).startsWith("..")) offending.push(`${relative(ROOT, file)} imports ${spec}`);
    }
  }
  return offending;
}

describe("module layers", () => {
  it("src/queries imports nothing from src/http", () => {
    expect(importsInto(QUERIES, HTTP)).toEqual([]);
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
