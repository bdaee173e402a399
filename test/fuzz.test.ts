/**
 * Hostile input: generated query strings for every endpoint (random,
 * malformed, oversized, repeated, unicode, control characters, SQL and
 * path-traversal fragments, huge numbers). Whatever arrives, the service
 * answers below 500, as JSON, with an error code and request id when it
 * refuses, and never echoes SQL, a stack trace or the key.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import { hashKey, type KeyMetadata } from "../src/domain/apiKeys.ts";
import { LOOKUPS } from "./endpoints.ts";
import { daysAgo, filing, load, party } from "./helpers.ts";

const KEY = "fuzz-key-unmetered-0123456789";
/**
 * Requests per endpoint a run: each run draws its own (fast-check's seed is new each time), so runs add up
 * to more cases than one can hold. 1,000 took 87 s of a test run; a failure names its seed to replay.
 */
const RUNS = 400;

/** Every lookup with valid values of its parameters (test/endpoints.ts). */
const ENDPOINTS: Record<string, Record<string, string[]>> = Object.fromEntries(LOOKUPS.map((e) => [e.path, e.params]));

const HOSTILE = [
  "' OR 1=1 --",
  "'; DROP TABLE filings; --",
  '" UNION SELECT name FROM sqlite_master --',
  "%' AND 1=CAST((SELECT sql FROM sqlite_master) AS INT) --",
  "../../../etc/passwd",
  "..%2F..%2Fwrangler.toml",
  "\u0000\u0001\u001f\u007f",
  "\r\nX-Injected: 1",
  "<script>alert(1)</script>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, not a template.
  "${jndi:ldap://x}",
  "99999999999999999999999",
  "-1",
  "0",
  "1e308",
  "NaN",
  "Infinity",
  "0x10",
  " 2 ",
  "",
  ",,,",
  "🙂🙃",
  "\uD800",
  "Ā".repeat(300),
];

const value = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ minLength: 200, maxLength: 5000 }),
  fc.integer().map(String),
  fc.bigInt().map(String),
);

/**
 * A query string: each known parameter valid, absent or hostile; then extra
 * pairs (unknown or repeated names, any values) and maybe a raw malformed tail.
 */
function queryFor(params: Record<string, string[]>) {
  const known = Object.entries(params).map(([name, valid]) =>
    fc
      .oneof(
        { weight: 6, arbitrary: fc.constantFrom(...valid) },
        { weight: 1, arbitrary: fc.constant(undefined) },
        { weight: 2, arbitrary: value },
      )
      .map((v) => (v === undefined ? [] : [[name, v] as const])),
  );
  const extra = fc.array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(...Object.keys(params), "page", "PAGE", "state[]", "__proto__"),
        fc.string({ maxLength: 12 }),
      ),
      fc.oneof(fc.constantFrom("1", "2", "10000", "10001"), value),
    ),
    { maxLength: 3 },
  );
  const raw = fc.constantFrom(
    "",
    "",
    "",
    "&%zz",
    "&%E0%A4%A",
    "&=x",
    "&&&",
    "&page=%00",
    "&name=%FF%FE",
    "&a=%",
    "#frag",
  );
  return fc.tuple(fc.tuple(...known), extra, raw, fc.boolean()).map(([knownPairs, extraPairs, rawTail, slash]) => {
    const search = new URLSearchParams();
    for (const [k, v] of [...knownPairs.flat(), ...extraPairs]) search.append(k, v);
    return { query: `${search.toString()}${rawTail}`, slash };
  });
}

const app = createApp();

beforeAll(async () => {
  const metadata: KeyMetadata = { label: "fuzz", created: daysAgo(1), status: "active", rateLimit: "unmetered" };
  await env.API_KEYS.put(await hashKey(KEY), "", { metadata });
  await load([
    filing({ number: "T00000001", debtors: [party("Acme Widgets LLC", { label: "Manufacturing" })] }),
    filing({
      number: "U-123",
      amendments: [{ number: "U-123-T", filedAt: daysAgo(2), kind: "termination", description: "Termination" }],
    }),
  ]);
});

describe("hostile query strings", () => {
  it.each(Object.entries(ENDPOINTS))(
    `${RUNS} generated requests to %s: never a 5xx, always a clean JSON answer`,
    async (path, params) => {
      let ip = 0;
      const statuses = new Map<number, number>();
      await fc.assert(
        fc.asyncProperty(queryFor(params), async ({ query, slash }) => {
          ip += 1;
          const res = await app.request(
            `${path}${slash ? "/" : ""}?${query}`,
            // A fresh client address per request, so the public limit does not hide the handler.
            { headers: { "x-api-key": KEY, "cf-connecting-ip": `10.0.${ip >> 8}.${ip & 255}` } },
            env,
          );
          const text = await res.text();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          expect(res.status, text).toBeLessThan(500);
          // A lien report asked for as CSV (`format=csv`, in any case) answers the page as CSV.
          if (res.status === 200 && res.headers.get("content-type")?.startsWith("text/csv")) {
            expect(query).toMatch(/format=csv/i);
            expect(text).not.toMatch(/sqlite|d1_|\n\s+at |stack/i);
            return;
          }
          expect(res.headers.get("content-type")).toContain("application/json");
          const body = JSON.parse(text);
          if (res.status !== 200) {
            expect(typeof body.error.code).toBe("string");
            expect(body.response_metadata.request_id).toMatch(/^[0-9a-f-]{36}$/);
          }
          // `debtor_name` of /debtors/addresses and /debtors/associated/ is, by contract, the name asked
          // for, as are a lien report's `name` and the keys read from it.
          const { debtor_name: _, ...rest } = body;
          if (rest.report) rest.report = { ...rest.report, name: "", name_searched: [] };
          const answer = JSON.stringify(rest);
          expect(answer).not.toMatch(/sqlite|select |d1_|\n\s+at |stack/i);
          expect(text).not.toContain(KEY);
        }),
        { numRuns: RUNS },
      );
      // The generator reaches the handlers, not only the validator.
      expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(RUNS * 0.05);
      // An endpoint without parameters has nothing to refuse (unknown ones are ignored).
      if (Object.keys(params).length > 0) expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS * 0.05);
    },
    120_000,
  );
});
