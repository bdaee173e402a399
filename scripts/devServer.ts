/**
 * Shared by the load test and the benchmark: a local `wrangler dev` to
 * drive, an API key that skips per-key limits, and workerd's memory.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { putLocalKey } from "../seed/localKv.ts";

/** A key that skips per-key limits, so a run measures the service, not the limiter. */
export async function unmeteredKey(label: string): Promise<string> {
  const key = `${label.replaceAll(" ", "-")}-${crypto.randomUUID()}`;
  await putLocalKey(key, { label, created: new Date().toISOString(), status: "active", rateLimit: "unmetered" });
  return key;
}

/** `wrangler dev` on loopback, in its own process group (kill with -pid). */
export function startDevServer(port: number): ChildProcess {
  return spawn("wrangler", ["dev", "--port", String(port), "--ip", "127.0.0.1", "--log-level", "warn"], {
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
  });
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

export /** Resident memory (kB) of every workerd process started under `root`. */
function workerdRssKb(root: number): number {
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
  let total = 0;
  for (const [pid, name] of names) {
    if (!name.startsWith("workerd") || !descends(pid)) continue;
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    total += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return total;
}
