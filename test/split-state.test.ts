/**
 * A state split over two databases (docs/sharding.md, "A state over two
 * databases") answers as one database does: the same filings, imported
 * once into one database and once into a layout where California is split
 * in two parts (each filing in the part its number's hash names), give the
 * same bodies for every endpoint that reads California, page by page and
 * walked by cursor, with the same counts; a filing by number reads its part
 * only, and every other request reads both parts in one round trip; webhook
 * subscribers get each part's changes once.
 *
 * Both layouts are built on the test-only bindings of vitest.config.ts:
 * DB_WHOLE holds everything as the one database; DB to DB_4 are the split
 * layout's shards, CA/1 in DB_2 and CA/2 in DB_3.
 */
import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../src/app.ts";
import type { FilingRecord } from "../src/db/records.ts";
import * as schema from "../src/db/schema.ts";
import { layoutOf, partsOf, type ShardDatabases, shardOf } from "../src/db/shards.ts";
import { hashKey } from "../src/domain/apiKeys.ts";
import { lienLine } from "../src/feed/export.ts";
import { importSharded } from "../src/feed/shardedImport.ts";
import { type DeliveryMessage, dispatch } from "../src/webhooks/dispatch.ts";
import { newSecret, sealSecret } from "../src/webhooks/secrets.ts";
import { createSubscription, findSubscription, newestChanges, newSubscriptionId } from "../src/webhooks/store.ts";
import { parseWatchlist } from "../src/webhooks/watchlists.ts";
import { webhookEnv } from "../src/webhooks/worker.ts";
import { stream } from "./feeds.ts";
import { answerIn, clearAllShards, daysAgo, filing, party, registerKeys, TEST_KEY } from "./helpers.ts";

const SPLIT = { DB_2: ["CA/1", "NY"], DB_3: ["TX", "CA/2"], DB_4: ["FL"] };
const layout = layoutOf(SPLIT);

const binding = (name: string) => Reflect.get(env, name) as D1Database;
const handle = (name: string) => drizzle(binding(name), { schema, casing: "snake_case" });

const whole: ShardDatabases = { layout: layoutOf({}), databases: new Map([["DB", handle("DB_WHOLE")]]) };
const split: ShardDatabases = { layout, databases: new Map(layout.shards.map((s) => [s, handle(s)])) };

const NAMES = ["Harbor Manufacturing Inc", "Blue Sky Foods", "Smith, John", "Acme Widgets LLC", "Harbour Mfg LLC"];
const CO_BORROWERS = ["Pier Holdings LLC", "Smith, Jane", "Mill Road Partners"];
const STREETS = ["1 Main St", "22 Pier Rd", "300 Mill Ave", "4 Elm Ct"];
const LENDERS = ["First Test Bank, N.A.", "First Capital Leasing LLC", "Wells Fargo Bank, N.A."];
const LABELS = ["Manufacturing", "Retail & E-commerce", "Construction & Trades"];
const DAY = 86_400_000;

/**
 * 90 California filings (and a few in NY, TX and FL under the same names):
 * recent ones over 60 days, older ones a debtor search reaches, some lapsing
 * within 180 days, every fourth terminated, a co-borrower on every third at
 * one of three addresses, three lenders. Times differ to the second, so
 * list order is total.
 */
function fixtures(): FilingRecord[] {
  const ca = Array.from({ length: 90 }, (_, i) => {
    const name = NAMES[i % NAMES.length]!;
    const individual = name.includes(",") ? { type: "Individual" as const } : {};
    const lapses = i >= 60 && i < 80;
    return filing({
      state: "CA",
      number: `CA${String(1000 + i * 7)}`,
      filedAt: i < 60 ? daysAgo(1 + i + i / 997) : daysAgo(700 + i),
      ...(lapses ? { officeLapseDate: new Date(Date.now() + (i - 55) * 5 * DAY).toISOString().slice(0, 10) } : {}),
      debtors: [
        party(name, { street1: STREETS[i % STREETS.length]!, label: LABELS[i % LABELS.length]!, ...individual }),
        ...(i % 3 === 0
          ? [party(CO_BORROWERS[i % CO_BORROWERS.length]!, { street1: STREETS[(i / 3) % 3]!, label: "Manufacturing" })]
          : []),
      ],
      securedParties: [party(LENDERS[i % LENDERS.length]!)],
      amendments:
        i % 4 === 0
          ? [
              {
                number: `CA${1000 + i * 7}-T`,
                filedAt: daysAgo(0.5 + i / 500),
                kind: "termination",
                description: "Termination",
              },
            ]
          : [],
    });
  });
  const others = ["NY", "TX", "FL"].flatMap((state, s) =>
    Array.from({ length: 4 }, (_, j) =>
      filing({
        state,
        number: `${state}${100 + j}`,
        filedAt: daysAgo(2 + s + j / 10),
        debtors: [party(NAMES[j]!, { street1: STREETS[j]! })],
      }),
    ),
  );
  return [...ca, ...others];
}

/** A day's delta: amendments of every kind to a third of California's recent filings. */
function delta(records: FilingRecord[]): FilingRecord[] {
  const kinds = ["continuation", "termination", "assignment", "collateral_change"] as const;
  const texts = ["Continuation", "Termination", "Assignment", "Amendment - Collateral"];
  return records
    .filter((r, i) => r.state === "CA" && i % 3 === 1 && i < 60)
    .map((r, i) => ({
      ...r,
      amendments: [
        ...r.amendments,
        { number: `${r.number}-D`, filedAt: daysAgo(0.2), kind: kinds[i % 4]!, description: texts[i % 4]! },
      ],
    }));
}

/** Amendment lines apart from their filings: terminations of a few recent California filings, each to its filing's part. */
function amendmentLines(records: FilingRecord[]): string {
  return records
    .filter((r, i) => r.state === "CA" && i % 6 === 2 && i < 60)
    .map((r) =>
      JSON.stringify({
        initial_financing_number: r.number,
        jurisdiction_state: "CA",
        amendment_financing_number: `${r.number}-X`,
        amendment_financing_date: daysAgo(0.1),
        amendment_financing_type_description: "Termination",
      }),
    )
    .map((line) => `${line}\n`)
    .join("");
}

const RECORDS = fixtures();
const today = new Date().toISOString().slice(0, 10);
const ndjson = (records: FilingRecord[]) => `${records.map((r) => JSON.stringify(lienLine(r, today))).join("\n")}\n`;

const wholeEnv = { ...env, DB: binding("DB_WHOLE"), SHARD_STATES: {} } as unknown as Env;
const splitEnv = { ...env, SHARD_STATES: SPLIT } as unknown as Env;

beforeAll(async () => {
  await clearAllShards();
  await registerKeys();
  // Every database of both layouts (the one-shard run migrates DB alone).
  for (const name of [...layout.shards, "DB_WHOLE"]) await applyD1Migrations(binding(name), env.TEST_MIGRATIONS);
  const at = new Date(Date.now() - 3_600_000);
  for (const shards of [whole, split])
    await importSharded(shards, "split.ndjson", stream(ndjson(RECORDS)), { now: at });
  const later = new Date();
  const changed = `${ndjson(delta(RECORDS))}${amendmentLines(RECORDS)}`;
  for (const shards of [whole, split]) {
    await importSharded(shards, "split-delta.ndjson", stream(changed), { now: later });
  }
});

/** Every page of `path` (and one past the end) alike in both layouts. */
async function expectSamePages(path: string) {
  const first = await answerIn(wholeEnv, path);
  expect(first.status, path).toBe(200);
  const pages = (first.body.pagination as { total_pages?: number } | undefined)?.total_pages ?? 3;
  for (let page = 1; page <= pages + 1; page++) {
    const url = `${path}&page=${page}`;
    const [one, two] = [await answerIn(wholeEnv, url), await answerIn(splitEnv, url)];
    expect(one.status, url).toBe(200);
    expect(two.body, url).toEqual(one.body);
  }
  return pages;
}

/** Every page of `path` in `layout`, following each page's cursor from the first. */
async function walkByCursor(layout: Env, path: string) {
  const pages: Record<string, unknown>[] = [];
  let next: string | undefined = path;
  while (next !== undefined) {
    const { status, body, cursor } = await answerIn(layout, next);
    expect(status, next).toBe(200);
    if (body.pagination) delete (body.pagination as { next_cursor?: string }).next_cursor;
    pages.push(body);
    next = cursor === undefined ? undefined : `${path}&cursor=${encodeURIComponent(cursor)}`;
  }
  return pages;
}

const CA_LISTS = [
  "/filings/recent-by-state?state=CA",
  "/filings/recent-by-state?state=CA&industry=Manufacturing,Retail%20%26%20E-commerce",
  "/filings/recently-terminated?state=CA",
  "/secureds/recent-by-secured-party?name=First&state=CA",
  "/secureds/recent-by-secured-party?name=First&state=CA&envelope=a",
  "/filings/lapsing?state=CA",
  "/filings/lapsing?state=CA&envelope=a",
  "/filings/lapsing?state=CA&industry=Manufacturing",
  "/filings/lapsing?state=CA&secured_party=First&envelope=a",
  ...NAMES.map((n) => `/debtors/search?name=${encodeURIComponent(n)}&state=CA`),
  "/debtors/search?name=J%20Smith&state=CA",
  ...NAMES.map((n) => `/debtors/associated/?name=${encodeURIComponent(n)}&state=CA`),
  "/debtors/search-similar?name=Harbor%20Manufacturing&state=CA",
  "/debtors/search-similar?name=Smith%20John&state=CA",
  "/debtors/addresses?name=Harbor%20Manufacturing%20Inc",
];

describe("California split over two databases, against one database holding the same filings", () => {
  it("holds each part's filings in its own database, about half each, placed by the number's hash", async () => {
    expect(partsOf(layout, "CA")).toEqual(["DB_2", "DB_3"]);
    const count = async (shard: string) =>
      (await binding(shard).prepare("select count(*) as n from filings where state = 'CA'").first<{ n: number }>())?.n;
    const [one, two] = [await count("DB_2"), await count("DB_3")];
    expect((one ?? 0) + (two ?? 0)).toBe(90);
    expect(one).toBeGreaterThan(25);
    expect(two).toBeGreaterThan(25);
    const numbers = (shard: string) =>
      binding(shard).prepare("select number from filings where state = 'CA'").all<{ number: string }>();
    for (const shard of ["DB_2", "DB_3"]) {
      for (const { number } of (await numbers(shard)).results) expect(shardOf(layout, "CA", number)).toBe(shard);
    }
  });

  it("keeps each amendment line in its filing's part, none waiting for a filing", async () => {
    for (const shard of partsOf(layout, "CA")) {
      const d1 = binding(shard);
      const amended = await d1
        .prepare("select f.number from amendments a join filings f on f.id = a.filing_id where a.number like '%-X'")
        .all<{ number: string }>();
      expect(amended.results.length).toBeGreaterThan(1);
      for (const { number } of amended.results) expect(shardOf(layout, "CA", number)).toBe(shard);
      const waiting = await d1.prepare("select count(*) as n from pending_amendments").first<{ n: number }>();
      expect(waiting?.n).toBe(0);
    }
  });

  it("lists every California list alike, page by page, deep pages included", async () => {
    for (const path of CA_LISTS) {
      await expectSamePages(path);
      const { body } = await answerIn(splitEnv, path);
      const listed = Object.values(body).find(Array.isArray) as unknown[];
      expect(listed.length, path).toBeGreaterThan(0);
    }
    // A name filed in both parts is one similar name, its filings added.
    const similar = (await answerIn(splitEnv, "/debtors/search-similar?name=Smith%20John&state=CA")).body;
    expect(similar.similar_debtors).toEqual([
      expect.objectContaining({ debtor_name: "Smith, John", filing_count: 18 }),
    ]);
    // Deep enough to take the keys-first merge past the direct pages.
    const { body } = await answerIn(splitEnv, "/filings/recent-by-state?state=CA");
    expect((body.pagination as { total_pages: number }).total_pages).toBeGreaterThan(3);
  });

  it("walks every California list by cursor to one database's pages", async () => {
    for (const path of CA_LISTS) {
      const two = await walkByCursor(splitEnv, path);
      const one: Record<string, unknown>[] = [];
      for (let page = 1; page <= two.length; page++) {
        const { body } = await answerIn(wholeEnv, `${path}&page=${page}`);
        if (body.pagination) delete (body.pagination as { next_cursor?: string }).next_cursor;
        one.push(body);
      }
      expect(two, path).toEqual(one);
    }
  });

  it("reads both parts of California in one round trip", async () => {
    for (const path of CA_LISTS.filter((p) => !p.includes("addresses"))) {
      const { timing } = await answerIn(splitEnv, path);
      expect(timing, path).toMatch(/^d1;dur=\d+;desc="1 batch, \d+ rows read, 2 shards, at most \d+ on one"$/);
    }
  });

  it("looks a filing up by number in its part alone", async () => {
    for (const record of RECORDS.filter((r) => r.state === "CA").slice(0, 12)) {
      const path = `/filings?initial_financing_number=${record.number}&state=CA`;
      const [one, two] = [await answerIn(wholeEnv, path), await answerIn(splitEnv, path)];
      expect((two.body.ucc_liens as unknown[]).length, path).toBe(1);
      expect(two.body, path).toEqual(one.body);
      expect(two.timing, path).toMatch(/^d1;dur=\d+;desc="1 batch, \d+ rows read"$/);
    }
  });

  it("sums the parts' summaries in GET /states", async () => {
    const [one, two] = [await answerIn(wholeEnv, "/states"), await answerIn(splitEnv, "/states")];
    expect(two.body).toEqual(one.body);
    const ca = (two.body.states as { state: string; filings: number }[]).find((s) => s.state === "CA");
    expect(ca?.filings).toBe(90);
  });

  it("gives California's change feed alike, each part's position in the cursor, each change an id of its own", async () => {
    const ids: string[] = [];
    const feed = async (layout: Env, query: string) => {
      const out: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const url = `/filings/changes?${query}${cursor ? `&cursor=${cursor}` : ""}`;
        const res = await createApp().request(url, { headers: { "x-api-key": TEST_KEY } }, layout);
        const body = (await res.json()) as {
          changes: {
            id: string;
            type: string;
            initial_financing_number: string;
            occurred_at: string;
            amendment?: unknown;
          }[];
          response_metadata: { next_cursor: string; has_more: boolean };
        };
        for (const c of body.changes) {
          out.push(JSON.stringify([c.initial_financing_number, c.type, c.occurred_at, c.amendment ?? null]));
          if (layout === splitEnv && !query.includes("types")) ids.push(c.id);
        }
        cursor = body.response_metadata.next_cursor;
        if (!body.response_metadata.has_more) return out;
      }
    };
    for (const query of ["state=CA&limit=4", "state=CA&types=filing.terminated&limit=2"]) {
      const [one, two] = [await feed(wholeEnv, query), await feed(splitEnv, query)];
      expect(one.length, query).toBeGreaterThan(0);
      // One load's changes share their time: the parts' are merged by part where one database orders by record.
      expect([...two].sort(), query).toEqual([...one].sort());
    }
    // Each part numbers its changes from 1: an id names the part, so no two changes share one (clients drop a repeat).
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map((id) => id.replace(/-\d+$/, "")))).toEqual(new Set(["CA/1", "CA/2"]));
  });
  it("sends webhook subscribers each change of both parts once, as one database records them", async () => {
    const hooks = webhookEnv(splitEnv);
    const subscribe = async (states: string[] | null, debtors: string[]) => {
      const publicId = newSubscriptionId();
      const parsed =
        debtors.length === 0
          ? { ok: true as const, value: [] }
          : parseWatchlist(new TextEncoder().encode(debtors.join("\n")), "debtor");
      if (!parsed.ok) throw new Error(parsed.problem);
      await createSubscription(hooks.db, {
        publicId,
        keyDigest: await hashKey(TEST_KEY),
        url: "https://receiver.test/hooks",
        types: null,
        states,
        watch: parsed.value,
        sealedSecret: await sealSecret(newSecret(), env.WEBHOOK_PUBLIC_KEY),
        starts: await newestChanges(split.databases),
        now: new Date(),
      });
      return (await findSubscription(hooks.db, publicId))!.id;
    };
    const [byState, byName] = [await subscribe(["CA"], []), await subscribe(null, ["Harbor Manufacturing Inc"])];
    // Terminations of California filings the other deltas left alone, in both parts.
    const terminated = RECORDS.filter(
      (r, i) => r.state === "CA" && i < 60 && i % 5 === 0 && i % 3 !== 1 && i % 6 !== 2,
    );
    const amended = terminated.map((r) => ({
      ...r,
      amendments: [
        ...r.amendments,
        { number: `${r.number}-W`, filedAt: daysAgo(0.05), kind: "termination" as const, description: "Termination" },
      ],
    }));
    expect(new Set(amended.map((r) => shardOf(layout, "CA", r.number)))).toEqual(new Set(["DB_2", "DB_3"]));
    const wholeBefore = (await newestChanges(new Map([["DB", handle("DB_WHOLE")]]))).DB ?? 0;
    for (const shards of [whole, split]) await importSharded(shards, "split-hooks.ndjson", stream(ndjson(amended)));

    const sent: DeliveryMessage[] = [];
    const result = await dispatch(hooks, {
      sendBatch: async (messages) => void sent.push(...[...messages].map((m) => m.body)),
    });
    expect(result.more).toBe(false);
    const change = async (shard: string, seq: number) =>
      binding(shard)
        .prepare(
          "select f.number || ' ' || c.type as change from changes c join filings f on f.id = c.filing_id where c.seq = ?",
        )
        .bind(seq)
        .first<{ change: string }>();
    const received = async (subscription: number) => {
      const mine = sent.filter((m) => m.subscription === subscription);
      expect(new Set(mine.map((m) => `${m.shard} ${m.seq}`)).size).toBe(mine.length);
      // The webhook-id is made of the change's id: one a change, or the consumer drops one part's as done.
      expect(new Set(mine.map((m) => m.change)).size).toBe(mine.length);
      return Promise.all(mine.map(async (m) => (await change(m.shard, m.seq))?.change)).then((c) => c.sort());
    };
    const recorded = await binding("DB_WHOLE")
      .prepare(
        "select f.number || ' ' || c.type as change, d.name from changes c join filings f on f.id = c.filing_id join debtor_parties d on d.filing_id = f.id and d.position = 0 where c.seq > ? and f.state = 'CA'",
      )
      .bind(wholeBefore)
      .all<{ change: string; name: string }>();
    const expected = recorded.results.map((r) => r.change).sort();
    expect(expected.length).toBe(terminated.length);
    expect(await received(byState)).toEqual(expected);
    const harbor = recorded.results.filter((r) => r.name === "Harbor Manufacturing Inc").map((r) => r.change);
    expect(harbor.length).toBeGreaterThan(0);
    expect(await received(byName)).toEqual(harbor.sort());
  });

  // Last: it loads another state.
  it("decides a split state's backfill once over its parts: a part's first filing after the state's first load is news", async () => {
    const wa: ShardDatabases = {
      layout: layoutOf({ DB_2: ["WA/1"], DB_3: ["WA/2"] }),
      databases: new Map(["DB", "DB_2", "DB_3"].map((s) => [s, handle(s)])),
    };
    const numbers = Array.from({ length: 40 }, (_, i) => `WA${5000 + i}`);
    const first = numbers.find((n) => shardOf(wa.layout, "WA", n) === "DB_2")!;
    const second = numbers.find((n) => shardOf(wa.layout, "WA", n) === "DB_3")!;
    const line = (number: string) => ndjson([filing({ state: "WA", number, filedAt: daysAgo(3) })]);
    for (const shards of [whole, wa]) {
      await importSharded(shards, "wa-1.ndjson", stream(line(first)));
      await importSharded(shards, "wa-2.ndjson", stream(line(second)));
    }
    const announced = (d1: D1Database, number: string) =>
      d1
        .prepare("select count(*) as n from changes c join filings f on f.id = c.filing_id where f.number = ?")
        .bind(number)
        .first<{ n: number }>();
    // One database: the state's first load is its backfill, the second is news.
    expect((await announced(binding("DB_WHOLE"), first))?.n).toBe(0);
    expect((await announced(binding("DB_WHOLE"), second))?.n).toBe(1);
    // Split: the same, though the second filing is the first of its part.
    expect((await announced(binding("DB_2"), first))?.n).toBe(0);
    expect((await announced(binding("DB_3"), second))?.n).toBe(1);
    // The backfill was marked begun and completed in both parts.
    for (const shard of ["DB_2", "DB_3"]) {
      const row = await binding(shard)
        .prepare("select completed_at from state_backfills where state = 'WA'")
        .first<{ completed_at: number | null }>();
      expect(row?.completed_at, shard).not.toBeNull();
    }
  });
});
