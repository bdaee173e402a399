/**
 * A kept CPU profile stays readable after `wrangler dev` stops: the bench
 * copies the bundle it was taken on, with its map, beside it
 * (scripts/cpuProfile.ts, keepBundle).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { keepBundle } from "../../scripts/cpuProfile.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fake `.wrangler/tmp` with a bundle (and its map) per name, the last written newest. */
function devTmp(names: string[]): string {
  const tmp = mkdtempSync(join(tmpdir(), "bundles-"));
  dirs.push(tmp);
  names.forEach((name, i) => {
    mkdirSync(join(tmp, name));
    writeFileSync(join(tmp, name, "index.js"), `// ${name}`);
    writeFileSync(join(tmp, name, "index.js.map"), JSON.stringify({ version: 3, file: name }));
    const at = new Date(Date.UTC(2026, 0, 1, 0, 0, i));
    utimesSync(join(tmp, name, "index.js"), at, at);
  });
  return tmp;
}

describe("keeping a profile's bundle", () => {
  it("copies the newest bundle under wrangler's tmp and its map beside the profiles", () => {
    const tmp = devTmp(["dev-older", "dev-newer"]);
    const out = join(tmp, "profiles");
    mkdirSync(out);
    keepBundle(tmp, out, "service.js");
    expect(readFileSync(join(out, "service.js"), "utf8")).toBe("// dev-newer");
    expect(JSON.parse(readFileSync(join(out, "service.js.map"), "utf8"))).toEqual({ version: 3, file: "dev-newer" });
  });

  it("copies nothing when wrangler left no bundle", () => {
    const tmp = devTmp([]);
    const out = join(tmp, "profiles");
    mkdirSync(out);
    keepBundle(join(tmp, "missing"), out, "service.js");
    expect(() => readFileSync(join(out, "service.js"))).toThrow();
  });
});
