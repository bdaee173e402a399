/**
 * What every request carries through the app: bindings, the request id, the
 * authenticated key's label, and the request's clock.
 */

import type { Context } from "hono";
import type { RequestIdVariables } from "hono/request-id";
import type { TimingVariables } from "hono/timing";
import { flat } from "../domain/flat.ts";
import { isoSeconds } from "../domain/time.ts";
import { type LogLevel, logLine } from "../log.ts";

export interface AppEnv {
  Bindings: Env;
  Variables: RequestIdVariables &
    TimingVariables & {
      /** Label of the API key that authenticated the request. */
      keyLabel?: string;
      /** SHA-256 digest of that key: the caller's identity for caching and limits. */
      keyDigest?: string;
      /** The request's notion of "now", fixed once so one response is consistent. */
      now: Date;
      /** D1 work of the request, for Server-Timing and the request log. */
      d1: D1Meter;
      /** The request's D1 session on each shard it reads (read replication), opened on first use. */
      d1Sessions?: Map<string, D1DatabaseSession>;
    };
}

export interface D1Meter {
  /** Round trips: batches one after another (a cross-state request's shards are read at once). */
  batches: number;
  /** Rows read on each shard the request read (more than one: a cross-state request fanned out). */
  shardRows: Map<string, number>;
  /** Wall time of the D1 round trips, in ms. */
  ms: number;
}

/** A meter's shards read, rows read in all, and the most rows one shard read (the bounds are per shard). */
export function d1Totals(meter: D1Meter): { shards: number; rowsRead: number; busiestShard: number } {
  const rows = [...meter.shardRows.values()];
  return { shards: rows.length, rowsRead: rows.reduce((a, b) => a + b, 0), busiestShard: Math.max(0, ...rows) };
}

export function responseMetadata(c: Context<AppEnv>) {
  return {
    timestamp: isoSeconds(c.get("now") ?? new Date()),
    // Whole, as every string of a body (src/domain/flat.ts).
    request_id: flat(c.get("requestId") ?? crypto.randomUUID()),
  };
}

/** One structured log line (src/log.ts), always tagged with the request id. */
export function log(c: Context<AppEnv>, level: LogLevel, fields: Record<string, unknown>): void {
  logLine(level, { request_id: c.get("requestId"), ...fields });
}

/**
 * The share of successful requests whose request line is written, from
 * REQUEST_LOG_SAMPLE (0 to 1; unset or not such a number: 1, every request).
 * At national volume one line per lookup is the largest part of the log
 * bill, and under `wrangler dev` each line costs more CPU than a simple
 * lookup (docs/operations.md).
 */
function sampleRate(text: string | undefined): number {
  const rate = text === undefined || text.trim() === "" ? Number.NaN : Number(text);
  return rate >= 0 && rate <= 1 ? rate : 1;
}

/**
 * Whether this request's line is written: always when it did not succeed
 * (refused keys, limits, bad parameters and faults stay visible whatever the
 * rate), else with the configured rate. The rate it was written at, or
 * undefined when it is skipped: a query multiplies sampled lines by
 * 1 / sample_rate.
 */
export function requestLogSample(c: Context<AppEnv>): number | undefined {
  const status = c.res.status;
  if (status >= 400) return 1;
  const rate = sampleRate(c.env?.REQUEST_LOG_SAMPLE);
  if (rate >= 1) return 1;
  return Math.random() < rate ? rate : undefined;
}
