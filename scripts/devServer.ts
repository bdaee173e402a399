/**
 * Shared by the load test and the benchmark: a local `wrangler dev` to
 * drive, an API key that skips per-key limits, and memory: workerd's
 * resident size, and the Worker's own V8 heap read through the inspector.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, release, totalmem, type } from "node:os";
import { dirname, resolve } from "node:path";
import { putLocalKey } from "../seed/localKv.ts";

/** A key that skips per-key limits, so a run measures the service, not the limiter. */
export async function unmeteredKey(label: string): Promise<string> {
  const key = `${label.replaceAll(" ", "-")}-${crypto.randomUUID()}`;
  await putLocalKey(key, { label, created: new Date().toISOString(), status: "active", rateLimit: "unmetered" });
  return key;
}

/**
 * `wrangler dev` on loopback, in its own process group (kill with -pid),
 * with its inspector on `inspectorPort` when given (see workerHeapBytes).
 * `extra` arguments (another Worker's `--config`, a `--persist-to`) follow
 * the shared flags; `env`, the environment it runs in. Its warnings and
 * errors go to this process's stderr, or to `stderr` when given (tests pass
 * console.error, so vitest shows them with a failing test only).
 */
export function startDevServer(
  port: number,
  inspectorPort?: number,
  extra: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  stderr?: (text: string) => void,
): ChildProcess {
  const inspector = inspectorPort ? ["--inspector-port", String(inspectorPort)] : [];
  const args = ["dev", "--port", String(port), "--ip", "127.0.0.1", ...inspector, "--log-level", "warn", ...extra];
  const server = spawn("wrangler", args, {
    stdio: ["ignore", "ignore", stderr ? "pipe" : "inherit"],
    detached: true,
    // The Worker never reads request.cf: wrangler need not fetch its placeholder from the network.
    env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...env },
  });
  if (stderr) server.stderr?.setEncoding("utf8").on("data", stderr);
  return server;
}

/**
 * Stops a startDevServer's `wrangler dev` and everything it started (its
 * process group). A server already gone is no error: this runs in the
 * `finally` of a failed run, whose own error must be the one reported.
 */
export function stopDevServer(server: ChildProcess | null | undefined): void {
  if (!server?.pid) return;
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err;
  }
}

/**
 * Gives a `wrangler dev` whose state is `state` (its --persist-to) the D1
 * databases of another state directory, one of whose files is `d1File`
 * (<state>/v3/d1/<Durable Object class>/<file>): its D1 directory becomes a
 * link to that one, while the rest of its state (cache, trace collector) is
 * its own. What was there (a link, or a directory an earlier run made) goes.
 * So does its local trace store (wrangler's dev dashboard, which no
 * benchmark reads): the collector keeps every span of every run, about 2 GB
 * a full `--in-worker` run, and would fill the disk over a few.
 */
export function shareLocalD1(state: string, d1File: string): void {
  rmSync(`${state}/v3/observability`, { force: true, recursive: true });
  const link = `${state}/v3/d1`;
  mkdirSync(dirname(link), { recursive: true });
  rmSync(link, { force: true, recursive: true });
  symlinkSync(dirname(dirname(resolve(d1File))), link);
}

/** A port free on loopback now, for a server started next. */
export async function freePort(): Promise<number> {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

/** The ports of `ports` that something listens on now (on loopback or every address). */
export async function portsTaken(ports: number[]): Promise<number[]> {
  const taken: number[] = [];
  for (const port of ports) {
    const server = createServer();
    const free = await new Promise<boolean>((settle) => {
      server.once("error", () => settle(false));
      server.listen(port, "127.0.0.1", () => settle(true));
    });
    if (free) await new Promise((closed) => server.close(closed));
    else taken.push(port);
  }
  return taken;
}

/**
 * Exits with a message, not a stack trace, if any of `ports` is taken. Run
 * before a script starts its servers: a port another server holds (a
 * `wrangler dev` left running, an earlier benchmark) would answer the
 * readiness check and every request in place of the server just started.
 */
export async function exitUnlessPortsFree(ports: number[], option = "--port"): Promise<void> {
  const taken = await portsTaken(ports);
  if (taken.length === 0) return;
  console.error(
    `Port ${taken.join(", ")} in use (a wrangler dev still running?): stop what holds it, or pass ${option}.`,
  );
  process.exit(1);
}

export async function waitUntilUp(server: ChildProcess, base: string): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if (server.exitCode !== null) throw new Error("wrangler dev exited");
    try {
      await fetch(`${base}/openapi.json`);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error("wrangler dev did not start");
}

/** The workerd processes started under `root`. */
function workerdPids(root: number): number[] {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      names.set(pid, stat.slice(stat.indexOf("(") + 1, close));
      parents.set(pid, Number(stat.slice(close + 2).split(" ")[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parents.get(pid); p !== undefined && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => name.startsWith("workerd") && descends(pid)).map(([pid]) => pid);
}

/** Resident memory (kB) of every workerd process started under `root`. */
export function workerdRssKb(root: number): number {
  let total = 0;
  for (const pid of workerdPids(root)) {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return total;
}

/**
 * CPU time (ms, user and system) that the workerd processes under `root`
 * have used: per request, the runtime's cost of an answer, which unlike its
 * latency does not depend on what else the machine is running.
 */
export function workerdCpuMs(root: number): number {
  // Each thread's time on a CPU, in ns (the first field of its schedstat): /proc/PID/stat's user and
  // system time count whole clock ticks (10 ms), too coarse for a few hundred requests.
  let ns = 0;
  for (const pid of workerdPids(root)) {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return ns / 1e6;
}

/** A DevTools protocol session with the Worker, through wrangler's inspector proxy. */
export interface Inspector {
  send(method: string, params?: object): Promise<Record<string, unknown>>;
  close(): void;
}

/**
 * Connects to the Worker's inspector on `inspectorPort` (a `wrangler dev --inspector-port`), once it lists the
 * Worker. A command not answered within `timeoutMs` fails.
 */
export async function openInspector(inspectorPort: number, timeoutMs = 60_000): Promise<Inspector> {
  const base = `127.0.0.1:${inspectorPort}`;
  for (let i = 0; i < 60; i++) {
    const targets = (await (await fetch(`http://${base}/json`)).json()) as unknown[];
    if (targets.length > 0) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  // The proxy only admits local origins.
  const ws = new WebSocket(`ws://${base}/ws`, { headers: { Origin: "http://localhost" } } as never);
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", () => reject(new Error("cannot reach the Worker's inspector")));
  });
  const waiting = new Map<number, (result: Record<string, unknown>) => void>();
  ws.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown> };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? {});
  });
  let next = 0;
  return {
    send: (method, params = {}) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const id = ++next;
        const timer = setTimeout(() => reject(new Error(`inspector: no answer to ${method}`)), timeoutMs);
        waiting.set(id, (result) => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve(result);
        });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/**
 * Bytes of the Worker's V8 heap in use after a full garbage collection: what
 * the Worker itself keeps alive, apart from the runtime around it. Read
 * through wrangler's inspector proxy; taking a heap snapshot forces the
 * collection (the proxy does not answer HeapProfiler.collectGarbage).
 * While a load runs, the Worker can leave a command unanswered until the
 * load's steps end (31 s for the snapshot, 28 s for the heap figure after
 * one, in test/node/import-workflow.test.ts here; past the 60 s the other
 * commands get on a busy CI machine): these get five minutes.
 */
export async function workerHeapBytes(inspectorPort: number): Promise<number> {
  const inspector = await openInspector(inspectorPort, 5 * 60_000);
  try {
    await inspector.send("HeapProfiler.enable");
    await inspector.send("HeapProfiler.takeHeapSnapshot", { reportProgress: false });
    return Number((await inspector.send("Runtime.getHeapUsage")).usedSize);
  } finally {
    inspector.close();
  }
}

/** The machine and tool versions a benchmark ran on, for its results. */
export function machine(): string {
  const version = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { encoding: "utf8" }).trim().split("\n").at(-1);
    } catch {
      return "unknown";
    }
  };
  const workerd = JSON.parse(readFileSync("node_modules/workerd/package.json", "utf8")).version;
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory, ${type()} ${release()}; Node ${process.version}, wrangler ${version("wrangler", ["--version"])}, workerd ${workerd}`;
}
