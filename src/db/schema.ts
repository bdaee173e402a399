/**
 * The database schema: the one definition of every table and index.
 * Migrations in /migrations are generated from this file by drizzle-kit
 * (`npm run db:generate`) and applied with `wrangler d1 migrations apply`.
 *
 * Layout, and why:
 * - `filings` holds one row per initial financing statement, identified by
 *   jurisdiction state + filing number (numbers are only unique per state).
 *   Lapse date and termination date are stored, maintained when data is
 *   loaded, so no request recomputes them from amendments.
 * - Debtors and secured parties live in separate tables: they carry different
 *   match keys and labels, and each gets indexes shaped for its own searches.
 *   Both copy the filing's state and filing time (immutable facts of the
 *   filing), so an index on a party table can filter by state and recency
 *   and return matches in date order without visiting `filings` first.
 * - Names are stored with their match keys (see src/domain/names.ts), and
 *   debtor addresses with a five-digit ZIP and a dedup key, so requests
 *   compare stored columns through indexes instead of normalizing rows.
 * - Size is designed (bench/STORAGE.md, `npm run db:size`): timestamps,
 *   kinds and types (src/domain/kinds.ts) are stored as integers
 *   (src/db/encodings.ts); tables keyed by a composite primary key are
 *   WITHOUT ROWID, so the key is the
 *   table's own B-tree rather than a second copy beside it. Drizzle cannot
 *   declare WITHOUT ROWID: migration 0010 creates those tables (listed in
 *   WITHOUT_ROWID below, checked by test/node/schema-layout.test.ts), and a
 *   migration drizzle-kit generates that rebuilds one of them must keep it.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { INDUSTRIES } from "../domain/industries.ts";
import {
  AMENDMENT_KINDS,
  CHANGE_TYPES,
  CHANGED_FIELDS,
  FILING_KINDS,
  LAPSE_SOURCES,
  PARTY_TYPES,
} from "../domain/kinds.ts";
import { addressKeySet, day, enumCode, instant, labelCode, setMask } from "./encodings.ts";

/** Tables whose B-tree is their primary key (see the layout notes above). */
export const WITHOUT_ROWID = [
  "debtor_parties",
  "secured_parties",
  "amendments",
  "facet_counts",
  "facet_tallies",
  "stale_tallies",
  "lapse_set_changes",
  "debtor_addresses",
  "debtor_address_sets",
  "debtor_links",
  "debtor_link_sets",
  "load_keys",
  "held_copies",
  "debtor_reports",
  "lender_industry_lapses",
] as const;

const partyType = enumCode(PARTY_TYPES);

/**
 * Address columns of both party tables. Every part is as the office
 * recorded it, null when it recorded none (foreign regions and postal codes
 * are kept as text).
 */
const addressColumns = {
  street1: text(),
  street2: text(),
  city: text(),
  /** A US state code, or a foreign region as written. */
  state: text(),
  /** US: five digits or ZIP+4; elsewhere the postal code as written. */
  zip: text(),
  /** ISO 3166-1 alpha-2 (as written when it names no known country). */
  country: text(),
};

/** What debtor addresses add: the postal-code search key and the dedup key (secured parties need neither). */
const debtorAddressKeys = {
  /** First five digits of a valid US ZIP, the postal-code search key; null otherwise. */
  zip5: text(),
  /**
   * Hash of the normalized street, street2, city, state and ZIP5 (or postal
   * code and country): equal keys are one address (records.ts, addressText).
   */
  addressKey: integer().notNull(),
};

/**
 * Immutable facts of the filing copied onto each party row, so a party index
 * can filter by state and recency and yield filings in list order.
 */
const filingCopies = {
  filingState: text().notNull(),
  filedAt: instant().notNull(),
  filingNumber: text().notNull(),
};

/**
 * The filing's lapse date while it is live, copied onto each party row so a
 * party index can list a lender's or an industry's filings by when they
 * lapse (GET /filings/lapsing). Null once the filing is terminated, or for
 * one that never lapses. Not immutable like filingCopies: a continuation or
 * termination changes it, and the loader rewrites a changed filing's party
 * rows whole, so the copies follow.
 */
const lapseCopy = { lapsesOn: day() };

/**
 * That a secured party row's debtor_industries holds three industries or
 * more: its set with its lowest bit taken off twice is not empty. The
 * partial index's condition, which a query must state in the same words to
 * be served by it.
 */
export const SEVERAL_INDUSTRIES = sql.raw(
  "((debtor_industries & (debtor_industries - 1)) & ((debtor_industries & (debtor_industries - 1)) - 1)) <> 0",
);

export const filings = sqliteTable(
  "filings",
  {
    id: integer().primaryKey(),
    state: text().notNull(),
    number: text().notNull(),
    /** ISO 8601 UTC with Z as read; stored as seconds, in time order. */
    filedAt: instant().notNull(),
    kind: enumCode(FILING_KINDS)().notNull(),
    /** YYYY-MM-DD as served; null when the filing does not lapse (transmitting utility). */
    lapseDate: day(),
    /** Whether `lapseDate` is the office's date as given, or computed (lifecycle.ts). */
    lapseSource: enumCode(LAPSE_SOURCES)().notNull(),
    /** The lapse date the office gave with the filing record, if any. */
    officeLapseDate: day(),
    /** The collateral description as filed. */
    collateral: text(),
    /** The filing office as the feed names it. */
    filingOffice: text(),
    /** Filing time of the terminating amendment, when there is one. */
    terminatedAt: instant(),
    /**
     * The filing's secured parties as published (lenders rows), in order:
     * a JSON array of their ids, so a page reads each party's one row
     * (src/queries/filings.ts, partiesOf). secured_parties holds what
     * lender searches need of each.
     */
    lenders: text().notNull().default("[]"),
    /**
     * What a list and the change feed show of the filing's debtors, secured
     * parties and amendments, as one JSON text (src/db/listed.ts): a page
     * reads this row instead of one row a party. Held only while the change
     * feed keeps a change of the filing, or while it is live and lapses
     * within LAPSING_DAYS (src/db/listed.ts); null otherwise (and on rows stored
     * before migration 0025), when a page makes it up from the tables.
     */
    listed: text(),
    /**
     * What the lien report counts of the filing, derived from its text when
     * it is loaded (records.ts, traitsOf): bit i for each collateral category
     * of COLLATERAL_CATEGORIES its current collateral names
     * (src/domain/collateral.ts), and FUNDING_TRAIT when a secured party is a
     * funding company (src/domain/securedPartyKinds.ts). Null on rows loaded
     * before migration 0023 until `npm run db:rekey` fills it.
     */
    traits: integer(),
    /**
     * How many times a load has replaced the filing's rows. A load replaces a
     * filing only if it still has the revision the load read (src/db/load.ts),
     * so two loads at once cannot both replace the same version.
     */
    revision: integer().notNull().default(0),
  },
  (t) => [
    // A filing is its state and number; lookup by number alone, across
    // states, is this index's first column (GET /filings).
    uniqueIndex("filings_number_state").on(t.number, t.state),
    // Recent filings in a state, newest first (GET /filings/recent-by-state).
    index("filings_state_filed").on(t.state, t.filedAt, t.number),
    // Recently terminated in a state, newest first (GET /filings/recently-terminated).
    index("filings_state_terminated").on(t.state, t.terminatedAt, t.number).where(sql`terminated_at is not null`),
    // Live filings in a state by lapse date, soonest first (GET /filings/lapsing), and
    // the lapses the daily job records (src/changes/lapses.ts).
    index("filings_state_lapsing")
      .on(t.state, t.lapseDate, t.number)
      .where(sql`terminated_at is null and lapse_date is not null`),
  ],
);

/**
 * A filing's debtors, keyed (WITHOUT ROWID) by filing and position: a
 * page's debtors are one range of the table itself, and each index entry
 * below carries the key's two integers instead of a row id.
 */
export const debtorParties = sqliteTable(
  "debtor_parties",
  {
    filingId: integer()
      .notNull()
      .references(() => filings.id, { onDelete: "cascade" }),
    /** Order of the party on the filing. */
    position: integer().notNull(),
    type: partyType().notNull(),
    name: text().notNull(),
    /** UCC search-logic key: see debtorNameKey(). */
    nameKey: text().notNull(),
    /** Industry label; one of INDUSTRIES (stored as a code) or another label (as text). */
    industry: labelCode(INDUSTRIES)(),
    ...addressColumns,
    ...debtorAddressKeys,
    ...filingCopies,
    ...lapseCopy,
  },
  (t) => [
    primaryKey({ columns: [t.filingId, t.position] }),
    // Each index below ends in the list order (filed_at, number, filing id),
    // so a page is read newest first straight off the index and stops at
    // the page's end; several of them merge in order (src/queries/filings.ts).
    // A debtor's filings in a state (GET /debtors/search); refreshing its aggregates.
    index("debtor_parties_name").on(t.nameKey, t.filingState, t.filedAt, t.filingNumber, t.filingId),
    // Postal-code search, with or without industries (GET /filings/recent-by-postal-code).
    index("debtor_parties_zip").on(t.zip5, t.filedAt, t.filingNumber, t.filingId).where(sql`zip5 is not null`),
    // Industry filters: `industry = ?` implies not null, so debtors without
    // an industry (a fifth of them) stay out of these two.
    index("debtor_parties_zip_industry")
      .on(t.zip5, t.industry, t.filedAt, t.filingNumber, t.filingId)
      .where(sql`industry is not null`),
    // A state's filings by debtor industry (GET /filings/recent-by-state with industries).
    index("debtor_parties_state_industry")
      .on(t.filingState, t.industry, t.filedAt, t.filingNumber, t.filingId)
      .where(sql`industry is not null`),
    // A state's live filings by debtor industry and lapse date (GET /filings/lapsing with industries).
    index("debtor_parties_lapsing")
      .on(t.filingState, t.industry, t.lapsesOn, t.filingNumber, t.filingId)
      .where(sql`lapses_on is not null and industry is not null`),
  ],
);

/**
 * Each whole-word lender name (securedNameWords) once. Lender searches find
 * the names under a query in a state's "l" facets and read each name's
 * filings by its id: an index entry carries the id, not the words.
 */
export const lenderNames = sqliteTable(
  "lender_names",
  {
    id: integer().primaryKey(),
    words: text().notNull(),
  },
  (t) => [uniqueIndex("lender_names_words").on(t.words)],
);

/**
 * Each secured party as an office published it (its kind, name, category
 * and address), once, however many filings name it: a lender such as a
 * bank is on hundreds of thousands. A filing lists its own (filings.lenders).
 * Loads find a lender by its name and street, then compare every detail,
 * so two lenders never share a row. Rows stay once written, as do
 * lender_names': a lender no filing lists any longer (its filing replaced)
 * is never served, and finding one would read every filing's list.
 */
export const lenders = sqliteTable(
  "lenders",
  {
    id: integer().primaryKey(),
    /** The lender's own kind as filed (the API lists every lender as "Secured Party"; exports keep this). */
    type: partyType().notNull(),
    name: text().notNull(),
    /** Lender kind, e.g. Bank, Equipment Finance. */
    category: text(),
    ...addressColumns,
  },
  (t) => [index("lenders_name").on(t.name, t.street1)],
);

/**
 * What lender searches need of a filing's secured parties, keyed (WITHOUT
 * ROWID) by filing and position: the lender's name (by id), the filing's
 * state, time and number, its lapse date while live, and its debtor kinds.
 * The party's published details are its lenders row (filings.lenders).
 */
export const securedParties = sqliteTable(
  "secured_parties",
  {
    filingId: integer()
      .notNull()
      .references(() => filings.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    /** The lender_names row of the party's whole-word name. */
    nameId: integer().notNull(),
    ...filingCopies,
    ...lapseCopy,
    /** The kinds of debtor on the filing ("Individual", "Organization", or both joined by "|"). */
    debtorTypes: setMask(PARTY_TYPES)().notNull(),
    /**
     * The industries of the filing's debtors (of INDUSTRIES, a bit each, in
     * its order; other labels left out), for a lapse list by lender and
     * industry: lender_industry_lapses and secured_parties_lapsing_several
     * are kept from it, and a list by four industries or more checks an
     * entry on it (D1 counts no row for the table row an index entry leads
     * to, where it counts each debtor row sought: src/queries/lapsing.ts).
     * Null on rows loaded before migration 0031 until `npm run db:rekey`
     * fills it; the list then seeks the filing's debtors, and 0035's
     * triggers read them.
     */
    debtorIndustries: setMask(INDUSTRIES)(),
  },
  (t) => [
    primaryKey({ columns: [t.filingId, t.position] }),
    // Lender-name search within a state, by borrower type, newest first
    // (GET /secureds/recent-by-secured-party): one ordered range per lender
    // name and debtor-type set.
    index("secured_parties_name").on(t.filingState, t.nameId, t.debtorTypes, t.filedAt, t.filingNumber, t.filingId),
    // A lender's live filings in a state by lapse date (GET /filings/lapsing with secured_party).
    index("secured_parties_lapsing")
      .on(t.filingState, t.nameId, t.lapsesOn, t.filingNumber, t.filingId)
      .where(sql`lapses_on is not null`),
    // The same, of filings whose debtors hold three industries or more (rare): what a lender's
    // lapse count by three industries or more reads beyond its months' terms (src/queries/lapsing.ts).
    index("secured_parties_lapsing_several")
      .on(t.filingState, t.nameId, t.lapsesOn)
      .where(sql`lapses_on is not null and ${SEVERAL_INDUSTRIES}`),
  ],
);

/**
 * A lender's live filings by each industry their debtors hold, by lapse
 * date: a row for each secured party row with a lapse date (secured_parties)
 * and each industry of its debtor_industries (or of its filing's debtors,
 * where db:rekey has not filled that yet), its industry as debtor_parties
 * codes it. A lapse list by lender and an industry reads a row a filing it
 * shows, where checking each of the lender's entries read the lender's
 * filings of every industry (src/queries/lapsing.ts). SQLite keeps it, as
 * it keeps an index: triggers on secured_parties (migration 0035) write it
 * with each row inserted, changed or deleted, and no load writes it itself.
 */
export const lenderIndustryLapses = sqliteTable(
  "lender_industry_lapses",
  {
    filingState: text().notNull(),
    nameId: integer().notNull(),
    industry: integer().notNull(),
    lapsesOn: day().notNull(),
    filingNumber: text().notNull(),
    filingId: integer().notNull(),
    position: integer().notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.filingState, t.nameId, t.industry, t.lapsesOn, t.filingNumber, t.filingId, t.position] }),
  ],
);

/** A filing's amendments, keyed (WITHOUT ROWID) by filing and position (the order they were read in). */
export const amendments = sqliteTable(
  "amendments",
  {
    filingId: integer()
      .notNull()
      .references(() => filings.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    number: text().notNull(),
    filedAt: instant().notNull(),
    kind: enumCode(AMENDMENT_KINDS)().notNull(),
    /** The filing office's description of the amendment type. */
    description: text().notNull(),
    /** The lapse date the office recorded with this amendment, if any. */
    lapseDate: day(),
    /** Collateral text filed with this amendment, if any. */
    collateral: text(),
  },
  (t) => [primaryKey({ columns: [t.filingId, t.position] })],
);

/**
 * Amendments read before their filing (a bulk file may carry an amendment
 * whose initial record comes in a later file): kept here, with the parties
 * they name (JSON), and applied when the filing is loaded.
 */
export const pendingAmendments = sqliteTable(
  "pending_amendments",
  {
    id: integer().primaryKey(),
    state: text().notNull(),
    filingNumber: text().notNull(),
    number: text().notNull(),
    filedAt: text().notNull(),
    kind: text({ enum: AMENDMENT_KINDS }).notNull(),
    description: text().notNull(),
    lapseDate: text(),
    collateral: text(),
    /** `{"debtors": [...], "securedParties": [...]}` (PartyRecord), or null. */
    parties: text(),
    /** Where it was read: `FILE:LINE`. */
    source: text().notNull(),
  },
  (t) => [uniqueIndex("pending_amendments_filing").on(t.state, t.filingNumber, t.number)],
);

/**
 * One row per debtor (match key) per state: the names similar-name search
 * ranks, with how often and how recently each was filed. Maintained by the
 * loader as filings arrive.
 */
export const debtorNames = sqliteTable(
  "debtor_names",
  {
    id: integer().primaryKey(),
    nameKey: text().notNull(),
    state: text().notNull(),
    /** The name as most recently filed. */
    name: text().notNull(),
    lastFiledAt: instant().notNull(),
    filingCount: integer().notNull(),
  },
  (t) => [
    uniqueIndex("debtor_names_key_state").on(t.nameKey, t.state),
    // Key-prefix probes of similar-name search within one state.
    index("debtor_names_state_key").on(t.state, t.nameKey),
  ],
);

/**
 * Similar-name search's index: each debtor name (debtor_names row) under
 * each of its sound keys (see src/domain/soundKeys.ts), in its state. The
 * key, the state and the name's id are packed into the row id (layout in
 * src/db/soundKeys.ts), so the table is its own index: one B-tree of bare
 * integers, and a key's names in a state are one range of it. Written by
 * the loader after debtor_names (whose ids stay put when a debtor is
 * refreshed); rows of a debtor that disappears stay behind and match
 * nothing.
 */
export const debtorSoundKeys = sqliteTable("debtor_sound_keys", { id: integer().primaryKey() });

/**
 * What the counted lists count. A facet is one way a filing is listed:
 * - "s": its state (place), by its debtors' industries: its exact set
 *   (name "e" and the set's size) and each set of one or two of them
 *   (name "i1", "i2"), as letters (records.ts, industryFacets), so a count
 *   reads a few facets per industry asked for, never every industry set of
 *   a state (src/queries/filings.ts, industryCount);
 * - "z": each debtor ZIP5 (place), by the industries of its debtors there,
 *   as "s" by a state's (the same exact sets, "i1" and "i2");
 * - "l": its state, each lender's whole-word name (name) and the set of its
 *   debtor types;
 * - "t": its state, dated by termination rather than filing;
 * - "o": its state, a whole-word prefix two or more of its lender names
 *   share (name) and its debtor-type set, weighted by how many share it less
 *   one: a lender search sums the "l" facets under its prefix and takes
 *   this away, so a filing with two matching lenders counts once;
 * - "x": its state, dated by lapse date rather than filing date, for live
 *   filings only (not terminated); one that never lapses is dated
 *   "9999-12-31". Every day is kept (none is old): a lapse window is any
 *   range of days, and "live on day D" is the total less the tally through D.
 *   Each of its rows also holds its tally by exact industry set of one or
 *   two (facet_tallies.sets), from which a lapse list filtered by any
 *   number of industries is counted (src/queries/lapsing.ts).
 * - "y": as "x", for live filings that lapse whose debtors are in three
 *   industries or more: their exact set (name "e" and its size). Rare; a
 *   smaller set is counted in the "x" facet's rows (facet_tallies.sets).
 *   Before migration 0028 it also held every filing's sets of one or two
 *   ("i1", "i2"), as the "s" facets do.
 * - "k": its state and each lender's whole-word name (facet ""), dated by
 *   lapse, for live filings that lapse; and, as "o" does, each prefix two
 *   or more of its lender names share (facet "+", SHARED_PREFIX in
 *   records.ts), weighted by how many share it less one. It keeps a row a
 *   month ("m" and the month), each its own group, with its days' running
 *   totals in `sets`, so a change writes one row a name (src/db/tallies.ts);
 *   a lapse list by lender is counted from them (src/queries/lapsing.ts,
 *   since 0030); each month row also keeps the same under each industry
 *   and pair of industries its filings' debtors hold
 *   (facet_tallies.industries, since 0033), whence a list by lender and
 *   one or two industries.
 * Sets of "l" are sorted and joined with "|", so every filing has
 * exactly one facet per lender name, and a filter ("any of these debtor
 * types") is a sum over the facets it matches: exact, with no double
 * counting. Under "s" and "z" each filing is also counted once in the facet
 * "*" (name "", ANY_FACET in
 * records.ts), so a list without an industry filter is counted from one
 * facet rather than from every industry set of the place (hundreds in a
 * large state).
 *
 * `facet_counts` holds each facet's all-time total, of which `old` in the
 * bucket of days older than the recency window at load time; `facet_tallies`
 * its filings by each later day, each row with a tally counted forward from
 * the first row of its group (src/db/tallies.ts): a facet's days, or, for a
 * facet dated by lapse ("x", "y"), a month's days and the facet's months
 * (a row per month); a lender's by lapse ("k") each row alone. So a load
 * adds a filing to its day's row (and month's) and the few later rows of
 * their groups, and a change to an old filing to its facet_counts row
 * alone. "Filed since day D" is the total less `old` less `aged` (the days
 * before D that left the window since they were loaded, which the daily
 * job moves there: tally_marks), one row per facet, or less the tally of
 * the last day before D (two), whatever the data; a lapse window's count
 * four rows (src/queries/tallies.ts). What a change
 * leaves behind in later rows is marked in `stale_tallies`, which the
 * load's refresh recomputes.
 * Kept by the loaders (src/db/load.ts, src/db/tallies.ts).
 */
const facetKey = {
  scope: text({ enum: ["s", "z", "l", "t", "o", "x", "y", "k"] }).notNull(),
  place: text().notNull(),
  name: text().notNull(),
  facet: text().notNull(),
};

export const facetCounts = sqliteTable(
  "facet_counts",
  {
    ...facetKey,
    filings: integer().notNull(),
    /** Of `filings`, those counted in the bucket of days before the recency window ("0000-00-00"). */
    old: integer().notNull().default(0),
    /**
     * Of `filings`, those on the facet's days (facet_tallies) before the
     * recency window of tally_marks.window_from: days that left the window
     * since they were loaded. A facet dated by filing or termination only; 0
     * for one dated by lapse.
     */
    aged: integer().notNull().default(0),
    /**
     * A lender facet's ("l") name as its lender_names id, so that a lender
     * search walks each name's index range from its facet without looking
     * the name up (src/queries/lenders.ts); null for every other facet.
     */
    ref: integer(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.place, t.name, t.facet] })],
);

export const facetTallies = sqliteTable(
  "facet_tallies",
  {
    ...facetKey,
    /**
     * YYYY-MM-DD (UTC): a day of the recency window at load time or later,
     * or a lapse day; for a facet dated by lapse, also "m" and a month
     * (YYYY-MM), the month's own row, which alone a lender's ("k") has.
     */
    day: text().notNull(),
    filings: integer().notNull(),
    /**
     * Filings of this row and every earlier one of its group: a facet's days
     * (its old bucket left out), or, dated by lapse, a month's days or a
     * facet's months (src/db/tallies.ts); a lender's by lapse ("k"), whose
     * months are each their own group, its month's filings.
     */
    through: integer().notNull(),
    /**
     * On a lender's month by lapse ("k", since migration 0030): its
     * filings' running totals by day of the month, kept from its first day
     * with a filing to the day before its last (src/db/tallies.ts,
     * keptRunning), so a window's count reads a row a month and takes its
     * ends' days from them (src/queries/lapsing.ts, lenderBetween).
     * On the "x" facet's rows (null on every other): the same tally
     * of its filings that lapse, by the exact set of their debtors'
     * industries when it holds one or two (a JSON object of set letters,
     * records.ts industryLetter, to filings: {"a":12,"ak":3}). A lapse
     * list's count by any number of industries reads these four rows
     * (src/queries/lapsing.ts), where the "y" facets of one and two
     * industries took four rows per industry and pair asked for (deleted
     * by migration 0028). A load adds what it changes to
     * lapse_set_changes and the refresh adds those to every row on or after
     * each change's day in its group; after a bulk load it builds them from
     * the filings instead (src/db/tallies.ts).
     */
    sets: text(),
    /**
     * On a lender's month by lapse ("k", since migrations 0032 and 0033):
     * the same of its filings whose debtors hold each industry, and each
     * pair of industries, that any of them hold, as a JSON object of their letters
     * (records.ts: the filing's "i1" and "i2" industry facets) to their filings and running totals by
     * day, `[filings, first, ...running]` as `sets` keeps them
     * (src/db/tallies.ts, keptTerm): {"k":[2,4,1]}. A lapse list by lender
     * and industries is counted from these, by inclusion-exclusion (and by
     * three or more with secured_parties_lapsing_several:
     * src/queries/lapsing.ts); null when none is held.
     */
    industries: text(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.place, t.name, t.facet, t.day] })],
);

/**
 * What a load changed of the "x" facet's sets (facet_tallies.sets), by
 * state (place), lapse day and exact industry set: the refresh adds each
 * to the rows of its day's group from that day on, then empties the table.
 */
export const lapseSetChanges = sqliteTable(
  "lapse_set_changes",
  { place: text().notNull(), day: text().notNull(), letters: text().notNull(), filings: integer().notNull() },
  (t) => [primaryKey({ columns: [t.place, t.day, t.letters] })],
);

/**
 * The day the recency window started when the daily job last moved the
 * facets' days that left it into facet_counts.aged (src/changes/daily.ts),
 * one row (id 1). A count since that day reads a facet's total less its
 * old and aged filings, one row; on another day (before the day's job has
 * run) it reads the facet's tally before the day instead, one more.
 */
export const tallyMarks = sqliteTable("tally_marks", {
  id: integer().primaryKey(),
  /** YYYY-MM-DD. */
  windowFrom: text().notNull(),
});

/**
 * Groups of facet_tallies rows whose tallies a load left behind
 * (src/db/tallies.ts): from `day` on, each later row's tally of the group
 * `part` (its first key: "" a whole facet, "2031-11" a month's days, "m" a
 * facet's months) lacks what the load added on or before it. The refresh
 * recomputes them from there and empties the table.
 */
export const staleTallies = sqliteTable(
  "stale_tallies",
  { ...facetKey, part: text().notNull(), day: text().notNull() },
  (t) => [primaryKey({ columns: [t.scope, t.place, t.name, t.facet, t.part] })],
);

/**
 * One row per debtor (match key) and distinct address (street2 included: a
 * suite is a different place, and is shown), with when it was last filed
 * there (GET /debtors/addresses). Rebuilt for the debtors a load touches.
 * Keyed by debtor, then time: each debtor's addresses are one range of the
 * table in list order, so a page reads each found debtor's newest entries
 * and stops (src/queries/debtors.ts), however many addresses it has. The
 * refresh groups by (name key, address key), so each address is one row.
 */
export const debtorAddresses = sqliteTable(
  "debtor_addresses",
  {
    nameKey: text().notNull(),
    addressKey: integer().notNull(),
    lastUsed: instant().notNull(),
    street1: text(),
    street2: text(),
    city: text(),
    state: text(),
    zip: text(),
  },
  (t) => [primaryKey({ columns: [t.nameKey, t.lastUsed, t.addressKey] })],
);

/**
 * One row per debtor (match key) with the set of its address keys (every
 * debtor_addresses row of the key), rebuilt with them. A request reads the
 * found debtors' rows to count their distinct addresses exactly, in the
 * Worker, across debtors and shards (an address filed under two found names,
 * or in states of two shards, counts once), reading one row per debtor
 * however many addresses it has.
 */
export const debtorAddressSets = sqliteTable(
  "debtor_address_sets",
  { nameKey: text().notNull(), addressKeys: addressKeySet().notNull() },
  (t) => [primaryKey({ columns: [t.nameKey] })],
);

/**
 * One row per debtor, filing state and co-debtor (name key and address)
 * named with it on a filing, with the latest such filing
 * (GET /debtors/associated). Rebuilt for the debtors a load touches; read
 * by key (a debtor search counting spouses once, src/queries/filings.ts;
 * the lien report), and through debtor_links_recent in list order: each
 * debtor's co-debtors latest first, so a page reads each found debtor's
 * newest entries and stops, however many it has (src/queries/debtors.ts).
 */
export const debtorLinks = sqliteTable(
  "debtor_links",
  {
    nameKey: text().notNull(),
    filingState: text().notNull(),
    otherKey: text().notNull(),
    otherAddressKey: integer().notNull(),
    lastSeen: instant().notNull(),
    name: text().notNull(),
    street1: text(),
    street2: text(),
    city: text(),
    state: text(),
    zip: text(),
  },
  (t) => [
    primaryKey({ columns: [t.nameKey, t.filingState, t.otherKey, t.otherAddressKey] }),
    // Its entries carry the key's other columns: a debtor's links in list order (last seen, co-debtor, address).
    index("debtor_links_recent").on(t.nameKey, t.filingState, t.lastSeen),
  ],
);

/**
 * One row per debtor and filing state with co-debtors: how many distinct
 * co-debtors (debtor_links rows) it has there, and their keys (co-debtor
 * name key and address key, joined with "|") as a JSON array, rebuilt with
 * the links. GET /debtors/associated counts the found debtors' co-debtors
 * from these rows in the Worker, exactly (one named with two found debtors,
 * or in both parts of a split state, counts once), reading one row per
 * debtor however many co-debtors it has. `entries` is null past
 * LINK_SET_MAX (src/db/load.ts): such a debtor's co-debtors are counted
 * from its links.
 */
export const debtorLinkSets = sqliteTable(
  "debtor_link_sets",
  {
    nameKey: text().notNull(),
    filingState: text().notNull(),
    links: integer().notNull(),
    entries: text(),
  },
  (t) => [primaryKey({ columns: [t.nameKey, t.filingState] })],
);

/**
 * The lien report's digest of one debtor (match key) in one state
 * (src/db/reports.ts): what its summary counts, over the debtor's filings
 * there, as of the day `as_of`. Counts of filings live on that day (not
 * terminated, lapse date after it) hold until the soonest of their lapse
 * dates, `lapses_next`; on or after it the report counts the debtor's
 * filings afresh, and the daily job (src/changes/daily.ts) rebuilds the
 * digests of debtors whose filings lapsed. Rebuilt with the other per-debtor
 * aggregates for the debtors a load touches, so a report reads one row per
 * debtor found, however many filings it has (docs/api/lien-report.md).
 */
export const debtorReports = sqliteTable(
  "debtor_reports",
  {
    nameKey: text().notNull(),
    state: text().notNull(),
    /** The day the live counts are of, as days since 1970-01-01. */
    asOf: integer().notNull(),
    filings: integer().notNull(),
    terminated: integer().notNull(),
    /** Filings live on `as_of`. */
    active: integer().notNull(),
    /** Live filings by kind: a JSON array of counts in FILING_KINDS order, trailing zeros left off; null when none is live. */
    kinds: text(),
    /** Live filings by collateral category: a JSON array in COLLATERAL_CATEGORIES order, likewise; null when none is live. */
    categories: text(),
    /** Each secured party's name on live filings, with their number: JSON `[[name, filings], ...]`; null when none. */
    lenders: text(),
    /** Filings by filing day from 180 days before `as_of`: JSON `[[day, filings, of funding companies], ...]`; null when none. */
    recent: text(),
    /** The oldest live filing by filing time (then id). */
    firstActive: integer(),
    /** The soonest lapse date (days) of the live filings: the counts hold while the day is before it. */
    lapsesNext: integer(),
    /**
     * The filing time (seconds) of `firstActive`: a report orders its found
     * debtors' oldest live filings by it without reading them. Null on a
     * digest built before migration 0036, which a report reads the old way.
     */
    firstActiveAt: integer(),
  },
  (t) => [primaryKey({ columns: [t.nameKey, t.state] })],
);

/** Debtors whose aggregates (names, addresses, links) a load must rebuild. */
export const debtorsToRefresh = sqliteTable("debtors_to_refresh", { nameKey: text().primaryKey() });

/**
 * A bulk load (scripts/bulk/) that has not finished: at most one row. It is
 * written in the same transaction that drops the secondary indexes, so a
 * database without them always says so, whatever stopped the load (a kill,
 * a crash, a power cut). `writing`: rows are being written without indexes
 * or aggregates; the next command that opens the database builds them
 * (`indexes` holds their definitions). `incomplete`: indexes and aggregates
 * are built, but the load's files were not read to their end: the
 * database is a backfill still under way, so loads record no per-filing
 * changes until an import runs to its end and deletes the row.
 */
export const bulkLoad = sqliteTable("bulk_load", {
  id: integer().primaryKey(),
  stage: text({ enum: ["writing", "incomplete"] }).notNull(),
  /** JSON `[{name, sql}]`: the secondary indexes dropped, as sqlite_master had them. */
  indexes: text().notNull(),
  /** What started it (`seed ...`, `import FILE ...`), and when (ISO 8601 UTC). */
  source: text().notNull(),
  startedAt: text().notNull(),
  /** `HOST:PID` of the process writing it: a load another live process writes is not an interrupted one. */
  owner: text(),
});

/**
 * The change feed (GET /filings/changes, docs/monitoring.md): one row per
 * filing and kind of change, written by the load that makes the change, in
 * the same D1 batch (one transaction) as the rows it describes, or by the
 * daily lapse job. A row refers to what changed (the filing by id, the
 * amendment by number); the filing itself is read when the change is
 * served, as it stands then.
 *
 * `seq` is AUTOINCREMENT: never reused, even after the oldest rows are
 * purged, so a client's position (the last seq it saw) keeps its meaning.
 * SQLite has one writer: a change gets its seq when its transaction
 * writes it, and transactions commit in that order, so no change can
 * appear behind a position a client already holds. `recorded_at` is the
 * database's own clock, never behind the previous change's (insertChanges),
 * so `since` finds its first change with one index seek.
 */
export const changes = sqliteTable(
  "changes",
  {
    seq: integer().primaryKey({ autoIncrement: true }),
    /** The filing's state (changes of one state are one index range). */
    state: text().notNull(),
    type: enumCode(CHANGE_TYPES)().notNull(),
    filingId: integer().notNull(),
    /** The amendment's number, for a change an amendment made. */
    amendment: text(),
    amendmentKind: enumCode(AMENDMENT_KINDS)(),
    /** For filing.updated: the fields whose stored facts changed. */
    changedFields: setMask(CHANGED_FIELDS)(),
    recordedAt: instant().notNull(),
    /** The office's date: the filing's, the amendment's, or the lapse date (midnight UTC). */
    occurredAt: instant().notNull(),
    /**
     * The parties the load that recorded the change took off its filing
     * (src/db/changeRows.ts, RemovedParties): JSON of their stored match
     * forms, as debtor_parties.name_key and lender_names.words hold them
     * (`{"d":[...],"s":[...]}`); null when it took none, as almost every
     * change. The change is indexed, filtered and matched to watchlists
     * under them too, so a watcher of a party taken off a filing is told.
     */
    removedParties: text(),
  },
  (t) => [
    index("changes_state").on(t.state, t.seq),
    index("changes_type").on(t.type, t.seq),
    index("changes_state_type").on(t.state, t.type, t.seq),
    index("changes_recorded").on(t.recordedAt),
  ],
);

/**
 * The change feed's name index (src/db/nameIndex.ts): each change under the
 * keys of the parties its filing names after the change (debtors, and the
 * leading words of its lenders) and of those the change took off it
 * (changes.removed_parties), written in the same D1 batch as the change
 * (src/db/changeRows.ts, src/changes/daily.ts). GET /filings/changes reads a debtor's
 * or lender's changes here in change order, a page's worth, and checks the
 * name rule on the filing itself and on the parties the change took off it
 * (a key is coarser than the rule).
 *
 * `id` packs the change's seq and a slot (seq × NAME_SLOTS + slot): a
 * change's rows are one range of the table, which retention deletes with
 * the change, and under change_names_key (key, then row id) a key's changes
 * are one range in change order.
 */
export const changeNames = sqliteTable(
  "change_names",
  { id: integer().primaryKey(), key: integer().notNull() },
  (t) => [index("change_names_key").on(t.key)],
);

/**
 * The change feed's bookkeeping, one row (id 1): the last day whose lapses
 * the daily job recorded, the newest change retention purged (a position at
 * or before it has lost changes: 410 cursor_expired), and the last lapse
 * day through which the daily job gave live filings their listed form
 * (src/db/listed.ts; null before its first run since migration 0029).
 */
export const changeMarks = sqliteTable("change_marks", {
  id: integer().primaryKey(),
  lapsesThrough: day(),
  purgedThrough: integer().notNull(),
  formsThrough: day(),
});

/**
 * How current each state's data is (GET /states): when it was last loaded,
 * and the office's own as-of date when its feed gave one (an IACA file's
 * ThruDate). Written with each load's data_loads row.
 */
export const stateLoads = sqliteTable("state_loads", {
  state: text().primaryKey(),
  lastLoadedAt: instant().notNull(),
  officeThrough: day(),
});

/**
 * Each state's backfill: its first load, whose filings the change feed does
 * not announce (docs/monitoring.md). A load begins one for each state it
 * loads that the service holds no filing of (or that the operator names
 * with `--backfill`), before writing any of its filings, and completes it
 * when it ends; until then every load of the state is part of the backfill.
 * Kept in the state's shard (GET /states).
 */
export const stateBackfills = sqliteTable("state_backfills", {
  state: text().primaryKey(),
  beganAt: instant().notNull(),
  /** Null while the backfill is under way. */
  completedAt: instant(),
  /** What began it (`import FILE`, `load KEY`). */
  source: text().notNull(),
});

/**
 * What GET /states shows of each state a shard holds, one row a state, so
 * the list reads a row per state (and its "x" facet's days since the row
 * was written, none once the daily job has run) instead of counting
 * anything per request. A copy, kept by the loaders (src/db/load.ts,
 * stateSummaryStatement) in the transaction that changes what it copies:
 * the state's facet totals and newest filing when its filings are written,
 * state_loads when a load is recorded, state_backfills when a backfill
 * begins or completes; and rewritten by the daily job, which moves
 * `lapsed_on` to its day.
 */
export const stateSummaries = sqliteTable("state_summaries", {
  state: text().primaryKey(),
  filings: integer().notNull(),
  /** Live filings (not terminated), lapsed or not: the state's "x" facet total. */
  live: integer().notNull().default(0),
  /**
   * Of those, the ones lapsing on or before `lapsed_on` (YYYY-MM-DD, the last
   * lapse date ended when the row was written, a load's or the daily job's:
   * lapsedThrough, src/domain/lifecycle.ts): GET /states counts those live
   * today as `live` less these, less the "x" facet's days since.
   */
  lapsed: integer().notNull().default(0),
  lapsedOn: text(),
  newestFiledAt: instant(),
  lastLoadedAt: instant(),
  officeThrough: day(),
  backfillBeganAt: instant(),
  backfillCompletedAt: instant(),
});

/** One row per data load; the newest is `data_source_last_updated`. */
export const dataLoads = sqliteTable(
  "data_loads",
  {
    id: integer().primaryKey(),
    source: text().notNull(),
    loadedAt: text().notNull(),
    filings: integer().notNull(),
  },
  (t) => [index("data_loads_loaded").on(t.loadedAt)],
);

/**
 * One row per put of a feed file loaded on the platform (src/platform/):
 * its Workflow instance (`id`, from the object's key, etag and upload
 * time) and where its load stands, so the CLI follows a load and lists
 * loads by reading D1.
 * `checkpoint` is the last step's (JSON): bytes done, counts, where the
 * next range starts; a restarted load carries on from it. Whether a load
 * runs, completed or failed, and why, is its Workflow instance's status,
 * kept nowhere else. Kept in the default shard only.
 */
export const feedLoads = sqliteTable(
  "feed_loads",
  {
    id: text().primaryKey(),
    key: text().notNull(),
    etag: text().notNull(),
    bytes: integer().notNull(),
    startedAt: text().notNull(),
    updatedAt: text().notNull(),
    /** The import summary so far, as JSON: the checkpoint's, or past it what a range stopped by a broken file wrote. */
    summary: text().notNull(),
    checkpoint: text().notNull(),
  },
  (t) => [index("feed_loads_started").on(t.startedAt)],
);

/**
 * The filing offices' open registers (src/feed/sources/, docs/sources/) as
 * read: one row per row of the office's dataset, by file or by pull, keyed
 * by its table and the office's row identity (Colorado's ids; for
 * Connecticut and Oregon, whose rows carry none, a hash of the row's facts
 * that do not change in place). A filing is assembled from every row of it
 * here, so rows of one filing may arrive in any order, in any file, in any
 * pull, and a row the office changes in place (a lien marked Released)
 * replaces its earlier version. `pending` marks rows new or changed since
 * their filing was last assembled: the assembly walks them by filing
 * (source_rows_pending) and clears them once the filing is loaded, so a load
 * stopped anywhere is finished by the next. Kept in the default shard.
 */
export const sourceRows = sqliteTable(
  "source_rows",
  {
    id: integer().primaryKey(),
    /** The office: ct, co or or. */
    source: text().notNull(),
    /** The office's table the row is of (Colorado has four). */
    tab: text().notNull(),
    rowId: text().notNull(),
    /**
     * The number of the filing the row belongs to; null for a Colorado party
     * or collateral row whose transaction is not read yet.
     */
    filing: text(),
    /** Colorado's `fileid`: a party or collateral row's transaction. */
    part: text(),
    /** The row as read: its fields (text), as JSON. */
    data: text().notNull(),
    /** Where it was last read: the file (or the portal's dataset URL) and its line (or place in the pull). */
    file: text().notNull(),
    line: integer().notNull(),
    pending: integer({ mode: "boolean" }).notNull().default(true),
  },
  (t) => [
    uniqueIndex("source_rows_row").on(t.source, t.tab, t.rowId),
    // A filing's rows, to assemble it.
    index("source_rows_filing").on(t.source, t.filing),
    // A Colorado transaction's party and collateral rows.
    index("source_rows_part").on(t.source, t.part).where(sql`part is not null`),
    // The filings to assemble again, in order.
    index("source_rows_pending").on(t.source, t.filing).where(sql`pending = 1`),
  ],
);

/**
 * Webhook subscriptions (src/webhooks/, docs/webhooks.md):
 * made by the operator (`npm run webhooks`), one per API key and receiver
 * URL, with the change types and states it wants (null: all) and how many
 * debtor and secured-party names its watchlist holds (webhook_names; none
 * of either: every change of its types and states). Secrets are stored
 * encrypted (src/webhooks/secrets.ts); the previous one signs too until
 * `previous_until`, after a rotation. `starts` holds each shard's last
 * change before the subscription was made (JSON): it is sent only changes
 * after those. `failing_since`: the first failed delivery since the last
 * success. Kept in the default shard only, with the tables below.
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: integer().primaryKey(),
    /** The id the operator and the receiver see: `wh_` and 20 random characters. */
    publicId: text().notNull(),
    /** The API key's SHA-256 digest (its KV entry's name: src/domain/apiKeys.ts). */
    keyDigest: text().notNull(),
    url: text().notNull(),
    types: setMask(CHANGE_TYPES)(),
    /** States joined with "|"; null: every state. */
    states: text(),
    debtors: integer().notNull(),
    securedParties: integer().notNull(),
    secret: text().notNull(),
    previousSecret: text(),
    previousUntil: instant(),
    status: text({ enum: ["enabled", "disabled"] }).notNull(),
    disabledReason: text(),
    failingSince: instant(),
    starts: text().notNull(),
    createdAt: instant().notNull(),
    updatedAt: instant().notNull(),
  },
  (t) => [
    uniqueIndex("webhook_subscriptions_public").on(t.publicId),
    // The subscriptions without a watchlist, which every change is matched against.
    index("webhook_subscriptions_broad").on(t.status).where(sql`debtors = 0 and secured_parties = 0`),
  ],
);

/** What a watchlist name is (stored as a code). */
export const WATCH_KINDS = ["debtor", "secured_party"] as const;

/**
 * A subscription's watchlist: each name as the operator gave it, under each
 * key it is looked up by (src/db/nameIndex.ts: a debtor under one key per
 * reading, a secured party under its words). A change's parties are looked
 * up by key (webhook_names_key), and the name rule checked on the match.
 */
export const webhookNames = sqliteTable(
  "webhook_names",
  {
    id: integer().primaryKey(),
    subscription: integer().notNull(),
    kind: enumCode(WATCH_KINDS)().notNull(),
    name: text().notNull(),
    key: integer().notNull(),
  },
  (t) => [index("webhook_names_subscription").on(t.subscription, t.kind), index("webhook_names_key").on(t.key)],
);

/** Each shard's dispatch position: the last change matched against subscriptions (src/webhooks/dispatch.ts). */
export const webhookPositions = sqliteTable("webhook_positions", {
  shard: text().primaryKey(),
  seq: integer().notNull(),
  updatedAt: instant().notNull(),
});

/**
 * The delivery log: one row per subscription and change sent (its id is the
 * `webhook-id` header), updated by each attempt. Never the secret or the
 * body sent; `last_error` is what went wrong, with at most the first 200
 * characters of the receiver's answer. Rows older than the change feed's
 * retention are deleted by the daily job.
 */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text().primaryKey(),
    subscription: integer().notNull(),
    shard: text().notNull(),
    seq: integer().notNull(),
    /** The change's id as the feed gives it (`CA-10423`). */
    change: text().notNull(),
    type: enumCode(CHANGE_TYPES)().notNull(),
    status: text({ enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer().notNull(),
    lastStatus: integer(),
    lastError: text(),
    /** When the next attempt is due, while pending. */
    nextAt: instant(),
    createdAt: instant().notNull(),
    updatedAt: instant().notNull(),
  },
  (t) => [
    index("webhook_deliveries_subscription").on(t.subscription, t.createdAt),
    index("webhook_deliveries_failed").on(t.subscription, t.createdAt).where(sql`status = 'failed'`),
    index("webhook_deliveries_created").on(t.createdAt),
  ],
);

/**
 * Each office's register: how far its data runs and where its pulls got to
 * (src/feed/sources/pull.ts), one row per source, in the default shard.
 */
export const sourcePulls = sqliteTable("source_pulls", {
  source: text().primaryKey(),
  /** The newest date in the office's data read so far (YYYY-MM-DD): the state's data_through. */
  through: text(),
  /**
   * The portal's time when the last full pull that found anything began
   * (ISO 8601 UTC): the next pull asks for the rows it changed since then
   * (less an overlap). A pull that finds nothing writes nothing (endPull).
   */
  changedSince: text(),
  /** When the last pull that found anything ended (ISO 8601 UTC). */
  pulledAt: text(),
  /** A pull under way, as JSON (its query and the next page), so a stopped pull resumes; null when none. */
  position: text(),
  /** What the last pull read and loaded, as JSON. */
  summary: text(),
});

/**
 * A platform load's first reading of its file (src/platform/staging.ts), in
 * the default shard while the load runs: each filing key the file gives
 * (as a 64-bit hash, text) with the read positions of its first and last
 * copy, so a range step knows which of its filings the file repeats and
 * where their last copy is, whatever range that falls in. WITHOUT ROWID.
 */
export const loadKeys = sqliteTable(
  "load_keys",
  {
    load: text().notNull(),
    hash: text().notNull(),
    first: integer().notNull(),
    last: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.load, t.hash] })],
);

/**
 * The earlier copies of a repeated filing a platform load has read, until
 * the range that reads its last copy folds them into it (src/feed/held.ts),
 * as JSON. WITHOUT ROWID; emptied when the load completes.
 */
export const heldCopies = sqliteTable(
  "held_copies",
  {
    load: text().notNull(),
    hash: text().notNull(),
    position: integer().notNull(),
    copy: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.load, t.hash, t.position] })],
);

/** A filing as loaders and pages handle it: its row, less the ids of its lenders (known to the database only). */
export type Filing = Omit<typeof filings.$inferSelect, "lenders" | "listed">;
export type DebtorParty = typeof debtorParties.$inferSelect;
/** A filing's secured party as loaders and pages handle it: its secured_parties row with its lender's details and name. */
export type SecuredParty = Omit<typeof securedParties.$inferSelect, "nameId"> &
  Omit<typeof lenders.$inferSelect, "id"> & { nameWords: string };
export type Amendment = typeof amendments.$inferSelect;
export type PendingAmendment = typeof pendingAmendments.$inferSelect;
export type DebtorName = typeof debtorNames.$inferSelect;
