/**
 * What an environment pulls (src/platform/pullSource.ts): wrangler.toml's
 * vars `PULL_SOURCES`, the sources the daily Cron Trigger pulls, and
 * `SOURCE_PORTALS`, a source's portal address where it is not its
 * office's (a mirror, a test server):
 *
 *   PULL_SOURCES = ["ct", "co", "or"]
 *   SOURCE_PORTALS = { co = "https://mirror.example.org" }
 *
 * Read with zod where they are used: a value that cannot be used is a
 * PullConfigError naming the var, which the trigger logs. Apart from the
 * Workflow (no cloudflare: imports), so Node checks each environment's
 * values too (test/node/pull-config.test.ts).
 */
import { z } from "zod";
import { SOURCE_IDS, type SourceId } from "../feed/sources/source.ts";

export const portalUrl = z
  .url({ protocol: /^https?$/, error: "not an http(s) URL" })
  .transform((u) => u.replace(/\/+$/, ""));

/** What an environment pulls: wrangler.toml's `PULL_SOURCES` and `SOURCE_PORTALS` vars. */
const configSchema = z.object({
  PULL_SOURCES: z.array(z.enum(SOURCE_IDS)).default([]),
  SOURCE_PORTALS: z.partialRecord(z.enum(SOURCE_IDS), portalUrl).default({}),
});

export class PullConfigError extends Error {
  override name = "PullConfigError";
}

/** A var as wrangler gives it: an object, or its JSON text (a var set as text, or in .dev.vars). */
function varOf(vars: object, name: string): unknown {
  const value: unknown = Reflect.get(vars, name);
  if (typeof value !== "string") return value;
  try {
    return JSON.parse(value);
  } catch {
    throw new PullConfigError(`${name} is not JSON`);
  }
}

/** The sources the environment pulls daily, and each source's portal address where it is not the office's. */
export function pullConfig(vars: object): { sources: SourceId[]; portals: Partial<Record<SourceId, string>> } {
  const parsed = configSchema.safeParse({
    PULL_SOURCES: varOf(vars, "PULL_SOURCES"),
    SOURCE_PORTALS: varOf(vars, "SOURCE_PORTALS"),
  });
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    throw new PullConfigError(`${issue?.path.join(".") || "value"}: ${issue?.message}`);
  }
  return { sources: [...new Set(parsed.data.PULL_SOURCES)], portals: parsed.data.SOURCE_PORTALS };
}
