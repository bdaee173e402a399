/**
 * The collateral rules of the lien report (src/domain/collateral.ts): the
 * categories realistic descriptions name, the terms that named them, and
 * the VINs found in them.
 */
import { describe, expect, it } from "vitest";
import {
  COLLATERAL_CATEGORIES,
  type CollateralCategory,
  collateralCategories,
  collateralTerms,
  vinsIn,
} from "../src/domain/collateral.ts";

const categoriesOf = (text: string | null | undefined) => collateralCategories(text).map((m) => m.category);
const termsOf = (text: string, category: CollateralCategory) =>
  collateralCategories(text).find((m) => m.category === category)?.terms;

/** Realistic descriptions and the categories they name. */
const EXAMPLES: { label: string; text: string; categories: CollateralCategory[] }[] = [
  {
    label: "a filing service's blanket lien is all assets, with its proceeds",
    text: "All assets of the Debtor, now owned or hereafter acquired, wherever located, and all proceeds and products thereof.",
    categories: ["all_assets", "proceeds"],
  },
  { label: "a bare ALL ASSETS is all assets", text: "ALL ASSETS", categories: ["all_assets"] },
  {
    label: "the debtor's property now owned or hereafter acquired is all assets",
    text: "All of the Debtor's property now owned or hereafter acquired.",
    categories: ["all_assets"],
  },
  {
    label: "all of debtor's assets with a list keeps the listed categories too",
    text: "All of Debtor's assets, including without limitation all accounts, inventory and equipment.",
    categories: ["all_assets", "accounts", "inventory", "equipment"],
  },
  {
    label: "all business assets is all assets",
    text: "All business assets of the Debtor, wherever located.",
    categories: ["all_assets"],
  },
  {
    label: "all present and future tangible and intangible personal property is all assets",
    text: "All present and future tangible and intangible personal property of Borrower.",
    categories: ["all_assets"],
  },
  {
    label: "the omnibus Article 9 list of all goods and intangibles is all assets",
    text:
      "All goods, accounts, equipment, inventory, chattel paper, documents, instruments, general intangibles, " +
      "investment property, deposit accounts, letter-of-credit rights, commercial tort claims and supporting " +
      "obligations of the Debtor, whether now owned or hereafter acquired, and all proceeds thereof.",
    categories: [
      "all_assets",
      "accounts",
      "inventory",
      "equipment",
      "general_intangibles",
      "deposit_accounts",
      "chattel_paper",
      "instruments",
      "investment_property",
      "proceeds",
    ],
  },
  {
    label: "a list of four categories without all goods is not all assets",
    text: "All inventory, accounts, equipment and general intangibles, now owned or hereafter acquired, and all proceeds.",
    categories: ["accounts", "inventory", "equipment", "general_intangibles", "proceeds"],
  },
  {
    label: "a tax lien on all property and rights to property is all assets",
    text: "All property and rights to property, real and personal, belonging to the taxpayer.",
    categories: ["all_assets"],
  },
  {
    label: "a judgment lien on all personal property is all assets",
    text: "All personal property of the judgment debtor subject to enforcement of a money judgment.",
    categories: ["all_assets"],
  },
  {
    label: "all assets listed on a schedule is not blanket",
    text: "All assets listed on the attached Schedule A.",
    categories: ["other"],
  },
  {
    label: "all equipment is equipment, not all assets",
    text: "All equipment of the Debtor, now owned or hereafter acquired.",
    categories: ["equipment"],
  },
  {
    label: "a merchant cash advance's future receipts are accounts, its payment intangibles general intangibles",
    text: "All of Merchant's present and future receipts, accounts, payment intangibles and the proceeds thereof, sold to Secured Party pursuant to the Agreement.",
    categories: ["accounts", "general_intangibles", "proceeds"],
  },
  {
    label: "a purchase of future receipts and card receivables is accounts",
    text: "A specified percentage of all future receipts of Seller, including credit card receivables, purchased under the Revenue Purchase Agreement.",
    categories: ["accounts"],
  },
  {
    label: "health-care-insurance receivables are accounts",
    text: "All accounts, including health-care-insurance receivables, and all inventory.",
    categories: ["accounts", "inventory"],
  },
  {
    label: "an excavator with its serial number is equipment",
    text: "One (1) 2018 Caterpillar 320 Hydraulic Excavator, S/N CAT0320GCZBE12345, together with all attachments, accessions and replacements.",
    categories: ["equipment"],
  },
  {
    label: "equipment under a master lease is equipment",
    text: "All equipment leased under Master Lease Agreement No. 4411, together with all accessions, additions and replacements.",
    categories: ["equipment"],
  },
  {
    label: "a truck tractor with its VIN is a vehicle",
    text: "2019 Freightliner Cascadia Truck Tractor, VIN 1M8GDM9AXKP042788",
    categories: ["vehicles"],
  },
  {
    label: "a valid VIN alone is a vehicle",
    text: "1HGCM82633A004352",
    categories: ["vehicles"],
  },
  {
    label: "trailers are vehicles",
    text: "Two (2) 2020 Utility 53' dry van semi-trailers, serial numbers to follow.",
    categories: ["vehicles"],
  },
  {
    label: "a forklift and a lift truck are equipment, not vehicles",
    text: "Toyota 8FGCU25 forklift, serial no. 12345, and one Crown electric lift truck.",
    categories: ["equipment"],
  },
  {
    label: "a farm tractor and a grain cart are equipment",
    text: "John Deere 8R 410 tractor, s/n 1RW8410RCNP123456, and one Kinze 1100 grain cart.",
    categories: ["equipment"],
  },
  {
    label: "a crop and livestock lien is farm products",
    text:
      "All crops growing or to be grown on the real property described in Exhibit A, all livestock,\n" +
      "including cattle and their unborn young, and all farm products of Debtor.",
    categories: ["farm_products"],
  },
  {
    label: "an agricultural lien on corn, soybeans and grain is farm products",
    text: "2024 corn and soybean crops, and all grain stored in bins on Debtor's farm.",
    categories: ["farm_products"],
  },
  {
    label: "a fixture filing is fixtures",
    text: "This financing statement is filed as a fixture filing and covers all goods that are or are to become fixtures on the real property described in Exhibit A.",
    categories: ["fixtures"],
  },
  {
    label: "furniture, fixtures and equipment are equipment and fixtures",
    text: "All furniture, fixtures and equipment (FF&E) located at 12 Main Street, Springfield.",
    categories: ["equipment", "fixtures"],
  },
  {
    label: "household goods are consumer goods",
    text: "Consumer goods: one (1) Whirlpool refrigerator and household furniture purchased from Seller for personal, family or household purposes.",
    categories: ["consumer_goods"],
  },
  {
    label: "patents, trademarks and licenses are general intangibles",
    text: "All patents, trademarks, copyrights and other intellectual property of the Debtor, and all licenses thereof.",
    categories: ["general_intangibles"],
  },
  {
    label: "a deposit account is not accounts",
    text: "Deposit account no. 123456789 maintained with First National Bank, and all funds therein.",
    categories: ["deposit_accounts"],
  },
  {
    label: "securities accounts and shares of stock are investment property",
    text: "All securities accounts and security entitlements, and 1,000 shares of the capital stock of Acme Holdings, Inc.",
    categories: ["investment_property"],
  },
  {
    label: "retail installment contracts are chattel paper",
    text: "All chattel paper and retail installment sales contracts arising from the sale of manufactured homes.",
    categories: ["chattel_paper"],
  },
  {
    label: "a promissory note is instruments",
    text: "That certain promissory note dated March 1, 2023 in the original principal amount of $250,000, and all instruments evidencing the same.",
    categories: ["instruments"],
  },
  {
    label: "dental instruments are equipment, not instruments",
    text: "Dental equipment and dental instruments located at the Debtor's office.",
    categories: ["equipment"],
  },
  {
    label: "musical instruments are equipment, stock in trade inventory",
    text: "Musical instruments, stock-in-trade and merchandise of the Debtor's music store.",
    categories: ["inventory", "equipment"],
  },
  {
    label: "rolling stock is vehicles",
    text: "All rolling stock and equipment described in Schedule A (Schedule No. 7) to the Lease Agreement.",
    categories: ["equipment", "vehicles"],
  },
  {
    label: "an aircraft is equipment",
    text: "One (1) Airbus A320-214 aircraft, manufacturer's serial number 5521, with two (2) CFM56-5B4/P engines,\nand all logs, manuals and records relating thereto.",
    categories: ["equipment"],
  },
  {
    label: "an Article 9 list without goods names its categories",
    text: "All accounts, chattel paper, documents, equipment, general intangibles, instruments, and inventory, as those terms are defined in Article 9 of the Uniform Commercial Code, now owned or hereafter acquired.",
    categories: ["accounts", "inventory", "equipment", "general_intangibles", "chattel_paper", "instruments"],
  },
  {
    label: "a vessel names no known category and is other",
    text: "One (1) 2015 Sea Ray 350 Sundancer vessel, hull identification number SERV1234A515.",
    categories: ["other"],
  },
  {
    label: "a lien on accounts is accounts, money held on account of a sale is not",
    text: "Security interest on accounts; all sums held in escrow accounts on account of the sale of the business.",
    categories: ["accounts", "deposit_accounts"],
  },
  {
    label: "brokerage and investment accounts are investment property",
    text: "Brokerage account no. 5521 at Fidelity and all other investment accounts of the Debtor.",
    categories: ["investment_property"],
  },
  { label: "proceeds alone are other", text: "All proceeds.", categories: ["other"] },
  {
    label: "proceeds with inventory add to it",
    text: "Inventory and proceeds.",
    categories: ["inventory", "proceeds"],
  },
  {
    label: "longer words that start with a term do not match it",
    text: "Inventorying services, accountancy fees and equipments rental consulting.",
    categories: ["other"],
  },
  {
    label: "a term run on from a letter or digit before it does not match, a letter outside the BMP too",
    text: "Preaccounts, 2inventory, éequipment and 𝐀fixtures.",
    categories: ["other"],
  },
  {
    label: "a term run on from a word leaves the terms inside it and after it to match",
    text: "Subaccounts receivable; nonequipment, then equipment-\nleasing.",
    categories: ["accounts", "equipment"],
  },
  {
    label: "terms split by line breaks and dashes still match",
    text: "ACCOUNTS-\nRECEIVABLE;  GENERAL\r\nINTANGIBLES; Stock-In-Trade",
    categories: ["accounts", "inventory", "general_intangibles"],
  },
];

describe("collateral categories", () => {
  it.each(EXAMPLES)("$label", ({ text, categories }) => {
    expect(categoriesOf(text)).toEqual(categories);
  });

  it.each([null, undefined, "", "   \n\t "])("names no category for the missing or blank description %j", (text) => {
    expect(collateralCategories(text)).toEqual([]);
  });

  it("reports other without terms", () => {
    expect(collateralCategories("One (1) 2015 Sea Ray vessel")).toEqual([{ category: "other", terms: [] }]);
  });

  it("lists categories in the order of COLLATERAL_CATEGORIES", () => {
    const text = "Proceeds of consumer goods, crops, trucks, equipment, inventory, accounts and all assets.";
    const found = categoriesOf(text);
    expect(found).toEqual(COLLATERAL_CATEGORIES.filter((c) => found.includes(c)));
    expect(found).toHaveLength(8);
  });

  it.each<[string, CollateralCategory, string[]]>([
    [
      "All assets of the Debtor, now owned or hereafter acquired, and all proceeds and products thereof.",
      "proceeds",
      ["proceeds", "products"],
    ],
    [
      "Accounts, Accounts Receivable and ACCOUNTS, and receivables",
      "accounts",
      ["accounts", "accounts receivable", "receivables"],
    ],
    ["ACCOUNTS-\nRECEIVABLE and general\nintangibles", "general_intangibles", ["general intangibles"]],
    ["Accounts-Receivable", "accounts", ["accounts-receivable"]],
    ["VIN 1m8gdm9axkp042788 on one Truck", "vehicles", ["vin", "truck", "1m8gdm9axkp042788"]],
    ["All of Debtor’s assets", "all_assets", ["all of debtor's assets"]],
    [
      "All goods, accounts, chattel paper, instruments, general intangibles and deposit accounts, now owned or hereafter acquired",
      "all_assets",
      ["all goods", "now owned or hereafter acquired"],
    ],
    ["Household furniture and office furniture", "equipment", ["furniture"]],
  ])("names the terms that matched in %j as %s: %j", (text, category, terms) => {
    expect(termsOf(text, category)).toEqual(terms);
  });

  /** Every UTF-16 code unit a pattern's `\s` reads as whitespace. */
  const SPACES = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).filter((ch) => /\s/.test(ch));

  it("reads each run of whitespace of any kind as one space", () => {
    expect(SPACES).toHaveLength(25);
    for (const space of SPACES) {
      for (const text of [`accounts${space}receivable`, `${space}accounts ${space}${space}receivable `]) {
        expect([text, termsOf(text, "accounts")]).toEqual([text, ["accounts receivable"]]);
      }
    }
  });

  it("does not read a zero-width space, which is not whitespace, as a space between words", () => {
    expect(termsOf("accounts\u200breceivable", "accounts")).toEqual(["accounts", "receivable"]);
  });

  it("does not read products of a business as proceeds", () => {
    expect(categoriesOf("Inventory of electronic products and farm products")).toEqual(["inventory", "farm_products"]);
  });
});

describe("collateral terms of known categories", () => {
  const known = (text: string) => new Set(categoriesOf(text));

  it.each(EXAMPLES)("gives the whole scan's answer when its categories are known: $label", ({ text }) => {
    expect(collateralTerms(text, known(text))).toEqual(collateralCategories(text));
  });

  it("runs only the known categories' patterns", () => {
    expect(collateralTerms("Accounts and inventory", new Set(["accounts"]))).toEqual([
      { category: "accounts", terms: ["accounts"] },
    ]);
  });

  it("reads the omnibus list from the known categories, and scans whole when they do not make one", () => {
    const omnibus =
      "All goods, accounts, chattel paper, instruments and general intangibles, now owned or hereafter acquired";
    const all = collateralTerms(omnibus, known(omnibus)).find((m) => m.category === "all_assets");
    expect(all?.terms).toEqual(["all goods", "now owned or hereafter acquired"]);
    const fewer = new Set<CollateralCategory>(["all_assets", "accounts"]);
    expect(collateralTerms(omnibus, fewer)).toEqual(collateralCategories(omnibus));
  });

  it.each<[string, string, CollateralCategory[]]>([
    ["a known category the text does not name", "Accounts receivable", ["equipment"]],
    ["no category known for a text", "Accounts receivable", []],
    ["proceeds alone known", "Accounts and proceeds", ["proceeds"]],
    ["other known beside a category", "Accounts", ["other", "accounts"]],
  ])("answers with the whole scan for %s", (_, text, categories) => {
    expect(collateralTerms(text, new Set(categories))).toEqual(collateralCategories(text));
  });
});

/** The check digit of a 17-character VIN, worked out here apart from the module (49 CFR 565.15). */
function checkDigit(vin: string): string {
  const weights = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
  // A character's value is its position here modulo 10: A-H 1-8, J-N 1-5, P 7, R 9, S-Z 2-9.
  const table = "0123456789.ABCDEFGH..JKLMN.P.R..STUVWXYZ";
  const sum = [...vin].reduce((s, ch, i) => s + (table.indexOf(ch) % 10) * (weights[i] ?? 0), 0);
  const rest = sum % 11;
  return rest === 10 ? "X" : String(rest);
}

const VALID = ["1M8GDM9AXKP042788", "11111111111111111", "1HGCM82633A004352"];
const WRONG_CHECK_DIGIT = ["5YJSA1DN2CFP09123", "1M8GDM9A1KP042788", "1HGCM82634A004352"];

describe("VINs", () => {
  it.each(VALID)("%s has the check digit the test counts as valid", (vin) => {
    expect(checkDigit(vin)).toBe(vin.charAt(8));
  });

  it.each(WRONG_CHECK_DIGIT)("%s has a check digit the test counts as wrong", (vin) => {
    expect(checkDigit(vin)).not.toBe(vin.charAt(8));
  });

  it.each(VALID)("finds %s in a description", (vin) => {
    expect(vinsIn(`2019 truck, VIN: ${vin}, with all accessions`)).toEqual([vin]);
  });

  it.each(WRONG_CHECK_DIGIT)("does not find %s, whose check digit is wrong", (vin) => {
    expect(vinsIn(`VIN ${vin}`)).toEqual([]);
  });

  it("finds a lowercase VIN and gives it upper-cased", () => {
    expect(vinsIn("vin 1m8gdm9axkp042788")).toEqual(["1M8GDM9AXKP042788"]);
  });

  it("gives each VIN once, in the order of first appearance", () => {
    const text = "1HGCM82633A004352; 1M8GDM9AXKP042788\n1hgcm82633a004352 (1M8GDM9AXKP042788)";
    expect(vinsIn(text)).toEqual(["1HGCM82633A004352", "1M8GDM9AXKP042788"]);
  });

  it.each([
    ["O for 0", "1HGCM82633AO04352", "1HGCM82633A004352"],
    ["I for 1", "11111111I11111111", "11111111111111111"],
    ["Q for 0", "1M8GDM9AXKPQ42788", "1M8GDM9AXKP042788"],
  ])("rejects a VIN with %s", (_, vin, valid) => {
    expect(vin).toHaveLength(17);
    expect(checkDigit(valid)).toBe(valid.charAt(8));
    expect(vinsIn(vin)).toEqual([]);
  });

  it.each([
    "X1M8GDM9AXKP042788",
    "1M8GDM9AXKP0427881",
    "VIN1M8GDM9AXKP042788",
    "1M8GDM9AXKP042788A1",
    "I1M8GDM9AXKP042788",
  ])("does not find a VIN inside the longer run %s", (text) => {
    expect(vinsIn(text)).toEqual([]);
  });

  it("finds a VIN beside an underscore or a letter outside ASCII, which do not run on as letters and digits do", () => {
    expect(vinsIn("S/N_1M8GDM9AXKP042788 é11111111111111111é")).toEqual(["1M8GDM9AXKP042788", "11111111111111111"]);
  });

  it("finds VINs set off by punctuation", () => {
    expect(vinsIn("VIN#1M8GDM9AXKP042788,(11111111111111111)")).toEqual(["1M8GDM9AXKP042788", "11111111111111111"]);
  });

  it("finds none in text without one", () => {
    expect(vinsIn("")).toEqual([]);
    expect(vinsIn("S/N CAT0320GCZBE12345")).toEqual([]);
  });
});
