/**
 * Builds the console (src/console/, docs/console.md) into one script and
 * one stylesheet, which Workers static assets serve at /console/console.js
 * and /console/console.css to the page GET /console answers
 * (src/routes/console.ts).
 *
 *   npm run build:console [-- --out DIR]
 *
 * The output is generated, never committed (public/console/ is
 * gitignored): `npm ci` builds it (postinstall), and so do `npm start`, the
 * deploy scripts and the browser test, so what runs is always built from
 * the source beside it. Fixed file names rather than content hashes: the
 * page names them, and static assets revalidate by ETag. `--out` writes
 * elsewhere (the browser test and the benchmark build into a copy of
 * public/, leaving the working tree's alone).
 */
import { join, resolve } from "node:path";
import { build } from "vite";
import { commandLine } from "./commandLine.ts";

const ROOT = resolve(import.meta.dirname, "..");

/** Builds the console into `outDir`, replacing what was there. */
export async function buildConsole(outDir = join(ROOT, "public", "console")): Promise<void> {
  await build({
    configFile: false,
    root: join(ROOT, "src", "console"),
    // The console's one static folder is the Worker's: nothing to copy.
    publicDir: false,
    logLevel: "warn",
    // hono/jsx/dom's automatic runtime: about 10 KB, where React is about 50.
    oxc: { jsx: { runtime: "automatic", importSource: "hono/jsx/dom" } },
    build: {
      outDir,
      emptyOutDir: true,
      // One script: no chunks, so no preload helper (which would also add inline code).
      modulePreload: false,
      cssCodeSplit: false,
      reportCompressedSize: false,
      rolldownOptions: {
        input: join(ROOT, "src", "console", "main.tsx"),
        output: { entryFileNames: "console.js", assetFileNames: "console[extname]" },
      },
    },
  });
}

if (import.meta.main) {
  const { values } = commandLine("usage: npm run build:console -- [--out DIR]", {
    options: { out: { type: "string" } },
  });
  await buildConsole(values.out ? resolve(values.out) : undefined);
}
