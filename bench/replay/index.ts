/**
 * The benchmark's replay (scripts/bench.ts): a bare Worker that sends a
 * request's own statements, as the service sent them, to the service's
 * local D1 shards and answers their rows as JSON. The service's throughput
 * and CPU are reported against it: what the service's code adds to the SQL
 * it must run, on the same runtime, the same thread and the same files.
 *
 * The benchmark PUTs the statements it captured, per request path; a GET of
 * that path (with any `r=` counter last) replays them: round after round
 * (a round waits on the one before, as a deep page's second read does), the
 * round's batches at once, one per shard, each shard read through one
 * session for the whole request, as src/http/d1.ts reads them.
 */
interface Statement {
  sql: string;
  params: unknown[];
}

/** One D1 batch: a shard's statements of one round. */
interface Batch {
  binding: string;
  statements: Statement[];
}

/** Rounds of batches, per request path. */
let captured = new Map<string, Batch[][]>();

export default {
  async fetch(request: Request, env: Record<string, D1Database | undefined>): Promise<Response> {
    if (request.method === "PUT") {
      captured = new Map(Object.entries((await request.json()) as Record<string, Batch[][]>));
      return new Response(null, { status: 204 });
    }
    const url = request.url;
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2)).replace(/[&?]r=\d+$/, "");
    const rounds = captured.get(path);
    if (!rounds) return new Response("no statements captured for this path", { status: 404 });
    const sessions = new Map<string, D1DatabaseSession>();
    const sessionOf = (binding: string) => {
      let session = sessions.get(binding);
      if (!session) {
        const d1 = env[binding];
        if (!d1) throw new Error(`no D1 binding ${binding}`);
        session = d1.withSession("first-unconstrained");
        sessions.set(binding, session);
      }
      return session;
    };
    const rows: unknown[][] = [];
    for (const round of rounds) {
      const results = await Promise.all(
        round.map(({ binding, statements }) => {
          const session = sessionOf(binding);
          return session.batch(statements.map(({ sql, params }) => session.prepare(sql).bind(...params)));
        }),
      );
      for (const batch of results) for (const result of batch) rows.push(result.results);
    }
    return Response.json(rows);
  },
};
