/**
 * The benchmark's in-Worker measure (scripts/benchInWorker.ts): the
 * service's app in workerd, answering an endpoint's requests over and over
 * inside one request, so that workerd's CPU for that request, divided by the
 * requests answered, is the cost of one on the service's own runtime,
 * without a driven server's spread.
 *
 * The benchmark PUTs what it needs: the app's vars, each statement's rows
 * (by binding, SQL text and bound values), each endpoint's request paths and
 * each path's statements. `GET /run?endpoint=…&passes=N&mode=M` then answers
 * that endpoint's paths N times in turn, each with a fresh counter parameter
 * as the driven benchmark sends them (so no edge cache), by mode:
 * - app: through the app, every statement answered from the rows PUT;
 * - d1: through the app, on the local D1 databases (this Worker's bindings);
 * - replay: the path's statements sent to those databases as bench/replay
 *   sends them, and their rows made JSON;
 * - after: the replay, then the app answering from the rows PUT (our code
 *   as it runs after D1's);
 * - bare: a response of `{}`, the loop's own cost.
 */
import { createApp } from "../../src/app.ts";
import { type Batch, replayRounds } from "../replay/index.ts";

type Row = Record<string, unknown>;

/** What the benchmark PUTs. */
interface Captured {
  vars: Record<string, unknown>;
  /** Rows of each statement, by binding, then by its SQL text and bound values (statementKey). */
  rows: Record<string, Record<string, Row[]>>;
  /** Each endpoint's request paths. */
  paths: Record<string, string[]>;
  /** Each path's statements as the app sent them: rounds of batches, one per shard (as bench/replay takes them). */
  rounds: Record<string, Batch[][]>;
  key: string;
}

const statementKey = (sql: string, params: unknown[]) => `${sql}\u0000${JSON.stringify(params)}`;

/** A statement that was not captured: the run reports it rather than measuring an error path. */
class Uncaptured extends Error {}

/** Enough of a D1 binding for the app: prepared statements, batches and sessions, answered from `rows`. */
function answeringD1(rows: Record<string, Row[]>) {
  const meta = { rows_read: 0, rows_written: 0, duration: 0 };
  const answer = (sql: string, params: unknown[]) => {
    const found = rows[statementKey(sql, params)];
    if (!found) throw new Uncaptured(sql.slice(0, 80));
    return found;
  };
  const statement = (sql: string, params: unknown[]) => ({
    sql,
    params,
    bind: (...values: unknown[]) => statement(sql, values),
    result: () => ({ results: answer(sql, params), success: true, meta }),
    async all() {
      return this.result();
    },
    async run() {
      return this.result();
    },
    async raw() {
      return answer(sql, params).map((row) => Object.values(row));
    },
    async first(column?: string) {
      const [row] = answer(sql, params);
      return row === undefined ? null : column ? row[column] : row;
    },
  });
  const d1 = {
    prepare: (sql: string) => statement(sql, []),
    batch: async (statements: ReturnType<typeof statement>[]) => statements.map((s) => s.result()),
    withSession: () => ({ ...d1, getBookmark: () => null }),
  };
  return d1;
}

let captured: Captured | undefined;
let env: Record<string, unknown> = {};
/** The same, with the local D1 databases themselves (mode `d1`). */
let realEnv: Record<string, unknown> = {};
const app = createApp();
const context = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} } as unknown as ExecutionContext;
let counter = 0;

export default {
  async fetch(request: Request, bindings: Record<string, unknown>): Promise<Response> {
    if (request.method === "PUT") {
      captured = (await request.json()) as Captured;
      const keyStore = {
        getWithMetadata: async () => ({
          value: "",
          metadata: { label: "bench", created: new Date().toISOString(), status: "active", rateLimit: "unmetered" },
        }),
      };
      const allow = { limit: async () => ({ success: true }) };
      const databases = Object.fromEntries(Object.entries(captured.rows).map(([b, rows]) => [b, answeringD1(rows)]));
      const withDefault = (target: Record<string, unknown>) =>
        new Proxy(target, { get: (t, name: string) => (name in t ? t[name] : allow) });
      env = withDefault({ ...captured.vars, ...databases, API_KEYS: keyStore });
      realEnv = withDefault({ ...captured.vars, API_KEYS: keyStore });
      return new Response(null, { status: 204 });
    }
    const url = new URL(request.url);
    const paths = captured?.paths[url.searchParams.get("endpoint") ?? ""];
    if (!captured || !paths) return new Response("nothing captured for this endpoint", { status: 404 });
    const passes = Number(url.searchParams.get("passes") ?? "1");
    const mode = url.searchParams.get("mode") ?? "app";
    // The local databases of this request's env (the bindings, as the service's own env holds them).
    for (const binding of Object.keys(captured.rows)) realEnv[binding] = bindings[binding];
    const headers = { "x-api-key": captured.key, "cf-connecting-ip": "192.0.2.1" };
    const failed: string[] = [];
    let answered = 0;
    for (let pass = 0; pass < passes; pass++) {
      for (const path of paths) {
        counter += 1;
        const req = new Request(`http://bench${path}${path.includes("?") ? "&" : "?"}r=${counter}`, { headers });
        if (mode === "after") await replayRounds(captured.rounds[path] ?? [], bindings);
        const res =
          mode === "app" || mode === "d1" || mode === "after"
            ? await app.fetch(req, (mode === "d1" ? realEnv : env) as unknown as Env, context)
            : mode === "replay"
              ? Response.json(await replayRounds(captured.rounds[path] ?? [], bindings))
              : new Response("{}", { headers: { "Content-Type": "application/json" } });
        await res.arrayBuffer();
        answered += 1;
        if (res.status !== 200 && failed.length < 5) failed.push(`${path}: ${res.status}`);
      }
    }
    return Response.json({ answered, failed });
  },
};
