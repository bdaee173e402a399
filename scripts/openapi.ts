/**
 * Writes the OpenAPI document the Worker serves at /openapi.json to a file,
 * for the linters and the client's type generator (.ci/run):
 *
 *   node scripts/openapi.ts [out.json]     # default: openapi.json
 *
 * The app is loaded through Vite's module runner, as the tests load it (its
 * modules import package.json by name, which plain Node does not allow), and
 * asked for the document as a client would.
 */
import { writeFileSync } from "node:fs";
import { runnerImport } from "vite";

const out = process.argv[2] ?? "openapi.json";
const { module } = await runnerImport<typeof import("../src/app.ts")>("./src/app.ts", {
  configFile: false,
  logLevel: "error",
});
// The request log line is not wanted here.
console.log = () => {};
const res = await module.createApp().request("/openapi.json");
if (res.status !== 200) throw new Error(`/openapi.json answered ${res.status}`);
writeFileSync(out, `${JSON.stringify(await res.json(), null, 2)}\n`);
console.error(`wrote ${out}`);
