/**
 * The filing feed's record, validated and normalized with zod, whatever the
 * format it came in (NDJSON lines, CSV rows and XML records are all read
 * into this one lien shape first):
 * - a filing: the envelope B lien the API returns (`GET /filings`'s `ucc_liens`
 *   element), giving the FilingRecord the loader takes;
 * - an amendment line: one amendment of a filing that may be loaded already
 *   or later (`amendment_financing_number` at the top level, with the
 *   filing's `initial_financing_number` and `jurisdiction_state`).
 *
 * Only what makes a filing unusable rejects it: no usable number, date or
 * jurisdiction state, or no debtor with a name. Everything else the office
 * published is kept; a repair or a gap (a missing ZIP, a foreign country
 * named in words, a nameless party, an unknown kind) becomes a warning
 * naming its field, and the filing loads.
 *
 * Beyond the API's shape the line may carry `filing_kind`,
 * `lapse_date_source`, `filing_office`, `collateral`, each address's
 * `street2`, and each amendment's `amendment_lapse_date` and
 * `amendment_collateral`. `estimated_lien_lapse_date` is the office's lapse
 * date unless `lapse_date_source` is `estimated` (as in this service's own
 * exports). `estimated_lien_status`, `search_url`, `maps_url` and
 * `amendment_kind` are recomputed; unknown fields are ignored.
 */
import { z } from "zod";
import type { AmendmentRecord, FilingRecord, PartyRecord } from "../db/records.ts";
import { cutText } from "../domain/cut.ts";
import { FILING_KINDS, type FilingKind } from "../domain/kinds.ts";
import { NEVER_LAPSES } from "../domain/lifecycle.ts";
import { FILING_NUMBER, MAX_DESCRIPTION_LENGTH, MAX_FILING_NUMBER_LENGTH, MAX_NAME_LENGTH } from "../domain/limits.ts";
import { isStateCode } from "../domain/states.ts";
import { normalizeAddress, type RawAddress } from "./address.ts";
import {
  amendmentKind,
  canonicalIndustry,
  filingKindOf,
  inferFilingKind,
  normalizeCollateral,
  normalizeDate,
  normalizeName,
  normalizeText,
  normalizeTimestamp,
} from "./normalize.ts";

/** Filings may be dated at most this far ahead of the load (clock and time-zone slack). */
const FUTURE_SLACK_MS = 86_400_000;
/** Longest collateral text kept, in characters; longer text is cut (with a warning). */
const MAX_COLLATERAL_LENGTH = 20_000;
const MAX_PARTIES = 200;
const MAX_AMENDMENTS = 500;

/** A repair or gap in a loaded filing: its field and what was done. */
export interface FeedWarning {
  path: PropertyKey[];
  message: string;
}

export interface ParsedFiling {
  type: "filing";
  record: FilingRecord;
  warnings: FeedWarning[];
}

/** An amendment line: one amendment, with the parties it names (added to its filing). */
export interface ParsedAmendment {
  type: "amendment";
  state: string;
  filingNumber: string;
  amendment: AmendmentRecord;
  debtors: PartyRecord[];
  securedParties: PartyRecord[];
  warnings: FeedWarning[];
}

export type ParsedEntry = ParsedFiling | ParsedAmendment;

const str = () =>
  z.string({ error: (issue) => (issue.input == null ? "is required" : `must be a string, not ${typeof issue.input}`) });

const quoted = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);

/** A value checked (and possibly converted) by `convert`, which returns null for a bad one. */
function converted<T>(convert: (value: string) => T | null, problem: (value: string) => string) {
  return str().transform((value, ctx): T => {
    const out = convert(value);
    if (out === null) {
      ctx.addIssue({ code: "custom", message: problem(value) });
      return z.NEVER;
    }
    return out;
  });
}

const loose = z.unknown().optional();

/** A filing or amendment number: opaque, trimmed, without control characters. */
const filingNumber = str()
  .transform((v) => v.trim())
  .pipe(
    z
      .string()
      .min(1, "must not be empty")
      .max(MAX_FILING_NUMBER_LENGTH, `must be at most ${MAX_FILING_NUMBER_LENGTH} characters`)
      .refine((v) => v === "" || v.length > MAX_FILING_NUMBER_LENGTH || FILING_NUMBER.test(v), {
        message: "must not contain control characters",
      }),
  );

const timestamp = converted(
  normalizeTimestamp,
  (v) =>
    `${quoted(v)} is not a timestamp: use YYYY-MM-DDThh:mm:ssZ, YYYY-MM-DDThh:mm:ss, YYYY-MM-DD hh:mm:ss or YYYYMMDD hhmm (UTC)`,
);

const stateCode = converted(
  (v) => {
    const code = normalizeText(v).toUpperCase();
    return isStateCode(code) ? code : null;
  },
  (v) => `${quoted(v)} is not a US state or territory code`,
);

/** The jurisdiction: a state code, or `fallback` (the importer's --state) when the record names none. */
const jurisdiction = (fallback: string | undefined) =>
  fallback === undefined
    ? stateCode
    : z.preprocess((v) => (v == null || (typeof v === "string" && v.trim() === "") ? fallback : v), stateCode);

/** A failed parse's first message (a failure carries at least one). */
const firstMessage = (error: z.ZodError) => error.issues[0]?.message ?? "is invalid";

const describe = (v: unknown) => (Array.isArray(v) ? "an array" : v === null ? "null" : typeof v);

/** Warnings of one record, each with the path of its field. */
class Notes {
  readonly list: FeedWarning[] = [];

  add(path: PropertyKey[], message: string) {
    this.list.push({ path, message });
  }

  /** Optional text: trimmed, empty as null, cut at `max`; a non-string is noted and dropped (numbers read as text). */
  text(value: unknown, path: PropertyKey[], max: number, normalize: (v: string) => string = normalizeText) {
    if (value == null) return null;
    let text: string;
    if (typeof value === "string") text = value;
    else if (typeof value === "number" && Number.isFinite(value)) text = String(value);
    else {
      this.add(path, `must be a string, not ${describe(value)}: ignored`);
      return null;
    }
    const out = normalize(text);
    if (out === "") return null;
    if (out.length > max) {
      this.add(path, `longer than ${max.toLocaleString("en-US")} characters: cut to ${max.toLocaleString("en-US")}`);
      return cutText(out, max);
    }
    return out;
  }

  /** An optional date (YYYY-MM-DD or YYYYMMDD); a bad one is noted and dropped. */
  date(value: unknown, path: PropertyKey[]): string | null {
    const text = this.text(value, path, 40);
    if (text === null || /^0+$/.test(text.replace(/-/g, ""))) return null;
    const date = normalizeDate(text);
    if (date === null) this.add(path, `${quoted(text)} is not a date (YYYY-MM-DD or YYYYMMDD): ignored`);
    return date;
  }
}

const ADDRESS_LIMITS: Record<keyof RawAddress, number> = {
  street1: 200,
  street2: 200,
  city: 100,
  state: 100,
  zip_code: 40,
  country: 60,
};

function addressOf(value: unknown, path: PropertyKey[], notes: Notes) {
  if (value == null || typeof value !== "object" || Array.isArray(value)) {
    notes.add(path, value == null ? "not recorded" : `must be an address object, not ${describe(value)}: ignored`);
    return { street1: null, street2: null, city: null, state: null, zipCode: null, country: null };
  }
  const fields = value as Record<string, unknown>;
  const part = (f: keyof RawAddress) => notes.text(fields[f], [...path, f], ADDRESS_LIMITS[f]);
  const raw: RawAddress = {
    street1: part("street1"),
    street2: part("street2"),
    city: part("city"),
    state: part("state"),
    zip_code: part("zip_code"),
    country: part("country"),
  };
  return normalizeAddress(raw, (field, message) => notes.add([...path, field], message));
}

const rawParty = z.object(
  { name: loose, type: loose, category: loose, address: loose },
  { error: "must be a party object" },
);
type RawParty = z.infer<typeof rawParty>;

const partyList = (what: string) => z.array(rawParty, { error: `must be an array of ${what}` });

/** A party, or null (noted) when it has no name. */
function partyOf(raw: RawParty, path: PropertyKey[], role: "debtor" | "secured", notes: Notes): PartyRecord | null {
  let name = notes.text(raw.name, [...path, "name"], Number.POSITIVE_INFINITY, normalizeName);
  if (name === null || !/[\p{L}\p{N}]/u.test(name)) {
    notes.add([...path, "name"], "no name: party left out");
    return null;
  }
  if (name.length > MAX_NAME_LENGTH) {
    notes.add([...path, "name"], `longer than ${MAX_NAME_LENGTH} characters: cut to ${MAX_NAME_LENGTH}`);
    name = cutText(name, MAX_NAME_LENGTH);
  }
  const typeText = notes.text(raw.type, [...path, "type"], 100)?.toLowerCase() ?? null;
  let type: PartyRecord["type"] = "Organization";
  if (typeText === "individual") type = "Individual";
  else if (role === "debtor" && typeText !== "organization" && typeText !== "organisation") {
    notes.add(
      [...path, "type"],
      typeText === null ? "not recorded: taken as Organization" : `${quoted(typeText)}: taken as Organization`,
    );
  }
  const category = notes.text(raw.category, [...path, "category"], 100);
  const label =
    role === "debtor"
      ? // The API shows a debtor without an industry with its type as category.
        category === null || category.toLowerCase() === type.toLowerCase()
        ? null
        : canonicalIndustry(category)
      : // And a lender without a category as "Secured Party".
        category === null || category.toLowerCase() === "secured party"
        ? null
        : category;
  return { name, type, label, address: addressOf(raw.address, [...path, "address"], notes) };
}

/**
 * A list's usable parties. Past MAX_PARTIES the first are kept and the rest
 * said: the filing stays, found by those debtors and in every list, where
 * refused whole it would be found by none.
 */
function partiesOf(list: RawParty[] | undefined, path: PropertyKey[], role: "debtor" | "secured", notes: Notes) {
  const all = list ?? [];
  if (all.length > MAX_PARTIES) {
    const what = role === "debtor" ? "debtor parties" : "secured parties";
    notes.add(path, `${all.length} ${what}, more than ${MAX_PARTIES}: the first ${MAX_PARTIES} kept`);
  }
  return all.slice(0, MAX_PARTIES).flatMap((p, i) => partyOf(p, [...path, i], role, notes) ?? []);
}

const AMENDMENT_FIELDS = {
  amendment_financing_type_description: loose,
  amendment_lapse_date: loose,
  amendment_collateral: loose,
};

/** An amendment's description as given, for its kind before it is read whole. */
const descriptionOf = (a: Record<string, unknown>) =>
  typeof a.amendment_financing_type_description === "string" ? a.amendment_financing_type_description : "";

/** The optional parts of an amendment, however it came. */
function amendmentDetails(a: Record<string, unknown>, path: PropertyKey[], notes: Notes) {
  const description =
    notes.text(
      a.amendment_financing_type_description,
      [...path, "amendment_financing_type_description"],
      MAX_DESCRIPTION_LENGTH,
    ) ?? "";
  return {
    kind: amendmentKind(description),
    description,
    lapseDate: notes.date(a.amendment_lapse_date, [...path, "amendment_lapse_date"]),
    collateral: notes.text(
      a.amendment_collateral,
      [...path, "amendment_collateral"],
      MAX_COLLATERAL_LENGTH,
      normalizeCollateral,
    ),
  };
}

/**
 * An amendment listed on a filing: one without a usable number or date, or
 * dated in the future, is left out (noted), but for a termination without a
 * usable date, kept dated as its filing (noted); one dated before its filing
 * is kept (noted).
 */
function listedAmendment(
  value: unknown,
  path: PropertyKey[],
  filing: { filedAt: string; latest: number },
  notes: Notes,
): AmendmentRecord | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    notes.add(path, `must be an amendment object, not ${describe(value)}: left out`);
    return null;
  }
  const a = value as Record<string, unknown>;
  const number = filingNumber.safeParse(a.amendment_financing_number);
  if (!number.success) {
    notes.add([...path, "amendment_financing_number"], `${firstMessage(number.error)}: amendment left out`);
    return null;
  }
  const date = timestamp.safeParse(a.amendment_financing_date);
  if (!date.success) {
    const field = [...path, "amendment_financing_date"];
    // Left out, a termination would leave its lien served live: it is kept, dated as its filing (the earliest it can be).
    if (amendmentKind(descriptionOf(a)) === "termination") {
      notes.add(field, `${firstMessage(date.error)}: termination kept, dated by its filing (${filing.filedAt})`);
      return { number: number.data, filedAt: filing.filedAt, ...amendmentDetails(a, path, notes) };
    }
    notes.add(field, `${firstMessage(date.error)}: amendment left out`);
    return null;
  }
  if (Date.parse(date.data) > filing.latest) {
    notes.add([...path, "amendment_financing_date"], "is in the future: amendment left out");
    return null;
  }
  if (date.data < filing.filedAt) {
    notes.add([...path, "amendment_financing_date"], `is before the initial financing date ${filing.filedAt}: kept`);
  }
  return { number: number.data, filedAt: date.data, ...amendmentDetails(a, path, notes) };
}

export interface SchemaOptions {
  /** The load's time: filings dated after it (beyond a day's slack) are refused. */
  now?: Date;
  /** Jurisdiction of records that name none (the importer's --state). */
  defaultState?: string;
}

/** The schema of one feed filing. */
export function lienSchema({ now = new Date(), defaultState }: SchemaOptions = {}) {
  const latest = now.getTime() + FUTURE_SLACK_MS;
  return z
    .object(
      {
        initial_financing_number: filingNumber,
        initial_financing_date: timestamp,
        jurisdiction_state: jurisdiction(defaultState),
        filing_kind: loose,
        estimated_lien_lapse_date: loose,
        lapse_date_source: loose,
        filing_office: loose,
        collateral: loose,
        involved_parties: z.object(
          {
            debtor_parties: partyList("debtor parties"),
            secured_parties: partyList("secured parties").nullish(),
          },
          { error: "must be an object with debtor_parties and secured_parties" },
        ),
        amendments: loose,
      },
      { error: "must be a JSON object (one filing)" },
    )
    .transform((lien, ctx): ParsedFiling => {
      const notes = new Notes();
      const filedAt = lien.initial_financing_date;
      if (Date.parse(filedAt) > latest) {
        ctx.addIssue({ code: "custom", path: ["initial_financing_date"], message: "is in the future" });
        return z.NEVER;
      }
      const debtors = partiesOf(
        lien.involved_parties.debtor_parties,
        ["involved_parties", "debtor_parties"],
        "debtor",
        notes,
      );
      if (debtors.length === 0) {
        ctx.addIssue({
          code: "custom",
          path: ["involved_parties", "debtor_parties"],
          message: "must name at least one debtor with a name",
        });
        return z.NEVER;
      }
      const securedParties = partiesOf(
        lien.involved_parties.secured_parties ?? undefined,
        ["involved_parties", "secured_parties"],
        "secured",
        notes,
      );
      if (securedParties.length === 0) notes.add(["involved_parties", "secured_parties"], "none named: filing kept");

      const amendments = amendmentList(lien.amendments, { filedAt, latest }, notes);
      const source = notes.text(lien.lapse_date_source, ["lapse_date_source"], 20)?.toLowerCase() ?? null;
      if (source !== null && source !== "office" && source !== "estimated") {
        notes.add(["lapse_date_source"], `${quoted(source)} is neither office nor estimated: ignored`);
      }
      const givenLapse =
        lien.estimated_lien_lapse_date === undefined
          ? undefined
          : lien.estimated_lien_lapse_date === null
            ? null
            : notes.date(lien.estimated_lien_lapse_date, ["estimated_lien_lapse_date"]);
      const kindText = notes.text(lien.filing_kind, ["filing_kind"], 100);
      let kind: FilingKind | null = kindText === null ? null : filingKindOf(kindText);
      if (kindText !== null && kind === null) {
        notes.add(
          ["filing_kind"],
          `${quoted(kindText)} is not a filing kind (${FILING_KINDS.join(", ")}): read from the lapse date`,
        );
      }
      kind ??= inferFilingKind(givenLapse, { filedAt, debtors, amendments });
      return {
        type: "filing",
        record: {
          state: lien.jurisdiction_state,
          number: lien.initial_financing_number,
          filedAt,
          kind,
          officeLapseDate: officeLapseOf(givenLapse, source),
          collateral: notes.text(lien.collateral, ["collateral"], MAX_COLLATERAL_LENGTH, normalizeCollateral),
          filingOffice: notes.text(lien.filing_office, ["filing_office"], 200),
          debtors,
          securedParties,
          amendments,
        },
        warnings: notes.list,
      };
    });
}

/**
 * The office's lapse date of a filing line: none when the line marks its
 * date as estimated; NEVER_LAPSES for a null date the line says is the
 * office's (an export of a filing its office says does not lapse).
 */
function officeLapseOf(given: string | null | undefined, source: string | null): string | null {
  if (source === "estimated") return null;
  if (given === null && source === "office") return NEVER_LAPSES;
  return given ?? null;
}

/** A filing's amendments: usable ones, the last of any number given twice. */
function amendmentList(value: unknown, filing: { filedAt: string; latest: number }, notes: Notes): AmendmentRecord[] {
  if (value == null) return [];
  if (!Array.isArray(value)) {
    notes.add(["amendments"], `must be an array of amendments, not ${describe(value)}: ignored`);
    return [];
  }
  const byNumber = new Map<string, AmendmentRecord>();
  value.forEach((a, i) => {
    const amendment = listedAmendment(a, ["amendments", i], filing, notes);
    if (!amendment) return;
    if (byNumber.has(amendment.number)) {
      notes.add(
        ["amendments", i, "amendment_financing_number"],
        `${quoted(amendment.number)} appears twice: the last kept`,
      );
      byNumber.delete(amendment.number);
    }
    byNumber.set(amendment.number, amendment);
  });
  const usable = [...byNumber.values()];
  if (usable.length <= MAX_AMENDMENTS) return usable;
  // The newest decide what the filing is now (its termination, its last continuation): the oldest give way.
  notes.add(
    ["amendments"],
    `${usable.length} amendments, more than ${MAX_AMENDMENTS}: the newest ${MAX_AMENDMENTS} kept, the oldest ${usable.length - MAX_AMENDMENTS} left out`,
  );
  const newest = new Set([...usable].sort((a, b) => a.filedAt.localeCompare(b.filedAt)).slice(-MAX_AMENDMENTS));
  return usable.filter((a) => newest.has(a));
}

/** The schema of an amendment line: its number and date are required, as are its filing's. */
function amendmentLineSchema({ now = new Date(), defaultState }: SchemaOptions = {}) {
  const latest = now.getTime() + FUTURE_SLACK_MS;
  return z
    .object(
      {
        initial_financing_number: filingNumber,
        jurisdiction_state: jurisdiction(defaultState),
        amendment_financing_number: filingNumber,
        amendment_financing_date: timestamp,
        ...AMENDMENT_FIELDS,
        involved_parties: z
          .object(
            {
              debtor_parties: partyList("debtor parties").nullish(),
              secured_parties: partyList("secured parties").nullish(),
            },
            { error: "must be an object with debtor_parties and secured_parties" },
          )
          .nullish(),
      },
      { error: "must be a JSON object (one amendment)" },
    )
    .transform((line, ctx): ParsedAmendment => {
      if (Date.parse(line.amendment_financing_date) > latest) {
        ctx.addIssue({ code: "custom", path: ["amendment_financing_date"], message: "is in the future" });
        return z.NEVER;
      }
      const notes = new Notes();
      const parties = line.involved_parties;
      return {
        type: "amendment",
        state: line.jurisdiction_state,
        filingNumber: line.initial_financing_number,
        amendment: {
          number: line.amendment_financing_number,
          filedAt: line.amendment_financing_date,
          ...amendmentDetails(line, [], notes),
        },
        debtors: partiesOf(
          parties?.debtor_parties ?? undefined,
          ["involved_parties", "debtor_parties"],
          "debtor",
          notes,
        ),
        securedParties: partiesOf(
          parties?.secured_parties ?? undefined,
          ["involved_parties", "secured_parties"],
          "secured",
          notes,
        ),
        warnings: notes.list,
      };
    });
}

/** Whether a record is an amendment line rather than a filing. */
function isAmendmentLine(value: unknown): boolean {
  return value !== null && typeof value === "object" && Object.hasOwn(value, "amendment_financing_number");
}

/** Both schemas, and a parse that picks the right one. */
export function entrySchema(options: SchemaOptions = {}) {
  const filing = lienSchema(options);
  const amendment = amendmentLineSchema(options);
  return {
    safeParse(value: unknown) {
      return isAmendmentLine(value) ? amendment.safeParse(value) : filing.safeParse(value);
    },
  };
}

/** `["involved_parties", "debtor_parties", 0, "name"]` as `involved_parties.debtor_parties[0].name`. */
export function pathLabel(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) out += typeof key === "number" ? `[${key}]` : `${out ? "." : ""}${String(key)}`;
  return out || "filing";
}

/** A zod error as one readable line: each problem as `field: what is wrong`. */
export function describeIssues(
  error: z.ZodError,
  label: (path: readonly PropertyKey[]) => string = pathLabel,
  max = 5,
): string {
  const parts = error.issues.slice(0, max).map((i) => `${label(i.path)}: ${i.message}`);
  if (error.issues.length > max) parts.push(`and ${error.issues.length - max} more`);
  return parts.join("; ");
}

/** Warnings as one readable line, like describeIssues. */
export function describeWarnings(
  warnings: readonly FeedWarning[],
  label: (path: readonly PropertyKey[]) => string = pathLabel,
  max = 20,
): string {
  const parts = warnings.slice(0, max).map((w) => `${label(w.path)}: ${w.message}`);
  if (warnings.length > max) parts.push(`and ${warnings.length - max} more`);
  return parts.join("; ");
}
