/**
 * A benchmark server's state directory (scripts/devServer.ts, shareLocalD1):
 * the seeded D1 databases of the local state, shared by a link, and a trace
 * store of its own that starts empty on every run.
 */
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { shareLocalD1 } from "../../scripts/devServer.ts";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a benchmark server's state", () => {
  it("links the local D1 databases and empties the trace store an earlier run filled", () => {
    dir = mkdtempSync(join(tmpdir(), "bench-state-"));
    const file = join(dir, "local/v3/d1/miniflare-D1DatabaseObject/shard.sqlite");
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, "");
    const state = join(dir, "bench");
    const traces = join(state, "v3/observability/miniflare-wobs-trace-store/traces.sqlite");
    mkdirSync(dirname(traces), { recursive: true });
    writeFileSync(traces, "spans of an earlier run");
    shareLocalD1(state, file);
    expect(existsSync(join(state, "v3/observability"))).toBe(false);
    expect(resolve(readlinkSync(join(state, "v3/d1")))).toBe(resolve(dir, "local/v3/d1"));
    // A second run finds its link and no store, and makes the same.
    shareLocalD1(state, file);
    expect(existsSync(join(state, "v3/d1/miniflare-D1DatabaseObject/shard.sqlite"))).toBe(true);
  });
});
