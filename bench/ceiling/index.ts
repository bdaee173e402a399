/**
 * The benchmark's ceiling (scripts/bench.ts): a Worker that does nothing but
 * one trivial D1 query per request, run by `wrangler dev` like the service.
 * Its requests per second are the most any D1-backed Worker reaches on the
 * machine and runtime at hand, so the service's throughput is reported as a
 * share of it.
 *
 * `/fanout/N` is the same for a request that spans states: one trivial query
 * on each of N databases at once, each through its own session, as the
 * service reads every shard. It shows how much of a cross-state request's
 * cost is the fan-out itself.
 */
type CeilingEnv = Record<"DB" | "DB_2" | "DB_3" | "DB_4" | "DB_5" | "DB_6", D1Database>;

const BINDINGS = ["DB", "DB_2", "DB_3", "DB_4", "DB_5", "DB_6"] as const;

export default {
  async fetch(request: Request, env: CeilingEnv): Promise<Response> {
    const fanout = /\/fanout\/(\d)/.exec(request.url);
    if (!fanout) {
      const row = await env.DB.prepare("select 1 as one").first<{ one: number }>();
      return Response.json({ one: row?.one ?? null });
    }
    const databases = BINDINGS.slice(0, Number(fanout[1])).map((name) => env[name]);
    const rows = await Promise.all(
      databases.map((db) => db.withSession("first-unconstrained").prepare("select 1 as one").first<{ one: number }>()),
    );
    return Response.json({ one: rows.map((row) => row?.one ?? null) });
  },
};
