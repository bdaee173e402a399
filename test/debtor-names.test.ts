/**
 * The exact-name endpoints (5 to 7) under the published search logic:
 * individuals by last, first and middle name, the new ending words and
 * accents, and the three endpoints agreeing on which debtors a name means.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { NAME_SLOTS } from "../src/queries/filings.ts";
import { allPagesA, daysAgo, filing, getJson, load, party, registerKeys } from "./helpers.ts";

const person = (name: string, street1 = "5 Home Ln", zip = "90210") =>
  party(name, { type: "Individual", street1, zip });
const org = (name: string, street1 = "1 Main St", zip = "94107") => party(name, { street1, zip });

/** Middle names beyond the ordered arms of one key range, so the shared arm is exercised too. */
const MIDDLES = ["Adam", "Brian", "Carl", "Dale", "Earl", "Frank", "Gene"];

beforeAll(async () => {
  await registerKeys();
  await load([
    filing({ number: "I-1", filedAt: daysAgo(100), debtors: [person("Smith, John Allen"), org("Smith Trucking LLC")] }),
    filing({ number: "I-2", filedAt: daysAgo(90), debtors: [person("John A. Smith", "7 Oak St")] }),
    filing({ number: "I-3", filedAt: daysAgo(80), debtors: [person("J Smith")] }),
    filing({ number: "I-4", filedAt: daysAgo(70), debtors: [person("John Smith Jr")] }),
    // Spouses: "J Smith" finds both, on one filing counted once.
    filing({ number: "I-5", filedAt: daysAgo(60), debtors: [person("SMITH, JOHN"), person("SMITH, JANE")] }),
    filing({ number: "I-6", filedAt: daysAgo(50), debtors: [person("John Bertram Smith", "9 Elm St")] }),
    filing({ number: "I-7", filedAt: daysAgo(40), debtors: [person("James Smith")] }),
    filing({ number: "I-8", filedAt: daysAgo(30), debtors: [person("Smith")] }),
    filing({ number: "I-9", filedAt: daysAgo(20), debtors: [person("PENA, JOSE")] }),
    // A sole proprietor filed both as an organization and as an individual.
    filing({ number: "I-10", filedAt: daysAgo(10), debtors: [org("JOHN SMITH"), person("Smith, John")] }),
    filing({ number: "I-NV", state: "NV", filedAt: daysAgo(5), debtors: [person("John Smith", "1 Strip", "89101")] }),
    ...MIDDLES.map((m, i) =>
      filing({ number: `W-${i}`, filedAt: daysAgo(200 + i), debtors: [person(`Walker, Wade ${m}`)] }),
    ),
    filing({ number: "O-1", filedAt: daysAgo(9), debtors: [org("US BANK NA")] }),
    filing({ number: "O-2", filedAt: daysAgo(8), debtors: [org("U.S. Bank, N.A.")] }),
    filing({ number: "O-3", filedAt: daysAgo(7), debtors: [org("U.S. Bank National Association")] }),
    filing({ number: "O-4", filedAt: daysAgo(6), debtors: [org("US Bancorp")] }),
    filing({ number: "O-5", filedAt: daysAgo(5), debtors: [org("Farmers Co-op")] }),
    filing({ number: "O-6", filedAt: daysAgo(4), debtors: [org("Farmers Cooperative Association")] }),
    filing({ number: "O-7", filedAt: daysAgo(3), debtors: [org("Teachers Federal Credit Union")] }),
    filing({ number: "O-8", filedAt: daysAgo(2), debtors: [org("TEACHERS FCU")] }),
    filing({ number: "O-9", filedAt: daysAgo(1), debtors: [org("Müller Bäckerei, Joint Venture")] }),
    filing({ number: "H-1", filedAt: daysAgo(300), debtors: [person("Mary Smith-Jones")] }),
    filing({ number: "H-2", filedAt: daysAgo(299), debtors: [person("SMITH-JONES, MARY ANN")] }),
    filing({ number: "H-3", filedAt: daysAgo(298), debtors: [person("Jones, Mary Smith")] }),
    filing({ number: "H-4", filedAt: daysAgo(297), debtors: [person("Mary Jones")] }),
    filing({ number: "U-1", filedAt: daysAgo(296), debtors: [org("𝐇𝐀𝐑𝐁𝐎𝐑 Manufacturing Inc")] }),
    filing({ number: "U-2", filedAt: daysAgo(295), debtors: [org("Manufacturing Inc")] }),
    filing({ number: "M-1", filedAt: daysAgo(294), debtors: [org("Harbor Dental Prof. Corp.")] }),
    filing({ number: "M-2", filedAt: daysAgo(293), debtors: [org("Harbor Dental L.L.Co.")] }),
  ]);
});

const numbers = async (path: `/debtors/search?${string}`) =>
  (await allPagesA(path, "ucc_liens")).map((l) => l.initial_financing_number);

/** Every page, and total_results equal to what the pages held. */
async function searched(name: string, state = "CA") {
  const path = `/debtors/search?name=${encodeURIComponent(name)}&state=${state}` as const;
  const first = await getJson(path);
  const all = await numbers(path);
  expect(first.pagination.total_results).toBe(all.length);
  expect(new Set(all).size).toBe(all.length);
  return all;
}

describe("GET /debtors/search with individual names", () => {
  it("finds a first name, its initial, and any middle name, newest first", async () => {
    expect(await searched("John Smith")).toEqual(["I-10", "I-6", "I-5", "I-4", "I-3", "I-2", "I-1"]);
  });

  it("reads a comma as last name first", async () => {
    expect(await searched("Smith, John")).toEqual(await searched("John Smith"));
  });

  it("finds a middle initial only among names with that middle name or initial", async () => {
    expect(await searched("John A Smith")).toEqual(["I-2", "I-1"]);
    expect(await searched("Smith, J B")).toEqual(["I-6"]);
    expect(await searched("John Albert Smith")).toEqual(["I-2"]);
  });

  it("finds every first name starting with an initial, counting a filing of two such debtors once", async () => {
    expect(await searched("J Smith")).toEqual(["I-10", "I-7", "I-6", "I-5", "I-4", "I-3", "I-2", "I-1"]);
  });

  it("finds a last name alone only among names without first and middle names", async () => {
    expect(await searched("Smith")).toEqual(["I-8"]);
  });

  it("ignores accents and keeps to the state", async () => {
    expect(await searched("José Peña")).toEqual(["I-9"]);
    expect(await searched("John Smith", "NV")).toEqual(["I-NV"]);
  });

  it("finds a hyphenated last name searched with a space, and the middle-name reading too", async () => {
    expect(await searched("Mary Smith Jones")).toEqual(["H-3", "H-2", "H-1"]);
    expect(await searched("Smith Jones, Mary")).toEqual(["H-2", "H-1"]);
    expect(await searched("Mary Jones")).toEqual(["H-4", "H-3"]);
  });

  it(`pages through more middle names than the ${NAME_SLOTS} ordered arms of one range, each once`, async () => {
    expect(await searched("Wade Walker")).toEqual(MIDDLES.map((_, i) => `W-${i}`));
    expect(await searched("Walker, W")).toEqual(MIDDLES.map((_, i) => `W-${i}`));
    expect(await searched("Walker, W G")).toEqual(["W-6"]);
  });
});

describe("GET /debtors/search with the published ending words", () => {
  it("finds US BANK NA and U.S. Bank, N.A. for US Bank, and not US Bancorp", async () => {
    expect(await searched("US Bank")).toEqual(["O-3", "O-2", "O-1"]);
  });

  it("treats co-op, cooperative, association and credit union forms as endings", async () => {
    expect(await searched("Farmers Coop")).toEqual(["O-6", "O-5"]);
    expect(await searched("Teachers Credit Union")).toEqual(["O-8", "O-7"]);
    expect(await searched("Muller Backerei JV")).toEqual(["O-9"]);
  });

  it("treats Massachusetts's professional corporation and limited liability company forms as endings", async () => {
    expect(await searched("Harbor Dental, P.C.")).toEqual(["M-2", "M-1"]);
  });

  it("reads mathematical capitals as the letters they are, not as separators", async () => {
    expect(await searched("Harbor Manufacturing")).toEqual(["U-1"]);
    expect(await searched("Manufacturing Inc")).toEqual(["U-2"]);
  });
});

describe("the three exact-name endpoints mean the same debtors", () => {
  it("lists the addresses of every debtor the search finds, each address once", async () => {
    const streets = async (name: string) =>
      (await allPagesA(`/debtors/addresses?name=${encodeURIComponent(name)}`, "addresses")).map((a) => a.street1);
    // Individuals John Smith, J Smith, John A. and John Bertram Smith, in any state.
    expect(await streets("Smith, John")).toEqual(["1 Strip", "5 Home Ln", "9 Elm St", "7 Oak St"]);
    // Read as an organization too, "John Smith" also finds JOHN SMITH at 1 Main St.
    expect((await streets("John Smith")).sort()).toEqual(["1 Main St", "1 Strip", "5 Home Ln", "7 Oak St", "9 Elm St"]);
  });

  it("lists co-debtors that the name itself does not find", async () => {
    const john = await getJson("/debtors/associated/?name=John%20Smith&state=CA");
    expect(john.associated_debtors.map((a) => a.debtor_name)).toEqual(["SMITH, JANE", "Smith Trucking LLC"]);
    expect(john.pagination.total_results).toBe(2);
    // "J Smith" finds Jane too, and the organization JOHN SMITH is not a J Smith.
    const j = await getJson("/debtors/associated/?name=J%20Smith&state=CA");
    expect(j.associated_debtors.map((a) => a.debtor_name)).toEqual(["JOHN SMITH", "Smith Trucking LLC"]);
  });
});
