/**
 * How values read on the page. Dates stay ISO (YYYY-MM-DD): filings come
 * from every state and are read by people in many, and 03/04 means two
 * different days to them.
 */
import type { CollateralCategory } from "../domain/collateral.ts";
import type { AmendmentKind, FilingKind } from "../domain/kinds.ts";
import type { SecuredPartyKind } from "../domain/securedPartyKinds.ts";

/** The day of an API timestamp or date (UTC, as the API gives them). */
export function day(stamp: string | null | undefined): string {
  return stamp ? stamp.slice(0, 10) : "";
}

/** Today's date in UTC, the day the API's statuses and lapse dates count in. */
export function today(now = new Date()): string {
  return now.toISOString().slice(0, 10);
}

export const FILING_KIND_LABELS: Record<FilingKind, string> = {
  standard: "UCC financing statement",
  manufactured_home: "Manufactured-home filing",
  public_finance: "Public-finance filing",
  transmitting_utility: "Transmitting-utility filing (does not lapse)",
  agricultural_lien: "Agricultural lien",
  state_tax_lien: "State tax lien",
  federal_tax_lien: "Federal tax lien",
  judgment_lien: "Judgment lien",
  vessel_lien: "Vessel lien",
  other_lien: "Other lien",
};

export const AMENDMENT_KIND_LABELS: Record<AmendmentKind, string> = {
  continuation: "Continuation",
  termination: "Termination",
  reinstatement: "Reinstatement",
  assignment: "Assignment",
  party_change: "Party change",
  collateral_change: "Collateral change",
  other: "Other amendment",
};

export const SECURED_PARTY_KIND_LABELS: Record<SecuredPartyKind, string> = {
  representative: "Representative (lender not named)",
  government: "Government",
  credit_union: "Credit union",
  bank: "Bank",
  equipment_finance: "Equipment finance",
  funding_company: "Funding company",
  other: "Other lender",
};

export const COLLATERAL_CATEGORY_LABELS: Record<CollateralCategory, string> = {
  all_assets: "All assets",
  accounts: "Accounts",
  inventory: "Inventory",
  equipment: "Equipment",
  vehicles: "Vehicles",
  farm_products: "Farm products",
  fixtures: "Fixtures",
  general_intangibles: "General intangibles",
  deposit_accounts: "Deposit accounts",
  chattel_paper: "Chattel paper",
  instruments: "Instruments",
  investment_property: "Investment property",
  proceeds: "Proceeds",
  consumer_goods: "Consumer goods",
  other: "Other collateral",
};

interface AddressParts {
  street1?: string | null;
  street2?: string | null;
  city?: string | null;
  state?: string | null;
  zip_code?: string | null;
  country?: string | null;
}

/** One line of what the office recorded, parts it did not record left out; "not recorded" when none. */
export function addressLine(a: AddressParts): string {
  const place = [a.city, [a.state, a.zip_code].filter(Boolean).join(" ")].filter(Boolean).join(", ");
  const country = a.country && a.country !== "US" ? a.country : "";
  const line = [a.street1, a.street2, place, country].filter(Boolean).join(", ");
  return line || "Address not recorded";
}

/** "1 filing", "3 filings"; `plural` for a noun that takes more than an s ("addresses"). */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : plural}`;
}
