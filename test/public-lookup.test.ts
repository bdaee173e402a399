import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../src/http/context.ts";
import { clientAddress } from "../src/http/rateLimit.ts";
import { type Body, type ErrorBody, firstOf } from "./bodies.ts";
import { daysAgo, filing, get, getJson, load, party, testAddress } from "./helpers.ts";

// Filed 2,000 days ago, it lapsed at five years (174 days ago) unless continued
// in the six months before; this continuation, 250 days ago, is in that window.
const amendedAt = daysAgo(250);

beforeAll(async () => {
  await load([
    filing({
      number: "2019-0001234",
      state: "OH",
      filedAt: daysAgo(2000),
      debtors: [party("Buckeye Farms LLC", { state: "OH", label: "Agriculture & Farming" })],
      amendments: [{ number: "2024-0000999", filedAt: amendedAt, kind: "continuation", description: "Continuation" }],
    }),
    // The same number in another state: numbers are unique only per state.
    filing({ number: "2019-0001234", state: "IN", filedAt: daysAgo(1900) }),
  ]);
});

const lookup = (query: string, ip = testAddress(7)) =>
  get(`/filings?${query}`, null, { headers: { "cf-connecting-ip": ip } });

describe("GET /filings (public)", () => {
  it("returns the filing with its amendments in envelope B, without an API key", async () => {
    const res = await lookup("initial_financing_number=2019-0001234&state=oh");
    expect(res.status).toBe(200);
    const body = await res.json<Body<"/filings">>();
    expect(body.ucc_liens).toHaveLength(1);
    const lien = firstOf(body.ucc_liens);
    expect(lien).toMatchObject({
      initial_financing_number: "2019-0001234",
      jurisdiction_state: "OH",
      estimated_lien_status: "Active",
      amendments: [
        {
          amendment_financing_number: "2024-0000999",
          amendment_financing_date: amendedAt,
          amendment_financing_type_description: "Continuation",
        },
      ],
    });
    expect(lien.estimated_lien_lapse_date?.slice(0, 4)).toBe(String(Number(daysAgo(2000).slice(0, 4)) + 10));
    expect(body.response_metadata).toMatchObject({ page: 1, page_size: 10, next_page: false });
  });

  it("lists every state's filing with the number when no state is given", async () => {
    const body = await (await lookup("initial_financing_number=2019-0001234")).json<Body<"/filings">>();
    expect(body.ucc_liens.map((l) => l.jurisdiction_state).sort()).toEqual(["IN", "OH"]);
  });

  it("answers an unknown number with 200 and an empty list", async () => {
    const res = await lookup("initial_financing_number=NOPE-1");
    expect(res.status).toBe(200);
    expect((await res.json<Body<"/filings">>()).ucc_liens).toEqual([]);
  });

  it("rejects a missing or malformed number", async () => {
    const missing = await getJson("/filings", 400, null);
    expect(missing.error.details).toEqual([{ parameter: "initial_financing_number", message: "is required" }]);
    const bad = await lookup("initial_financing_number=A%00B");
    expect(bad.status).toBe(400);
    expect((await bad.json<ErrorBody>()).error.details?.[0]?.parameter).toBe("initial_financing_number");
  });

  it("limits each client address, answering 429 with Retry-After, and leaves other addresses alone", async () => {
    const ip = testAddress(23);
    // Fixed one-minute windows: a window closing mid-run lets up to twice the limit through.
    let allowed = 0;
    let limited: Response | undefined;
    while (!limited && allowed <= 120) {
      const res = await lookup("initial_financing_number=NOPE-2", ip);
      if (res.status === 429) limited = res;
      else allowed += 1;
    }
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect(allowed).toBeLessThanOrEqual(120);
    if (!limited) throw new Error("never limited");
    expect(limited.headers.get("retry-after")).toBe("60");
    expect((await limited.json<ErrorBody>()).error.code).toBe("rate_limited");
    expect((await lookup("initial_financing_number=NOPE-2", testAddress(24))).status).toBe(200);
  });
});

describe("client addresses", () => {
  it("counts IPv6 clients by their /64 network, so rotating addresses within it does not reset the limit", async () => {
    let allowed = 0;
    let status = 200;
    for (let i = 1; status !== 429 && i <= 121; i++) {
      status = (await lookup("initial_financing_number=NOPE-3", `2001:db8:7:1:${i.toString(16)}::${i}`)).status;
      if (status === 200) allowed += 1;
    }
    expect(status).toBe(429);
    expect(allowed).toBeGreaterThanOrEqual(60);
    expect((await lookup("initial_financing_number=NOPE-3", "2001:db8:7:2::1")).status).toBe(200);
  });

  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["2001:DB8:0:0:1:2:3:4", "2001:db8:0:0::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["2001:0db8:00a0:0001::ff", "2001:db8:a0:1::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::ffff:198.51.100.4", "198.51.100.4"],
    [undefined, "unknown"],
  ])("reads %s as the client %s", async (header, expected) => {
    const app = new Hono<AppEnv>().get("/", (c) => c.text(clientAddress(c)));
    const res = await app.request("/", { headers: header ? { "cf-connecting-ip": header } : {} });
    expect(await res.text()).toBe(expected);
  });
});
