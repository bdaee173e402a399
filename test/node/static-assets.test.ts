/**
 * Files Workers static assets serve from public/ (wrangler.toml [assets]),
 * which the Worker's own routes never see.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { createApp } from "../../src/app.ts";

describe("static assets", () => {
  it("include a favicon, so a browser's /favicon.ico is not a 404", () => {
    const icon = readFileSync("public/favicon.ico");
    // ICONDIR: reserved 0, type 1 (icon), then at least one image.
    expect(icon.readUInt16LE(0)).toBe(0);
    expect(icon.readUInt16LE(2)).toBe(1);
    expect(icon.readUInt16LE(4)).toBeGreaterThan(0);
    expect(readFileSync("wrangler.toml", "utf8")).toMatch(/\[assets\]\s*\ndirectory = "\.\/public"/);
  });

  it("are not looked for on the API's paths, which go straight to the Worker", async () => {
    const res = await createApp().request("/openapi.json");
    const { paths } = (await res.json()) as { paths: Record<string, unknown> };
    const listed = unstable_readConfig({ config: "wrangler.toml" }).assets?.run_worker_first;
    const patterns = Array.isArray(listed) ? listed : [];
    const first = (path: string) => patterns.some((p) => new RegExp(`^${p.replaceAll("*", ".*")}$`).test(path));
    expect(Object.keys(paths).length).toBeGreaterThan(10);
    for (const path of Object.keys(paths)) expect(first(path), path).toBe(true);
    for (const file of ["/favicon.ico", "/console/console.js", "/docs/init.js"]) expect(first(file), file).toBe(false);
  });
});
