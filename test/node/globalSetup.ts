/**
 * Once per run of the Node tests: a directory for the template states the
 * files copy (templates.ts), removed at the end.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "lien-templates-"));
  project.provide("templates", dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
