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
 * session for the whole request, as src/http/d1.ts reads them. A path the
 * benchmark marks as limited (the public lookup's) first makes the one call
 * to the per-address rate limiter that the service must make too (the
 * PUBLIC_LOOKUPS binding, by `CF-Connecting-IP`), so the service is
 * measured beyond its SQL and that call.
 */
interface Statement {
  sql: string;
  params: unknown[];
}

/** One D1 batch: a shard's statements of one round. */
export interface Batch {
  binding: string;
  statements: Statement[];
}

/** What the benchmark PUTs: rounds of batches per request path, and the paths limited per client address. */
interface Replayed {
  statements: Record<string, Batch[][]>;
  limited: string[];
}

interface ReplayEnv {
  PUBLIC_LOOKUPS?: RateLimit;
  [binding: string]: D1Database | RateLimit | undefined;
}

/** Rounds of batches, per request path. */
let captured = new Map<string, Batch[][]>();
let limited = new Set<string>();

export default {
  async fetch(request: Request, env: ReplayEnv): Promise<Response> {
    if (request.method === "PUT") {
      const replayed = (await request.json()) as Replayed;
      captured = new Map(Object.entries(replayed.statements));
      limited = new Set(replayed.limited);
      return new Response(null, { status: 204 });
    }
    const url = request.url;
    const path = url.slice(url.indexOf("/", url.indexOf("//") + 2)).replace(/[&?]r=\d+$/, "");
    const rounds = captured.get(path);
    if (!rounds) return new Response("no statements captured for this path", { status: 404 });
    if (limited.has(path)) {
      const key = request.headers.get("cf-connecting-ip") ?? "unknown";
      const allowed = (await env.PUBLIC_LOOKUPS?.limit({ key }))?.success;
      if (!allowed) return new Response("over the limit, or no PUBLIC_LOOKUPS binding", { status: 429 });
    }
    return Response.json(await replayRounds(rounds, env));
  },
};

/**
 * Sends a request's rounds of batches to the D1 bindings of `env`: round
 * after round, a round's batches at once, each shard's through one session
 * for the whole request; every statement's rows, in order. bench/worker
 * replays through it too.
 */
export async function replayRounds(rounds: Batch[][], env: Record<string, unknown>): Promise<unknown[][]> {
  const sessions = new Map<string, D1DatabaseSession>();
  const sessionOf = (binding: string) => {
    let session = sessions.get(binding);
    if (!session) {
      const d1 = env[binding] as D1Database | undefined;
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
  return rows;
}
