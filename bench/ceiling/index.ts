/**
 * The benchmark's ceiling (scripts/bench.ts): a Worker that does nothing but
 * one trivial D1 query per request, run by `wrangler dev` like the service.
 * Its requests per second are the most any D1-backed Worker reaches on the
 * machine and runtime at hand, so the service's throughput is reported as a
 * share of it.
 */
interface CeilingEnv {
  DB: D1Database;
}

export default {
  async fetch(_request: Request, env: CeilingEnv): Promise<Response> {
    const row = await env.DB.prepare("select 1 as one").first<{ one: number }>();
    return Response.json({ one: row?.one ?? null });
  },
};
