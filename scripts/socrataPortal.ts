/**
 * A local stand-in for a Socrata portal, for the pull's tests and its
 * benchmark (`npm run bench:sources`): datasets held in memory, answered at
 * `/resource/<id>.json` as SODA 2.x answers, with the part of SoQL the pull
 * uses and nothing more:
 * - `$where`: comparisons (`=`, `>`, `>=`, `<`, `<=`) of a column or a
 *   system field (`:id`, `:created_at`, `:updated_at`) with a quoted
 *   literal, and `IS NULL`, joined by AND, or by OR within parentheses
 *   (no AND inside them); dates compared as instants;
 * - `$order`: columns or system fields, each ASC (default) or DESC;
 * - `$limit` (default 1,000, at most 50,000) and `$offset`.
 * Any other `$` parameter is a 400, as is a malformed clause. Rows come as
 * JSON objects without their null fields, numbers as strings; every answer
 * has a Date header (the portal's clock). Faults can be queued: a status
 * (and Retry-After) answered instead of the next requests. `fetch` gives
 * the same answers in-process, for tests in workerd, where nothing listens.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

type Value = string | number | boolean | null | undefined;

interface HeldRow {
  fields: Record<string, Value>;
  id: string;
  createdAt: string;
  updatedAt: string;
}

export interface Fault {
  status: number;
  retryAfter?: string;
}

const SYSTEM = new Set([":id", ":created_at", ":updated_at"]);
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?Z?$/;

class SoqlError extends Error {}

function fieldOf(row: HeldRow, field: string): Value {
  if (field === ":id") return row.id;
  if (field === ":created_at") return row.createdAt;
  if (field === ":updated_at") return row.updatedAt;
  return row.fields[field];
}

/** Two values compared as instants when both are dates, as text otherwise; null sorts first. */
function compare(a: Value, b: Value): number {
  if (a == null || b == null) return a == null ? (b == null ? 0 : -1) : 1;
  const x = String(a);
  const y = String(b);
  if (DATE_LIKE.test(x) && DATE_LIKE.test(y)) {
    const instant = (v: string) => Date.parse(v.endsWith("Z") ? v : v.length === 10 ? `${v}T00:00:00Z` : `${v}Z`);
    return Math.sign(instant(x) - instant(y));
  }
  return x < y ? -1 : x > y ? 1 : 0;
}

const COMPARISON = /^\s*(:?[a-z_][a-z0-9_]*)\s*(>=|<=|=|>|<)\s*'((?:[^']|'')*)'\s*$/i;
const IS_NULL = /^\s*(:?[a-z_][a-z0-9_]*)\s+IS\s+NULL\s*$/i;
const OR_GROUP = /^\s*\((.*)\)\s*$/s;

/** One term of a `$where`: a comparison, `IS NULL`, or a parenthesised OR of those. */
function termOf(term: string): (row: HeldRow) => boolean {
  const group = OR_GROUP.exec(term);
  if (group) {
    const any = (group[1] ?? "").split(/\s+OR\s+/i).map(termOf);
    return (row) => any.some((t) => t(row));
  }
  const isNull = IS_NULL.exec(term);
  if (isNull) return (row) => fieldOf(row, isNull[1] ?? "") == null;
  const m = COMPARISON.exec(term);
  if (!m) throw new SoqlError(`cannot read $where term ${JSON.stringify(term)}`);
  const [, field = "", op, literal = ""] = m;
  const value = literal.replaceAll("''", "'");
  return (row: HeldRow) => {
    const got = fieldOf(row, field);
    if (got == null) return false;
    const c = compare(got, value);
    return op === "=" ? c === 0 : op === ">" ? c > 0 : op === ">=" ? c >= 0 : op === "<" ? c < 0 : c <= 0;
  };
}

function whereOf(text: string | null): (row: HeldRow) => boolean {
  if (text === null) return () => true;
  const terms = text.split(/\s+AND\s+/i).map(termOf);
  return (row) => terms.every((t) => t(row));
}

function orderOf(text: string | null): (a: HeldRow, b: HeldRow) => number {
  if (text === null) return () => 0;
  const keys = text.split(",").map((part) => {
    const [field = "", direction = "ASC", ...rest] = part.trim().split(/\s+/);
    if (rest.length > 0 || !/^(ASC|DESC)$/i.test(direction) || !/^:?[a-z_][a-z0-9_]*$/i.test(field)) {
      throw new SoqlError(`cannot read $order ${JSON.stringify(part)}`);
    }
    return { field, sign: direction.toUpperCase() === "DESC" ? -1 : 1 };
  });
  return (a, b) => {
    for (const { field, sign } of keys) {
      const c = compare(fieldOf(a, field), fieldOf(b, field));
      if (c !== 0) return c * sign;
    }
    return 0;
  };
}

/** A row as SODA's JSON gives it: null fields left out, numbers as strings. */
function asJson(row: HeldRow): Record<string, string | boolean> {
  const out: Record<string, string | boolean> = {};
  for (const [k, v] of Object.entries(row.fields)) {
    if (v == null || SYSTEM.has(k)) continue;
    out[k] = typeof v === "number" ? String(v) : v;
  }
  return out;
}

export class SocrataPortal {
  private readonly datasets = new Map<string, HeldRow[]>();
  private server: Server | null = null;
  private nextId = 1;
  private faults: Fault[] = [];
  private failing: Fault | null = null;
  private failingAfter = 0;
  private deleting: { after: number; dataset: string } | null = null;
  /** Each data request: its dataset, query parameters and app token. */
  readonly requests: { dataset: string; params: Record<string, string>; token: string | null; status: number }[] = [];

  /** Adds rows to a dataset, created and changed at `at` (ISO 8601 UTC). */
  add(dataset: string, rows: Record<string, Value>[], at: string): void {
    const held = this.datasets.get(dataset) ?? [];
    for (const fields of rows) {
      // Socrata's row ids are opaque text; these sort in no particular relation to the rows' order.
      const n = this.nextId++;
      const id = `row-${((n * 7919) % 100_003).toString(36).padStart(4, "0")}.${n.toString(36)}`;
      held.push({ fields, id, createdAt: at, updatedAt: at });
    }
    this.datasets.set(dataset, held);
  }

  /** Changes in place the rows of `dataset` that `match`, as of `at` (their :updated_at moves). */
  change(dataset: string, match: (fields: Record<string, Value>) => boolean, edit: Record<string, Value>, at: string) {
    let changed = 0;
    for (const row of this.datasets.get(dataset) ?? []) {
      if (!match(row.fields)) continue;
      row.fields = { ...row.fields, ...edit };
      row.updatedAt = at;
      changed += 1;
    }
    return changed;
  }

  /**
   * After answering `after` more requests, deletes the row of `dataset` that
   * sorts first by :id, as an office drops a record while a pull reads: every
   * later row moves back a place.
   */
  deleteFirstAfter(after: number, dataset: string): void {
    this.deleting = { after, dataset };
  }

  /** Answers the next requests with these faults, one each, before answering normally again. */
  fail(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** After answering `after` more requests, answers every one with `fault` (until called with null). */
  failFrom(after: number, fault: Fault | null): void {
    this.failing = fault;
    this.failingAfter = after;
  }

  async start(port = 0): Promise<string> {
    const server = createServer((req, res) => this.answer(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    this.server = null;
  }

  private answer(req: IncomingMessage, res: ServerResponse) {
    const token = req.headers["x-app-token"];
    const { status, headers, body } = this.reply(
      new URL(req.url ?? "/", "http://portal.test"),
      typeof token === "string" ? token : null,
    );
    res.writeHead(status, headers);
    for (const piece of body) res.write(piece);
    res.end();
  }

  /**
   * The same answers in-process, as `fetch` does (for a Worker's tests,
   * where no server listens): any host, with the Date header a server adds.
   */
  fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const { status, headers, body } = this.reply(new URL(request.url), request.headers.get("x-app-token"));
    return new Response([...body].join(""), { status, headers: { date: new Date().toUTCString(), ...headers } });
  };

  /** What the portal answers a request: its status, headers and body, a page's rows in pieces. */
  private reply(
    url: URL,
    token: string | null,
  ): { status: number; headers: Record<string, string>; body: Iterable<string> } {
    const json = { "content-type": "application/json; charset=utf-8" };
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
      status,
      headers: { ...json, ...headers },
      body: [JSON.stringify(body)],
    });
    const m = /^\/resource\/([a-z0-9]{4}-[a-z0-9]{4})\.json$/.exec(url.pathname);
    if (!m?.[1]) return send(404, { error: true, message: "Not found" });
    const dataset = m[1];
    const params = Object.fromEntries(url.searchParams);
    const record = (status: number) => this.requests.push({ dataset, params, token, status });
    if (this.deleting && this.deleting.after-- <= 0) {
      const held = this.datasets.get(this.deleting.dataset) ?? [];
      const first = [...held].sort((a, b) => (a.id < b.id ? -1 : 1))[0];
      if (first) held.splice(held.indexOf(first), 1);
      this.deleting = null;
    }
    let fault = this.faults.shift() ?? null;
    if (!fault && this.failing) {
      if (this.failingAfter > 0) this.failingAfter -= 1;
      else fault = this.failing;
    }
    if (fault) {
      record(fault.status);
      const headers: Record<string, string> = fault.retryAfter !== undefined ? { "retry-after": fault.retryAfter } : {};
      return send(fault.status, { error: true, message: `fault ${fault.status}` }, headers);
    }
    const rows = this.datasets.get(dataset);
    if (!rows) {
      record(404);
      return send(404, { error: true, message: `dataset ${dataset} not found` });
    }
    try {
      for (const key of Object.keys(params)) {
        if (key.startsWith("$") && !["$where", "$order", "$limit", "$offset"].includes(key)) {
          throw new SoqlError(`${key} is not served here`);
        }
      }
      const limit = Number(params.$limit ?? 1000);
      const offset = Number(params.$offset ?? 0);
      if (!Number.isInteger(limit) || limit < 0 || limit > 50_000) throw new SoqlError("$limit must be 0 to 50,000");
      if (!Number.isInteger(offset) || offset < 0) throw new SoqlError("$offset must be a whole number");
      const matching = rows.filter(whereOf(params.$where ?? null)).sort(orderOf(params.$order ?? null));
      record(200);
      return { status: 200, headers: json, body: pageText(matching.slice(offset, offset + limit)) };
    } catch (err) {
      if (!(err instanceof SoqlError)) throw err;
      record(400);
      return send(400, { error: true, message: err.message });
    }
  }
}

/** A page as the portal writes it (a field a line), a few thousand rows a piece. */
function* pageText(page: HeldRow[]): Generator<string> {
  let pieces: string[] = ["["];
  for (const [i, row] of page.entries()) {
    const fields = Object.entries(asJson(row)).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    pieces.push(`${i === 0 ? "" : "\n,"}{${fields.join("\n,")}}`);
    if (pieces.length >= 2000) {
      yield pieces.join("");
      pieces = [];
    }
  }
  yield `${pieces.join("")}]\n`;
}
