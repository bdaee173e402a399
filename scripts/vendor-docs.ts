/**
 * Copies Swagger UI's browser files from node_modules into public/, where
 * Workers static assets serve them to the /docs page. Run by `postinstall`,
 * so the page needs no outside CDN. Its closing line is the one thing an
 * install prints (npm is silent here and shows install scripts' output:
 * .npmrc).
 */
import { copyFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const source = dirname(require.resolve("swagger-ui-dist/package.json"));
const target = join(import.meta.dirname, "..", "public", "docs", "vendor");
mkdirSync(target, { recursive: true });
for (const file of ["swagger-ui-bundle.js", "swagger-ui.css"]) copyFileSync(join(source, file), join(target, file));
console.log(`Installed; the project's scripts run on Node ${process.version}. Next: npm start`);
