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
 *   addresses with a five-digit ZIP and a dedup key, so requests compare
 *   stored columns through indexes instead of normalizing rows.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const FILING_KINDS = ["standard", "manufactured_home", "public_finance", "transmitting_utility"] as const;

export const AMENDMENT_KINDS = [
  "continuation",
  "termination",
  "assignment",
  "party_change",
  "collateral_change",
] as const;

export const PARTY_TYPES = ["Individual", "Organization"] as const;

/** Address columns shared by both party tables. */
const addressColumns = {
  street1: text().notNull(),
  street2: text(),
  city: text().notNull(),
  state: text().notNull(),
  /** As filed: five digits or ZIP+4. */
  zip: text().notNull(),
  /** First five digits of `zip`, the postal-code search key. */
  zip5: text().notNull(),
  country: text(),
  /** Normalized street, city, state and ZIP5: equal keys are one address. */
  addressKey: text().notNull(),
};

export const filings = sqliteTable(
  "filings",
  {
    id: integer().primaryKey(),
    state: text().notNull(),
    number: text().notNull(),
    /** ISO 8601 UTC with Z, so text order is time order. */
    filedAt: text().notNull(),
    kind: text({ enum: FILING_KINDS }).notNull().default("standard"),
    /** YYYY-MM-DD; null when the filing does not lapse (transmitting utility). */
    lapseDate: text(),
    /** Filing time of the terminating amendment, when there is one. */
    terminatedAt: text(),
  },
  (t) => [
    uniqueIndex("filings_state_number").on(t.state, t.number),
    // Lookup by number alone, across states (endpoint 9).
    index("filings_number").on(t.number),
    // Recent filings in a state, newest first (endpoint 1).
    index("filings_state_filed").on(t.state, t.filedAt, t.number),
    // Recently terminated in a state, newest first (endpoint 4).
    index("filings_state_terminated").on(t.state, t.terminatedAt, t.number).where(sql`terminated_at is not null`),
  ],
);

export const debtorParties = sqliteTable(
  "debtor_parties",
  {
    id: integer().primaryKey(),
    filingId: integer()
      .notNull()
      .references(() => filings.id, { onDelete: "cascade" }),
    /** Order of the party on the filing. */
    position: integer().notNull(),
    type: text({ enum: PARTY_TYPES }).notNull(),
    name: text().notNull(),
    /** UCC search-logic key: see debtorNameKey(). */
    nameKey: text().notNull(),
    /** Industry label; one of INDUSTRIES or another label. */
    industry: text(),
    ...addressColumns,
    filingState: text().notNull(),
    filedAt: text().notNull(),
  },
  (t) => [
    index("debtor_parties_filing").on(t.filingId, t.position),
    // Exact-name search within a state (endpoints 5 and 7), and across
    // states for known addresses (endpoint 6).
    index("debtor_parties_name").on(t.nameKey, t.filingState, t.filedAt),
    // Postal-code search, recent first (endpoint 2).
    index("debtor_parties_zip").on(t.zip5, t.filedAt),
  ],
);

export const securedParties = sqliteTable(
  "secured_parties",
  {
    id: integer().primaryKey(),
    filingId: integer()
      .notNull()
      .references(() => filings.id, { onDelete: "cascade" }),
    position: integer().notNull(),
    name: text().notNull(),
    /** Whole-word form of the name: see securedNameWords(). */
    nameWords: text().notNull(),
    /** Lender kind, e.g. Bank, Equipment Finance. */
    category: text(),
    ...addressColumns,
    filingState: text().notNull(),
    filedAt: text().notNull(),
  },
  (t) => [
    index("secured_parties_filing").on(t.filingId, t.position),
    // Lender-name prefix search within a state (endpoint 3).
    index("secured_parties_name").on(t.filingState, t.nameWords, t.filedAt),
  ],
);

export const amendments = sqliteTable(
  "amendments",
  {
    id: integer().primaryKey(),
    filingId: integer()
      .notNull()
      .references(() => filings.id, { onDelete: "cascade" }),
    number: text().notNull(),
    filedAt: text().notNull(),
    kind: text({ enum: AMENDMENT_KINDS }).notNull(),
    /** The filing office's description of the amendment type. */
    description: text().notNull(),
  },
  (t) => [index("amendments_filing").on(t.filingId, t.filedAt, t.number)],
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
    lastFiledAt: text().notNull(),
    filingCount: integer().notNull(),
  },
  (t) => [
    uniqueIndex("debtor_names_key_state").on(t.nameKey, t.state),
    // Key-prefix probes of similar-name search within one state.
    index("debtor_names_state_key").on(t.state, t.nameKey),
  ],
);

/**
 * The sound of each significant word of each debtor name (see wordSound()):
 * similar-name search finds candidates by the sounds of the query's words,
 * so a misspelled or reordered name still meets its debtor.
 */
export const debtorNameSounds = sqliteTable(
  "debtor_name_sounds",
  {
    sound: text().notNull(),
    state: text().notNull(),
    nameKey: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.sound, t.state, t.nameKey] })],
);

/**
 * Filings per state and filing day, overall (industry "") and per debtor
 * industry (a filing counts once under each industry among its debtors).
 * Maintained by the loader, so counting a state's recent filings reads about
 * ninety rows instead of every filing of the window.
 */
export const filingDayCounts = sqliteTable(
  "filing_day_counts",
  {
    state: text().notNull(),
    industry: text().notNull(),
    /** YYYY-MM-DD (UTC). */
    day: text().notNull(),
    filings: integer().notNull(),
  },
  (t) => [primaryKey({ columns: [t.state, t.industry, t.day] })],
);

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

export type Filing = typeof filings.$inferSelect;
export type DebtorParty = typeof debtorParties.$inferSelect;
export type SecuredParty = typeof securedParties.$inferSelect;
export type Amendment = typeof amendments.$inferSelect;
export type DebtorName = typeof debtorNames.$inferSelect;
