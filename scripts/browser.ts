/**
 * A real browser for the console's test and benchmark: Debian's chromium
 * package (never a downloaded build), driven by playwright-core, with a
 * fresh profile each time; and the static assets it is served, with the
 * console built from the source as it stands.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { buildConsole } from "./buildConsole.ts";

const CHROMIUM = "/usr/bin/chromium";

/** No network of its own: no updates, sync, QUIC or first-run pages; no GPU or sandbox in a container. */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a profile of its own (playwright passes it as --user-data-dir), removed on close. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's package (apt-get install -y chromium), as .ci/run does`);
  }
  const profile = mkdtempSync(join(tmpdir(), "console-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/**
 * A copy of public/ with the console built into it from src/console now:
 * what `wrangler dev --assets DIR` serves, so a run tests the source beside
 * it and never rewrites the public/ another dev server may be serving.
 */
export async function consoleAssets(): Promise<{ dir: string; remove(): void }> {
  const root = resolve(import.meta.dirname, "..");
  const dir = mkdtempSync(join(tmpdir(), "console-assets-"));
  const built = join(root, "public", "console");
  cpSync(join(root, "public"), dir, { recursive: true, filter: (src) => relative(built, src).startsWith("..") });
  await buildConsole(join(dir, "console"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
