/**
 * Limits and formats that the API's parameters and the feed importer share,
 * each defined once: whatever the importer loads, a request can ask for;
 * and the limits the queries behind a parameter are built for.
 */

/**
 * Most changes a page of the change feed holds (its `limit`): a merged
 * page's filings are sought by key from a list of this many bound values
 * (src/changes/read.ts), within D1's 100 a statement.
 */
export const MAX_CHANGES_LIMIT = 100;

/**
 * Longest party name, in characters. Real registers hold debtor names of
 * several hundred characters (land trusts, trustee capacities).
 */
export const MAX_NAME_LENGTH = 1000;

/** Longest amendment description, in characters: what a feed gives is cut to it, and what an office's codes make. */
export const MAX_DESCRIPTION_LENGTH = 200;

/** Longest filing or amendment number, in characters. */
export const MAX_FILING_NUMBER_LENGTH = 64;

/**
 * A filing number: opaque (formats differ by state), trimmed, 1 to
 * MAX_FILING_NUMBER_LENGTH characters, none of them a control character.
 */
export const FILING_NUMBER = new RegExp(`^\\P{Cc}{1,${MAX_FILING_NUMBER_LENGTH}}$`, "u");

/** A US ZIP code as the API takes it: five digits, or ZIP+4 with a hyphen. */
export const US_ZIP = /^\d{5}(?:-\d{4})?$/;
