/**
 * A page's statements reach D1 as rendered text and values (src/queries/db.ts,
 * textOf): once a list's templates are rendered (the isolate's first request
 * of its shape), a later page of it, at any depth, is built and sent without
 * Drizzle rendering a statement again; and so is every other lookup's
 * request after the first of its form (lapse lists and similar names
 * rendered theirs on every request until they became templates). A list's
 * statements read only what it shows of each filing; the public lookup
 * reads the whole filing.
 */
import { env } from "cloudflare:workers";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app.ts";
import { daysAgo, filing, load, party, registerKeys, TEST_KEY } from "./helpers.ts";

beforeAll(async () => {
  await registerKeys();
  await load(
    Array.from({ length: 60 }, (_, i) =>
      filing({
        number: `ST-${String(i).padStart(2, "0")}`,
        filedAt: daysAgo(i + 1),
        debtors: [party("Harbor Manufacturing Inc", { zip: "94107" })],
      }),
    ),
  );
});

/** Counted lists of one state and across states (deep pages merge each shard's list keys), and an open list. */
const LISTS = [
  "/filings/recent-by-state?state=CA",
  "/filings/recent-by-postal-code?postal_code=94107",
  "/debtors/search?name=Harbor%20Manufacturing%20Inc&state=CA",
  "/secureds/recent-by-secured-party?name=First%20Test%20Bank&state=CA",
];

describe("a page's statements", () => {
  it.each(LISTS)(
    "of %s are sent without Drizzle rendering them, on any page after the first of its shape",
    async (list) => {
      const app = createApp();
      const ask = async (page: number) => {
        const res = await app.request(`${list}&page=${page}`, { headers: { "x-api-key": TEST_KEY } }, env);
        expect(res.status).toBe(200);
        const body = (await res.json()) as { ucc_liens?: unknown[]; filings?: unknown[] };
        return (body.ucc_liens ?? body.filings ?? []).length;
      };
      // Renders the list's statements: its first deep page (past those a merge reads whole) in the isolate.
      await ask(3);
      const renders = vi.spyOn(SQLiteAsyncDialect.prototype, "sqlToQuery");
      try {
        expect(await ask(4)).toBeGreaterThan(0);
        expect(await ask(5)).toBeGreaterThan(0);
        expect(renders).not.toHaveBeenCalled();
      } finally {
        renders.mockRestore();
      }
    },
  );
});

/** Lookups whose statements are templates, each asked in a form of its own. */
const LOOKUPS = [
  "/filings/lapsing?state=CA",
  "/filings/lapsing?state=CA&envelope=a",
  "/filings/lapsing?state=CA&industry=Manufacturing,Equipment&envelope=a",
  "/filings/lapsing?state=CA&secured_party=first%20test&industry=Manufacturing&envelope=a",
  "/debtors/search-similar?name=Harbor%20Manufacturng",
  "/debtors/search-similar?name=Harbor&state=CA",
  "/debtors/addresses?name=Harbor%20Manufacturing%20Inc",
  "/debtors/associated/?name=Harbor%20Manufacturing%20Inc&state=CA",
  "/debtors/report?name=Harbor%20Manufacturing%20Inc",
  "/filings/changes?state=CA&types=filing.created,filing.terminated",
  "/filings/recently-terminated?state=CA",
  "/states",
  "/filings?initial_financing_number=ST-01&state=CA",
];

describe("a lookup's statements", () => {
  it.each(LOOKUPS)(
    "of %s are sent without Drizzle rendering them, on any request after the first of its form",
    async (url) => {
      const app = createApp();
      const ask = async () => {
        const res = await app.request(url, { headers: { "x-api-key": TEST_KEY } }, env);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
      };
      await ask();
      const renders = vi.spyOn(SQLiteAsyncDialect.prototype, "sqlToQuery");
      try {
        await ask();
        expect(renders).not.toHaveBeenCalled();
      } finally {
        renders.mockRestore();
      }
    },
  );
});

/**
 * `env` with each D1 binding's statements recorded (their SQL text) as the
 * app prepares them, sessions included.
 */
function recordingEnv(sent: string[]): typeof env {
  const recording = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, name) {
        const value = Reflect.get(t, name);
        if (name === "prepare") {
          return (sql: string) => {
            sent.push(sql);
            return (value as (sql: string) => unknown).call(t, sql);
          };
        }
        if (name === "withSession")
          return (...args: unknown[]) => recording((value as (...a: unknown[]) => object).apply(t, args));
        return typeof value === "function" ? value.bind(t) : value;
      },
    });
  return new Proxy(env, {
    get(t, name) {
      const value = Reflect.get(t, name);
      return typeof name === "string" && /^DB(_\d+)?$/.test(name) ? recording(value as object) : value;
    },
  });
}

describe("what a page reads of each filing", () => {
  it.each([
    ...LISTS,
    "/filings/lapsing?state=CA",
    "/filings/recently-terminated?state=CA",
    "/filings/changes?state=CA",
    "/filings/changes",
  ])("is what %s shows: no collateral text, nor the office's own fields", async (url) => {
    const sent: string[] = [];
    // A parameter of its own: the lookups above may have left this answer in the edge cache.
    const asked = `${url}${url.includes("?") ? "&" : "?"}r=reading`;
    const res = await createApp().request(asked, { headers: { "x-api-key": TEST_KEY } }, recordingEnv(sent));
    expect(res.status).toBe(200);
    expect(sent.length).toBeGreaterThan(0);
    for (const sql of sent) expect(sql).not.toMatch(/"collateral"|"filing_office"|"office_lapse_date"/);
  });

  it("is the whole filing for the public lookup, which shows it", async () => {
    const sent: string[] = [];
    const url = "/filings?initial_financing_number=ST-01&state=CA&r=reading";
    const res = await createApp().request(url, { headers: { "x-api-key": TEST_KEY } }, recordingEnv(sent));
    expect(res.status).toBe(200);
    expect(sent.join("\n")).toMatch(/"collateral"/);
    const body = (await res.json()) as { ucc_liens: Record<string, unknown>[] };
    expect(body.ucc_liens[0]).toHaveProperty("collateral");
    expect(body.ucc_liens[0]).toHaveProperty("filing_office");
  });
});
