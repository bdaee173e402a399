/**
 * The console's one way to the API: same origin, `GET` only, the key sent
 * as `x-api-key` to the keyed operations and to nothing else (not to the
 * public filing lookup, not to any other origin: paths are fixed here, so
 * no URL from the data can receive it). Answers are typed by the zod
 * schemas that validate them on the server (type-only imports: no zod
 * reaches the browser).
 */
import type { z } from "@hono/zod-openapi";
import type * as schemas from "../http/responses.ts";
import type { reportBody } from "../report/schemas.ts";
import { savedKey } from "./key.ts";
import { type Problem, problemOf, unreachable } from "./problems.ts";

type Of<S extends keyof typeof schemas> = z.infer<(typeof schemas)[S]>;

export type LienPageA = Of<"liensA">;
export type LienPageB = Of<"liensB">;
type LienPageFull = Of<"liensFull">;
export type LienA = LienPageA["ucc_liens"][number];
export type LienB = LienPageB["ucc_liens"][number];
export type LienFull = LienPageFull["ucc_liens"][number];
export type Report = z.infer<typeof reportBody>;

/** Each operation the console calls, and its answer (envelope B where the operation defaults to it). */
interface Answers {
  "/debtors/search": LienPageA;
  "/debtors/search-similar": Of<"similarDebtors">;
  "/debtors/addresses": Of<"knownAddresses">;
  "/debtors/associated/": Of<"associatedDebtors">;
  "/debtors/report": Report;
  "/filings": LienPageFull;
  "/secureds/recent-by-secured-party": LienPageB;
  "/filings/recent-by-state": LienPageA;
  "/filings/lapsing": LienPageB;
  "/filings/changes": Of<"changePage">;
}
export type Path = keyof Answers;

/** The one operation that needs no key: the key is not sent to it. */
const PUBLIC: ReadonlySet<Path> = new Set(["/filings"]);

export type Outcome<T> =
  | { ok: true; body: T; retryAfter: number | undefined }
  | { ok: false; problem: Problem; aborted?: boolean };

export type Params = Record<string, string | undefined>;

/** `path?params`, empty values left out (the API counts them absent). */
function urlOf(path: Path, params: Params): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value) query.set(name, value);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

export async function call<P extends Path>(
  path: P,
  params: Params,
  signal?: AbortSignal,
): Promise<Outcome<Answers[P]>> {
  const keyed = !PUBLIC.has(path);
  const key = keyed ? savedKey() : "";
  if (keyed && !key) return { ok: false, problem: problemOf(401, undefined, undefined, "missing_api_key") };
  let res: Response;
  try {
    res = await fetch(urlOf(path, params), {
      headers: key ? { "x-api-key": key } : {},
      credentials: "omit",
      // A keyed answer is the key holder's: kept out of the browser's disk cache (the server's edge cache still serves it).
      cache: keyed ? "no-store" : "default",
      signal,
    });
  } catch (err) {
    const aborted = signal?.aborted ?? false;
    return { ok: false, problem: unreachable(err), aborted };
  }
  const retryAfter = seconds(res.headers.get("retry-after"));
  const body: unknown = await res.json().catch(() => undefined);
  if (res.ok && body !== undefined) return { ok: true, body: body as Answers[P], retryAfter };
  const error = body as Of<"errorBody"> | undefined;
  return { ok: false, problem: problemOf(res.status, error, retryAfter) };
}

/** Retry-After in seconds (the API sends seconds, never a date). */
function seconds(header: string | null): number | undefined {
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header);
}
