/**
 * The Worker as a consumer meets it, for Node tests: `wrangler dev` on free
 * loopback ports, over a wrangler state directory of its own that is
 * migrated and seeded as `npm start` does (seed/seed.ts's defaults, so the
 * README's requests find data, with the key `local-dev-key`): a copy of the
 * run's seeded template (templates.ts). Nothing touches .wrangler/state.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startDevServer, waitUntilUp } from "../../scripts/devServer.ts";
import { seededState } from "./templates.ts";

export const LOCAL_DEV_KEY = "local-dev-key";

/** The project's own tools (wrangler) first, as npm scripts have them; no usage metrics sent from tests. */
const env = {
  ...process.env,
  PATH: `${join(process.cwd(), "node_modules/.bin")}:${process.env.PATH ?? ""}`,
  WRANGLER_SEND_METRICS: "false",
};

/** A loopback port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface DevWorker {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  base: string;
  stop(): Promise<void>;
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
  // A port free when chosen can be taken before wrangler binds it (the run's other files start
  // servers and runtimes of their own): then wrangler dev exits at once, and new ports are tried.
  for (let attempt = 1; ; attempt++) {
    const [port, inspector] = [await freePort(), await freePort()];
    let taken = false;
    // wrangler's own warnings, shown with a failing test only (vitest's silent: "passed-only").
    const dev = startDevServer(port, inspector, ["--persist-to", state, ...extra], env, (text) => {
      if (text.includes("Address already in use")) taken = true;
      console.error(text);
    });
    const end = async () => {
      if (dev.exitCode === null && dev.pid !== undefined) {
        const exited = new Promise((resolve) => dev.once("exit", resolve));
        process.kill(-dev.pid, "SIGTERM");
        await exited;
      }
    };
    const stop = async () => {
      await end();
      rmSync(dir, { recursive: true, force: true });
    };
    const base = `http://127.0.0.1:${port}`;
    try {
      await waitUntilUp(dev, base);
      return { base, stop };
    } catch (err) {
      // Its last words may still be on their way.
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (taken && attempt < 3) {
        await end();
        continue;
      }
      await stop();
      throw err;
    }
  }
}
