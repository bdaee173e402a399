/**
 * One structured log line: JSON with `level` first, written at its own
 * level (console.info, .warn, .error), so Workers Logs' level filter
 * matches the line's `level` field. Outside src/http so that the queue
 * consumer and the cron job, which serve no request, write the same lines.
 */
export type LogLevel = "info" | "warn" | "error";

export function logLine(level: LogLevel, fields: Record<string, unknown>): void {
  const line = JSON.stringify({ level, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.info(line);
}
