/**
 * The console's entry (built by scripts/buildConsole.ts into
 * public/console/console.js): renders the app into the page GET /console
 * serves (src/routes/console.ts).
 */
import { render } from "hono/jsx/dom";
import { App } from "./App.tsx";
import "./console.css";

const root = document.getElementById("console");
if (root) {
  root.replaceChildren();
  render(<App />, root);
}
