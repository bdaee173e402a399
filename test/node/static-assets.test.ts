/**
 * Files Workers static assets serve from public/ (wrangler.toml [assets]),
 * which the Worker's own routes never see.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("static assets", () => {
  it("include a favicon, so a browser's /favicon.ico is not a 404", () => {
    const icon = readFileSync("public/favicon.ico");
    // ICONDIR: reserved 0, type 1 (icon), then at least one image.
    expect(icon.readUInt16LE(0)).toBe(0);
    expect(icon.readUInt16LE(2)).toBe(1);
    expect(icon.readUInt16LE(4)).toBeGreaterThan(0);
    expect(readFileSync("wrangler.toml", "utf8")).toMatch(/\[assets\]\s*\ndirectory = "\.\/public"/);
  });
});
