/**
 * The Worker as a consumer meets it, for Node tests: `wrangler dev` on free
 * loopback ports, over a wrangler state directory of its own that is
 * migrated and seeded as `npm start` does (seed/seed.ts's defaults, so the
 * README's requests find data, with the key `local-dev-key`): a copy of the
 * run's seeded template (templates.ts). Nothing touches .wrangler/state.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, startDevServer, waitUntilUp } from "../../scripts/devServer.ts";
import { seededState } from "./templates.ts";

export const LOCAL_DEV_KEY = "local-dev-key";

/** The project's own tools (wrangler) first, as npm scripts have them; no usage metrics sent from tests. */
const env = {
  ...process.env,
  PATH: `${join(process.cwd(), "node_modules/.bin")}:${process.env.PATH ?? ""}`,
  WRANGLER_SEND_METRICS: "false",
};

export interface DevWorker {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  base: string;
  stop(): Promise<void>;
}

/** A running `wrangler dev` on loopback (devOnFreePorts). */
export interface DevServer {
  server: ChildProcess;
  port: number;
  inspectorPort: number;
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  base: string;
  /** Ends wrangler dev, its whole process group, and waits for it. */
  end(): Promise<void>;
}

/**
 * `wrangler dev` with `extra` arguments (a `--persist-to`, `--assets`) in
 * `environment`, on loopback ports free when chosen, up once it answers.
 * A port free when chosen can be taken before wrangler binds it (the run's
 * other files start servers and runtimes of their own): then wrangler dev
 * exits at once, and new ports are tried, up to three times. Its warnings
 * go to console.error, shown with a failing test only (vitest's silent:
 * "passed-only").
 */
export async function devOnFreePorts(extra: string[], environment: NodeJS.ProcessEnv = env): Promise<DevServer> {
  for (let attempt = 1; ; attempt++) {
    const [port, inspectorPort] = [await freePort(), await freePort()];
    let taken = false;
    const server = startDevServer(port, inspectorPort, extra, environment, (text) => {
      if (text.includes("Address already in use")) taken = true;
      console.error(text);
    });
    const end = async () => {
      if (server.exitCode === null && server.pid !== undefined) {
        const exited = once(server, "exit");
        process.kill(-server.pid, "SIGTERM");
        await exited;
      }
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitUntilUp(server, base);
      return { server, port, inspectorPort, base, end };
    } catch (err) {
      // Its last words may still be on their way.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await end();
      if (taken && attempt < 3) continue;
      throw err;
    }
  }
}

/**
 * Starts the seeded Worker; `stop()` ends wrangler dev (its whole process
 * group) and removes the state. `extra` arguments go to wrangler dev (the
 * console's test serves its own build with `--assets DIR`).
 */
export async function startDevWorker(extra: string[] = []): Promise<DevWorker> {
  // Migrated and seeded as npm start leaves a first start: a copy of the run's template (templates.ts).
  const dir = mkdtempSync(join(tmpdir(), "dev-worker-"));
  const state = seededState(join(dir, "state"));
  try {
    const { base, end } = await devOnFreePorts(["--persist-to", state, ...extra]);
    return {
      base,
      stop: async () => {
        await end();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
