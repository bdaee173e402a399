/**
 * Bounded answers to hostile input: whatever a request holds (a 65 KB comma
 * list, a huge name, thousands of repeated parameters, numbers in other
 * notations), the 400 names each bad parameter once and its body stays under
 * MAX_ERROR_BODY_BYTES; the parsers refuse oversized values before working
 * through them. Speed is measured by `npm run loadtest`, not here.
 */
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { INDUSTRIES } from "../src/domain/industries.ts";
import { ApiError, errorResponse, MAX_ERROR_BODY_BYTES } from "../src/http/errors.ts";
import { industry, MAX_INDUSTRY_LENGTH, MAX_URL_LENGTH } from "../src/http/params.ts";
import type { Body } from "./bodies.ts";
import { filing, get, load, party, registerKeys } from "./helpers.ts";

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/** A 400's body, checked for size and for one detail per parameter. */
async function refusal(path: string) {
  const res = await get(path);
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(400);
  expect(bytes(text)).toBeLessThan(MAX_ERROR_BODY_BYTES);
  const body = JSON.parse(text);
  expect(body.error.code).toBe("invalid_parameter");
  const named = body.error.details?.map((d: { parameter: string }) => d.parameter);
  expect(new Set(named).size).toBe(named.length);
  return { body, size: bytes(text), named };
}

beforeAll(async () => {
  await registerKeys();
  await load([filing(), filing({ debtors: [party("Renée Côté-Bélanger")] })]);
});

describe("over-long URLs", () => {
  it("answers a 65 KB comma list, like any URL over 16 KB, with a small 400 naming the query, unparsed", async () => {
    const { body, named } = await refusal(`/filings/recent-by-state?state=CA&industry=${",".repeat(65_000)}`);
    expect(named).toEqual(["query"]);
    expect(body.error.details?.[0]?.message).toBe("the URL must be at most 16,384 characters");
    // Refused before the route: even an unknown path or a missing key gets this answer.
    expect((await refusal(`/no/such/path?x=${"x".repeat(MAX_URL_LENGTH)}`)).named).toEqual(["query"]);
    const keyless = await get(`/filings/recent-by-state?state=CA&x=${"x".repeat(MAX_URL_LENGTH)}`, null);
    expect(keyless.status).toBe(400);
  });

  it("lets a URL just under the bound through to the parameter checks", async () => {
    const path = "/filings/recent-by-state?state=CA&utm_source=";
    const res = await get(`${path}${"x".repeat(MAX_URL_LENGTH - 200 - path.length)}`);
    expect(res.status).toBe(200);
  });
});

describe("list parameters", () => {
  it("answers a 15 KB comma list with a small 400 naming industry once", async () => {
    const { body, named } = await refusal(`/filings/recent-by-state?state=CA&industry=${",".repeat(15_000)}`);
    expect(named).toEqual(["industry"]);
    expect(body.error.details?.[0]?.message).toContain(`at most ${MAX_INDUSTRY_LENGTH} characters`);
  });

  it("refuses an oversized list before splitting it, so the answer does not grow with the input", async () => {
    // The transform that reads items never runs: its messages are absent.
    const result = industry.safeParse(`${"Manufacturing,".repeat(4_000)}x`);
    expect(result.success).toBe(false);
    expect(result.error?.issues).toHaveLength(1);
    expect(result.error?.issues[0]?.message).not.toMatch(/empty:|not an industry:|repeated:/);
    const small = await refusal(`/filings/recent-by-state?state=CA&industry=${",".repeat(600)}`);
    const huge = await refusal(`/filings/recent-by-state?state=CA&industry=${",".repeat(15_000)}`);
    expect(huge.size).toBe(small.size);
  });

  it("gives empty, unknown and repeated items one detail that names a few of them by position", async () => {
    const items = [
      "",
      "Widgets",
      ..."abcdefgh".split("").map((c) => c.repeat(45)),
      "manufacturing",
      "Manufacturing",
      "",
    ];
    const { body, named } = await refusal(
      `/filings/recent-by-state?state=CA&industry=${encodeURIComponent(items.join(","))}`,
    );
    expect(named).toEqual(["industry"]);
    expect(body.error.details?.[0]?.message).toBe(
      "must list distinct industries separated by commas (empty: items 1 and 13; not an industry: items 2, 3, 4 and 6 more; repeated: Manufacturing); " +
        `allowed: ${INDUSTRIES.join(", ")}`,
    );
  });

  it("never echoes what was sent", async () => {
    const { body } = await refusal(
      `/filings/recent-by-state?state=CA&industry=${encodeURIComponent("Real Estate,<script>x</script>")}`,
    );
    expect(body.error.details?.[0]?.message).toContain("(not an industry: item 2)");
    expect(JSON.stringify(body)).not.toContain("script");
  });

  it("refuses a list that repeats one industry up to the length limit, with one detail", async () => {
    const list = Array(35).fill("Manufacturing").join(",");
    expect(list.length).toBeLessThanOrEqual(MAX_INDUSTRY_LENGTH);
    const { body, named } = await refusal(`/filings/recent-by-state?state=CA&industry=${list}`);
    expect(named).toEqual(["industry"]);
    expect(body.error.details?.[0]?.message).toContain("(repeated: Manufacturing)");
  });

  it("still accepts all fifteen industries, each once, with spaces around the commas", async () => {
    const res = await get(
      `/filings/recent-by-state?state=CA&industry=${encodeURIComponent(
        "Construction & Trades , Retail & E-commerce, Real Estate,Equipment,Finance & Investments,Food & Beverage,Professional Services,Health & Wellness,Education & Training,Transportation & Logistics,Manufacturing,Arts & Entertainment,Automotive Services & Sales,Energy & Utilities,Agriculture & Farming",
      )}`,
    );
    expect(res.status).toBe(200);
  });
});

describe("other oversized input", () => {
  it("answers a 15,000-character name with a small 400 naming name once", async () => {
    const { named } = await refusal(`/debtors/search?state=CA&name=${"x".repeat(15_000)}`);
    expect(named).toEqual(["name"]);
  });

  it("answers a parameter repeated 1,800 times with a small 400 naming it once", async () => {
    const { body, named } = await refusal(`/filings/recent-by-state?${"state=CA&".repeat(1_800)}`);
    expect(named).toEqual(["state"]);
    expect(body.error.details?.[0]?.message).toBe("must be given once, as a two-letter state code");
  });

  it("answers several bad parameters with one detail each", async () => {
    const { named } = await refusal(
      `/filings/recent-by-postal-code?postal_code=x&industry=${",".repeat(300)}Widgets&envelope=c&page=1e4&page=2`,
    );
    expect(named.sort()).toEqual(["envelope", "industry", "page", "postal_code"]);
  });
});

describe("percent-encoding", () => {
  const latin1 = "Ren%E9e%20C%F4t%E9-B%E9langer";
  const utf8 = encodeURIComponent("Renée Côté-Bélanger");

  it("refuses a name encoded in another charset than UTF-8, naming it, where it was searched as its raw text and found nothing", async () => {
    for (const path of [`/debtors/report?name=${latin1}`, `/debtors/search?name=${latin1}&state=CA`]) {
      const { body, named } = await refusal(path);
      expect(named).toEqual(["name"]);
      expect(body.error.details[0].message).toContain("not valid percent-encoded UTF-8");
    }
    // A single stray byte, and a parameter name that does not decode either.
    expect((await refusal("/debtors/report?name=Sanchez%20Cafe%FF")).named).toEqual(["name"]);
    expect((await refusal("/debtors/report?name=Acme&st%E9te=CA")).named).toEqual(["st%E9te"]);
  });

  it("finds the same name sent as UTF-8, and takes an encoded percent sign as text", async () => {
    const report = await get(`/debtors/report?name=${utf8}&state=CA`);
    expect(report.status).toBe(200);
    expect((await report.json<{ summary: { filings: number } }>()).summary.filings).toBe(1);
    const literal = await get(`/debtors/report?name=${encodeURIComponent("100% Acme")}&state=CA`);
    expect(literal.status).toBe(200);
  });
});

describe("choices", () => {
  it.each([
    [
      "/secureds/recent-by-secured-party?name=acme&state=CA&borrower_type=robot",
      "borrower_type",
      "must be Organization or Individual",
    ],
    [
      "/secureds/recent-by-secured-party?name=acme&state=CA&borrower_type=individual&borrower_type=Organization",
      "borrower_type",
      "must be given once, as Organization or Individual",
    ],
    ["/filings/recent-by-postal-code?postal_code=30301&envelope=c", "envelope", "must be a or b"],
    [
      "/filings/recent-by-postal-code?postal_code=30301&envelope=a&envelope=b",
      "envelope",
      "must be given once, as a or b",
    ],
  ])("refuses %s, listing the choices", async (path, parameter, message) => {
    const { body } = await refusal(path);
    expect(body.error.details).toEqual([{ parameter, message }]);
  });

  it("reads a choice in any case, with spaces around it", async () => {
    for (const value of ["ORGANIZATION", " individual ", "Individual"]) {
      const res = await get(
        `/secureds/recent-by-secured-party?name=acme&state=CA&borrower_type=${encodeURIComponent(value)}`,
      );
      expect(res.status, value).toBe(200);
    }
    const res = await get("/filings/recent-by-postal-code?postal_code=30301&envelope=B");
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty("response_metadata.next_page");
  });
});

describe("integers", () => {
  it.each(["0x10", "1e4", "+3", "-1", " 3", "3 ", "3.0", "1_000", "0", "10001", "010000", "٣", "99999999999999999999"])(
    "refuses page=%s as not an integer from 1 to 10000 in decimal digits",
    async (page) => {
      const { body, named } = await refusal(`/filings/recent-by-state?state=CA&page=${encodeURIComponent(page)}`);
      expect(named).toEqual(["page"]);
      expect(body.error.details?.[0]?.message).toBe("must be an integer from 1 to 10000, in decimal digits only");
    },
  );

  it("reads decimal digits, leading zeros included, and treats an empty page as absent", async () => {
    for (const [page, expected] of [
      ["3", 3],
      ["0003", 3],
      ["10000", 10_000],
      ["", 1],
    ] as const) {
      const res = await get(`/filings/recent-by-state?state=CA&page=${page}`);
      expect(res.status, page).toBe(200);
      expect((await res.json<Body<"/filings/recent-by-state">>()).pagination.current_page).toBe(expected);
    }
  });
});

describe("error bodies", () => {
  it("stay under the cap in errorResponse, whatever an error carries", async () => {
    const app = new Hono();
    const huge = "\u0000".repeat(10_000);
    app.get("/", (c) =>
      errorResponse(
        c as never,
        new ApiError("invalid_parameter", huge, {
          details: Array.from({ length: 500 }, (_, i) => ({ parameter: `${huge}${i}`, message: huge })),
        }),
      ),
    );
    const res = await app.request("/");
    const text = await res.text();
    expect(res.status).toBe(400);
    expect(bytes(text)).toBeLessThanOrEqual(MAX_ERROR_BODY_BYTES);
    expect(JSON.parse(text).error.code).toBe("invalid_parameter");
  });
});
