/**
 * The kinds of lender the lien report shows (src/domain/securedPartyKinds.ts):
 * realistic secured-party names of every kind, the order the rules apply in,
 * and one kind for a name however it is written.
 */
import { describe, expect, it } from "vitest";
import { SECURED_PARTY_KINDS, type SecuredPartyKind, securedPartyKind } from "../src/domain/securedPartyKinds.ts";

const NAMES: Record<SecuredPartyKind, string[]> = {
  representative: [
    "Corporation Service Company, as Representative",
    "Corporation Service Company",
    "Corporation Service Co.",
    "CSC",
    "CT Corporation System",
    "C T Corporation System, as representative",
    "First Corporate Solutions, as Representative",
    "Lien Solutions",
    "United Corporate Services, Inc.",
    "Wells Fargo Bank, N.A., as Representative",
    "Kapitus Servicing, Inc., as Secured Party Representative",
  ],
  government: [
    "Internal Revenue Service",
    "United States of America, Department of Treasury",
    "United States of America",
    "U.S.A.",
    "U.S. Small Business Administration",
    "Small Business Administration",
    "Department of the Treasury - IRS",
    "State of California Franchise Tax Board",
    "Employment Development Department",
    "New York State Department of Taxation and Finance",
    "Comptroller of Public Accounts",
    "City of New York Department of Finance",
    "Texas Workforce Commission",
    "Georgia Department of Revenue",
    "Illinois Department of Employment Security",
    "State of New York",
    "Commonwealth of Massachusetts Department of Revenue",
    "USDA Farm Service Agency",
    "Commodity Credit Corporation",
  ],
  credit_union: [
    "Navy Federal Credit Union",
    "Pentagon Federal Credit Union",
    "Alliant Credit Union",
    "Bank-Fund Staff Federal Credit Union",
    "Golden 1 FCU",
    "Navy Federal CU",
  ],
  bank: [
    "Wells Fargo Bank, N.A.",
    "WELLS FARGO BANK N A",
    "JPMorgan Chase Bank, National Association",
    "U.S. Bank National Association",
    "Capital One, N.A.",
    "The Huntington National Bank",
    "Wilmington Trust Company",
    "Zions Bancorporation, N.A.",
    "Banc of California",
    "Sterling Savings Bank",
    "First Federal Savings and Loan Association of Lakewood",
    "State of Franklin Savings Bank",
    "Bank of America Leasing & Capital, LLC",
    "Marlin Business Bank",
    "Wells Fargo Bank, N.A., as Administrative Agent",
    // A federal savings bank, whatever else it finances.
    "John Deere Financial, f.s.b.",
  ],
  equipment_finance: [
    "Caterpillar Financial Services Corporation",
    "Deere & Company",
    "John Deere Financial",
    "CNH Industrial Capital America LLC",
    "Kubota Credit Corporation, U.S.A.",
    "De Lage Landen Financial Services, Inc.",
    "DLL Finance LLC",
    "Komatsu Financial Limited Partnership",
    "Volvo Financial Services, a division of VFS US LLC",
    "PACCAR Financial Corp.",
    "Navistar Financial Corporation",
    "Daimler Truck Financial Services USA LLC",
    "Toyota Industries Commercial Finance, Inc.",
    "Dell Financial Services L.L.C.",
    "Cisco Systems Capital Corporation",
    "Wells Fargo Equipment Finance, Inc.",
    "GreatAmerica Financial Services Corporation",
    "CSC Leasing Company",
    "Pitney Bowes Global Financial Services LLC",
    "Lease Corporation of America",
    "Balboa Capital Corporation",
    "Navitas Credit Corp.",
    "Mitsubishi HC Capital America, Inc.",
    "Wells Fargo Vendor Financial Services, LLC",
  ],
  funding_company: [
    "Pearl Capital Business Funding, LLC",
    "Libertas Funding, LLC",
    "Everest Business Funding",
    "Funding Circle USA, Inc.",
    "Rapid Advance LLC",
    "Merchant Capital Source",
    "Triumph Business Capital",
    "Capital Factors, LLC",
    "ABC Receivables Purchase Co.",
    "Prime Working Capital LLC",
    "Revenue Based Finance Partners",
    // Named: their names say neither funding nor advance.
    "On Deck Capital, Inc.",
    "OnDeck Capital",
    "Kapitus Servicing, Inc.",
    "Fundbox, Inc.",
    "Yellowstone Capital LLC",
    "BlueVine Capital Inc.",
    "CAN Capital Merchant Services",
  ],
  other: [
    // A bare "Capital" says nothing of the lender.
    "Sunrise Capital LLC",
    "Harbor Point Capital Partners",
    "Ford Motor Credit Company LLC",
    "Toyota Motor Credit Corporation",
    "GM Financial",
    "Bankers Healthcare Group, LLC",
    "Acme Supply Co.",
    "John Smith",
    "US Foods, Inc.",
    "",
  ],
};

const rows = Object.entries(NAMES).flatMap(([kind, names]) => names.map((name) => ({ name, kind })));

describe("secured party kinds", () => {
  it("has names of every kind, and more than forty", () => {
    expect(Object.keys(NAMES).sort()).toEqual([...SECURED_PARTY_KINDS].sort());
    for (const kind of SECURED_PARTY_KINDS) expect(NAMES[kind].length).toBeGreaterThanOrEqual(5);
    expect(rows.length).toBeGreaterThan(40);
  });

  it.each(rows)("reads $name as $kind", ({ name, kind }) => {
    expect(securedPartyKind(name)).toBe(kind);
  });

  it.each<[string, string, SecuredPartyKind]>([
    ["a representative over a bank", "XYZ Bank, as representative", "representative"],
    ["a representative over a filing service's other words", "Lien Solutions Funding Desk", "representative"],
    ["the government over a bank", "Commonwealth of Pennsylvania Department of Banking and Securities", "government"],
    ["a credit union over a bank", "Bank-Fund Staff Federal Credit Union", "credit_union"],
    ["a bank over equipment finance", "Bank of the West Equipment Finance", "bank"],
    ["a bank over a funding company", "Celtic Bank Business Funding", "bank"],
    ["equipment finance over a funding company", "Capital Lease Funding LLC", "equipment_finance"],
  ])("applies its rules in order: %s", (_, name, kind) => {
    expect(securedPartyKind(name)).toBe(kind);
  });

  it.each([
    ["Wells Fargo Bank, N.A.", "WELLS FARGO BANK NA", "wells fargo bank, national association"],
    ["U.S. Small Business Administration", "US SMALL BUSINESS ADMINISTRATION", "u. s. small-business administration"],
    [
      "Corporation Service Company, as Representative",
      "CORPORATION SERVICE COMPANY AS REPRESENTATIVE",
      "corporation service company (as representative)",
    ],
  ])("gives %s one kind however it is written", (...names) => {
    const kinds = new Set(names.map(securedPartyKind));
    expect(kinds.size).toBe(1);
  });

  it("does not read U.S. in a company's name as the government", () => {
    expect(securedPartyKind("U.S. Bank National Association")).toBe("bank");
    expect(securedPartyKind("USA Truck Leasing")).toBe("equipment_finance");
  });
});
