/**
 * Addresses as filing offices record them, normalized without losing
 * anything: parts missing or empty stay null, foreign regions and postal
 * codes stay as written, and each repair or gap is reported as a note (the
 * importer's warnings), never a reason to refuse the filing.
 */
import type { AddressRecord } from "../db/records.ts";
import { countryCode, ZIP_COUNTRIES } from "../domain/countries.ts";
import { US_ZIP } from "../domain/limits.ts";
import { isStateCode } from "../domain/states.ts";

/** Address parts as read: trimmed text, null when absent or empty. */
export interface RawAddress {
  street1: string | null;
  street2: string | null;
  city: string | null;
  state: string | null;
  zip_code: string | null;
  country: string | null;
}

export type AddressField = keyof RawAddress;

/** A city field that also holds the state and ZIP: `GRAND JCT CO 81504`, `Grand Junction, CO 81504-1234`. */
const CITY_STATE_ZIP = /^(.*?[^\s,])[\s,]+([A-Za-z]{2})[\s,]+(\d{5}(?:-?\d{4})?)$/;

const quoted = (v: string) => JSON.stringify(v);

/**
 * `raw` as stored: the country as its ISO alpha-2 code; for a US address
 * (country US or a US territory, or none with a US state or none at all) the
 * state code upper-cased and the ZIP as five digits or ZIP+4 (`801371234`
 * and `80137 1234` become `80137-1234`); a city field holding the state and
 * ZIP, when those are empty, split into the three. `note` hears of every
 * repair, and of every part a US address lacks (street, city, state, ZIP)
 * or a foreign one lacks (street, city).
 */
export function normalizeAddress(raw: RawAddress, note: (field: AddressField, message: string) => void): AddressRecord {
  let { street1, street2, city, state, zip_code: zip, country } = raw;
  if (country !== null) {
    const code = countryCode(country);
    if (code === null) note("country", `${quoted(country)} names no ISO 3166 country; kept as given`);
    else country = code;
  }
  if (city !== null && state === null && zip === null && (country === null || ZIP_COUNTRIES.has(country))) {
    const [, inCity, inState, inZip] = CITY_STATE_ZIP.exec(city) ?? [];
    if (inCity !== undefined && inState !== undefined && inZip !== undefined && isStateCode(inState.toUpperCase())) {
      note("city", `${quoted(city)} held the state and ZIP: split into city, state and ZIP`);
      [city, state, zip] = [inCity, inState.toUpperCase(), inZip];
    }
  }
  const us = country !== null ? ZIP_COUNTRIES.has(country) : state === null || isStateCode(state.toUpperCase());
  if (us) {
    if (state !== null) {
      if (isStateCode(state.toUpperCase())) state = state.toUpperCase();
      else note("state", `${quoted(state)} is not a US state code; kept as given`);
    }
    if (zip !== null) zip = usZip(zip, (message) => note("zip_code", message));
  }
  if (street1 === null) note("street1", "not recorded");
  if (city === null) note("city", "not recorded");
  if (us && state === null) note("state", "not recorded");
  if (us && zip === null) note("zip_code", "not recorded: not searchable by postal code");
  return { street1, street2, city, state, zipCode: zip, country };
}

/** A US ZIP as five digits or ZIP+4, repairing a missing or odd separator; kept as given (noted) when it is neither. */
function usZip(zip: string, note: (message: string) => void): string {
  if (US_ZIP.test(zip)) return zip;
  const m = /^(\d{5})[\s-]*(\d{4})$/.exec(zip);
  if (m) {
    const fixed = `${m[1]}-${m[2]}`;
    note(`${quoted(zip)} read as ZIP+4 ${fixed}`);
    return fixed;
  }
  note(`${quoted(zip)} is not a US ZIP code (five digits or ZIP+4); kept as given, not searchable by postal code`);
  return zip;
}
