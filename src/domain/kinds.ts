/**
 * The closed sets of values a filing carries: the one list of each, which
 * the schema stores, the loaders check, the lapse rules key on and the API
 * validates and documents. Adding a value is one edit here.
 *
 * Kinds, lapse sources and party types are stored as their position in the
 * list (src/db/encodings.ts): append new values at the end only.
 */

/** What a filing is (lapse rules by kind: src/domain/lifecycle.ts). */
export const FILING_KINDS = [
  "standard",
  "manufactured_home",
  "public_finance",
  "transmitting_utility",
  "agricultural_lien",
  "state_tax_lien",
  "federal_tax_lien",
  "judgment_lien",
  "other_lien",
  "vessel_lien",
] as const;
export type FilingKind = (typeof FILING_KINDS)[number];

/** What an amendment does; `other` keeps any kind an office names that these do not. */
export const AMENDMENT_KINDS = [
  "continuation",
  "termination",
  "reinstatement",
  "assignment",
  "party_change",
  "collateral_change",
  "other",
] as const;
export type AmendmentKind = (typeof AMENDMENT_KINDS)[number];

/**
 * Amendment kinds by what they do to a lien, strongest first: the kind of
 * one office record that is several at once (a UCC-3 that assigns and
 * amends, an event of several actions).
 */
export const AMENDMENT_STRENGTH: readonly AmendmentKind[] = [
  "termination",
  "reinstatement",
  "continuation",
  "assignment",
  "party_change",
  "collateral_change",
  "other",
];

/** Whose lapse date a filing carries: the filing office's, or one computed from its kind. */
export const LAPSE_SOURCES = ["office", "estimated"] as const;
export type LapseSource = (typeof LAPSE_SOURCES)[number];

/** What a debtor or secured party is (the `borrower_type` filter's values). */
export const PARTY_TYPES = ["Individual", "Organization"] as const;
export type PartyType = (typeof PARTY_TYPES)[number];

/** A filing's estimated status on a given day (src/domain/lifecycle.ts); not stored. */
export const LIEN_STATUSES = ["Active", "Lapsed", "Terminated"] as const;
export type LienStatus = (typeof LIEN_STATUSES)[number];

/**
 * What a change of the change feed says happened to a filing (docs/monitoring.md):
 * - `filing.created`: a filing the service did not hold;
 * - `filing.continued`, `.terminated`, `.assigned`, `.reinstated`,
 *   `.amended`: an amendment of that kind arrived (`amended`: a party,
 *   collateral or other change);
 * - `filing.updated`: a filing delivered again with stored facts changed;
 * - `filing.lapsed`: its lapse date passed.
 */
export const CHANGE_TYPES = [
  "filing.created",
  "filing.continued",
  "filing.terminated",
  "filing.assigned",
  "filing.reinstated",
  "filing.amended",
  "filing.updated",
  "filing.lapsed",
] as const;
export type ChangeType = (typeof CHANGE_TYPES)[number];

/** The change an amendment of each kind records. */
export const AMENDMENT_CHANGES: Record<AmendmentKind, ChangeType> = {
  continuation: "filing.continued",
  termination: "filing.terminated",
  reinstatement: "filing.reinstated",
  assignment: "filing.assigned",
  party_change: "filing.amended",
  collateral_change: "filing.amended",
  other: "filing.amended",
};

/** The fields a `filing.updated` change names, as the filing's JSON calls them. */
export const CHANGED_FIELDS = [
  "initial_financing_date",
  "filing_kind",
  "estimated_lien_lapse_date",
  "filing_office",
  "collateral",
  "debtor_parties",
  "secured_parties",
  "amendments",
] as const;
export type ChangedField = (typeof CHANGED_FIELDS)[number];
