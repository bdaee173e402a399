/**
 * A benchmark server's state directory (scripts/devServer.ts, shareLocalD1):
 * the seeded D1 databases of the local state, shared by a link, and a trace
 * store of its own that starts empty on every run; and its stop.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, portsTaken, shareLocalD1, stopDevServer } from "../../scripts/devServer.ts";

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

describe("stopping a benchmark server", () => {
  it("stops its whole process group: wrangler and the workerd it started", async () => {
    // A parent that starts a child in its group, as wrangler starts workerd; the child shares its stdout.
    const script =
      "require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); console.log('up'); setInterval(() => {}, 1000)";
    const server = spawn(process.execPath, ["-e", script], { detached: true, stdio: ["ignore", "pipe", "ignore"] });
    const out = server.stdout;
    if (!out) throw new Error("no stdout");
    await once(out, "data");
    const closed = once(out, "close");
    const exited = once(server, "exit");
    stopDevServer(server);
    // The pipe closes only once every process holding it, the child too, has exited.
    await closed;
    expect((await exited)[1]).toBe("SIGTERM");
  });

  it("takes a server already gone as stopped, so a failed run reports its own error", async () => {
    const server = spawn(process.execPath, ["-e", "process.exit(3)"], { detached: true, stdio: "ignore" });
    await once(server, "exit");
    expect(() => process.kill(-(server.pid as number), 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(() => stopDevServer(server)).not.toThrow();
    expect(() => stopDevServer(undefined)).not.toThrow();
  });
});

describe("a benchmark's ports", () => {
  it("finds a port another server holds, and passes free ones", async () => {
    const port = await freePort();
    expect(await portsTaken([port])).toEqual([]);
    // Held on every address, as a stray server holds it: loopback requests would reach it.
    const stray = createServer((_, res) => res.end("x")).listen(port);
    await once(stray, "listening");
    try {
      expect(await portsTaken([await freePort(), port])).toEqual([port]);
    } finally {
      stray.close();
    }
  });
});
