/**
 * New York City's ACRIS code values (docs/sources/nyc-acris.md): the
 * document types of the class "UCC AND FEDERAL LIENS" (ACRIS's document
 * control codes, `7isb-wh4c`) as filings or amendments, and the UCC
 * collateral codes. A document type not listed here is read as an
 * amendment (all but six of the class are) and counted as unrecognised.
 */
import type { AmendmentKind, FilingKind } from "../../domain/kinds.ts";

/** A document that is a filing of its own: its kind, and the collateral text its type alone gives. */
interface FilingType {
  description: string;
  kind: FilingKind;
  collateral?: string;
}

export const FILING_TYPES: Readonly<Record<string, FilingType>> = {
  UCC1: { description: "UNIFORM COMMERCIAL CODE 1", kind: "standard" },
  INIT: { description: "INITIAL UCC1", kind: "standard" },
  INIC: { description: "INITIAL COOP UCC1", kind: "standard", collateral: "Cooperative unit" },
  FL: { description: "FEDERAL LIEN-IRS", kind: "federal_tax_lien" },
  // A federal lien other than the IRS's: federal, with a federal lien's long term rather than a generic lien's.
  FTL: { description: "FEDERAL LIEN, OTHER", kind: "federal_tax_lien" },
  // The IRS's notice of the estate tax lien (party 2 is the IRS): a federal tax lien.
  NTXL: { description: "NOTICE OF ESTATE TAX LIEN", kind: "federal_tax_lien" },
};

/** A document filed against another: the office's description and what it does. */
interface AmendmentType {
  description: string;
  kind: AmendmentKind;
}

export const AMENDMENT_TYPES: Readonly<Record<string, AmendmentType>> = {
  UCC3: { description: "UNIFORM COMMERCIAL CODE 3", kind: "other" },
  AMND: { description: "UCC3 AMENDMENT", kind: "party_change" },
  ASGN: { description: "UCC3 ASSIGNMENT", kind: "assignment" },
  PSGN: { description: "UCC3 PARTIAL ASSIGNMENT", kind: "assignment" },
  CONT: { description: "UCC3 CONTINUATION", kind: "continuation" },
  TERM: { description: "UCC3 TERMINATION", kind: "termination" },
  // Releases collateral; the whole filing ends by a TERM.
  RLSE: { description: "UCC3 RELEASE/UCC AMENDMENT", kind: "collateral_change" },
  SUBO: { description: "UCC3 SUBORDINATION", kind: "other" },
  // Another debtor takes on the obligation.
  ASUM: { description: "UCC3 ASSUMPTION", kind: "party_change" },
  BRUP: { description: "UCC3 BANKRUPTCY", kind: "other" },
  CORP: { description: "UCC 5 CORRECTION STATEMENT", kind: "other" },
  "UCC ADEN": { description: "UCC COOPERATIVE ADDENDUM", kind: "collateral_change" },
  // A release of a federal lien ends it.
  RFL: { description: "RELEASE OF FEDERAL LIEN", kind: "termination" },
  RFTL: { description: "RELEASE OF FEDERAL TAX LIEN", kind: "termination" },
  CNFL: { description: "CONTINUATION OF FEDERAL LIEN", kind: "continuation" },
  AMFL: { description: "AMENDMENT OF FEDERAL LIEN", kind: "party_change" },
  // Property released or discharged from the lien: the lien stands on the rest.
  PRFL: { description: "PARTIAL RELEASE OF FED LIEN", kind: "collateral_change" },
  DPFTL: { description: "DISCHARGE OF PROPERTY FROM FTL", kind: "collateral_change" },
  // A withdrawn notice: the IRS's lien itself is not released, so the filing is not ended.
  WFL: { description: "WITHDRAWAL OF A FED LIEN", kind: "other" },
  PWFL: { description: "PARTIAL WITHDRAWL OF FED LIEN", kind: "other" },
  NAFTL: { description: "CERT NONATTCHMENT FED TAX LIEN", kind: "other" },
  // Revoking the certificate of release puts the lien back in force (IRC 6325(f)(2)).
  RCRFL: { description: "REVOCATION OF CERTIF. OF RFL", kind: "reinstatement" },
  PRCFL: { description: "PARTIAL REVOCATION OF CERT RFL", kind: "other" },
};

/** `ucc_collateral`: a filing kind where one fits, else words for the collateral text. */
type CollateralCode = { kind: FilingKind } | { collateral: string } | { other: true };

export const COLLATERAL_CODES: Readonly<Record<string, CollateralCode>> = {
  F: { collateral: "Fixture filing" },
  C: { collateral: "Cooperative unit" },
  A: { collateral: "Cooperative unit, with a cooperative addendum" },
  M: { kind: "manufactured_home" },
  P: { kind: "public_finance" },
  D: { kind: "transmitting_utility" },
  R: { collateral: "Crops, as-extracted collateral or timber" },
  // "Other" says nothing of the collateral: no text.
  O: { other: true },
};

/** Party types (`party_type`): 1 the debtor, 2 the secured party, 3 the assignee or new secured party. */
export const PARTY_ROLES: Readonly<Record<string, "debtor" | "secured">> = {
  "1": "debtor",
  "2": "secured",
  "3": "secured",
};

/** The document type as the tables' keys spell it (`ucc aden` is `UCC ADEN`). */
export const typeCode = (value: string) => value.trim().replace(/\s+/g, " ").toUpperCase();

/** Whether a document of type `value` is a filing of its own rather than one filed against another. */
export const isFilingType = (value: string) => FILING_TYPES[typeCode(value)] !== undefined;
