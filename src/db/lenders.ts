/**
 * How a filing's secured parties are stored (schema.ts): each lender's
 * published details once (lenders), each whole-word lender name once
 * (lender_names), the filing's list of its lenders (filings.lenders), and
 * per party what lender searches read (secured_parties, by name id). A
 * loader hands over a party as one SecuredParty; these split it into those
 * rows, and join them back into one.
 *
 * Writes need no read first: a batch inserts the names and lenders it
 * lacks, then the rows that refer to them look their ids up by value in
 * the same transaction (a lender by its name and street through an index,
 * then by every detail, so two lenders never share a row).
 */
import { and, eq, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "./database.ts";
import { filings, lenderNames, lenders, type SecuredParty, securedParties } from "./schema.ts";

type Statement = BatchItem<"sqlite">;

/** A lender's columns as lenders stores them (codes for kinds), in the order lenderValues lists them. */
const DETAILS = ["type", "name", "category", "street1", "street2", "city", "state", "zip", "country"] as const;

/** A party's lenders row values, as stored, in DETAILS order. */
function lenderValues(s: SecuredParty): (string | number | null)[] {
  return DETAILS.map((d) => {
    const value = s[d];
    return value === null ? null : (lenders[d].mapToDriverValue(value as never) as string | number);
  });
}

/** `lenders` row `l` holds the details of JSON array `v` (lenderValues): every one, null as null. */
function holds(l: string, v: SQL): SQL {
  return sql.join(
    DETAILS.map((d, i) => sql`${sql.raw(`${l}."${d}"`)} is (${v} ->> ${sql.raw(String(i))})`),
    sql` and `,
  );
}

/** JSON text of at most `maxBytes` per statement. */
function jsonParts<T>(items: T[], maxBytes: number): string[] {
  const parts: string[] = [];
  let part: string[] = [];
  let bytes = 0;
  for (const item of items) {
    const text = JSON.stringify(item);
    if (part.length > 0 && bytes + text.length > maxBytes) {
      parts.push(`[${part.join(",")}]`);
      part = [];
      bytes = 0;
    }
    part.push(text);
    bytes += text.length + 1;
  }
  if (part.length > 0) parts.push(`[${part.join(",")}]`);
  return parts;
}

/**
 * Inserts the lender names and lenders of `secured` that are not stored
 * yet, before the rows that refer to them (one JSON parameter a statement).
 */
export function lenderStatements(db: Db, secured: SecuredParty[], maxBytes = 50_000): Statement[] {
  const words = [...new Set(secured.map((s) => s.nameWords))].sort();
  const details = [...new Map(secured.map((s) => lenderValues(s)).map((v) => [JSON.stringify(v), v])).values()];
  return [
    ...jsonParts(words, maxBytes).map((json) =>
      db
        .insert(lenderNames)
        .select(
          db
            .select({ id: sql<number>`null`.as("id"), words: sql<string>`value`.as("words") })
            .from(sql`json_each(${json})`)
            // The WHERE keeps SQLite from reading the upsert's ON as a join's.
            .where(sql`true`),
        )
        .onConflictDoNothing(),
    ),
    ...jsonParts(details, maxBytes).map((json) =>
      db.insert(lenders).select(
        // Every column in table order: id (null: the next), then DETAILS.
        sql`select null, ${sql.raw(DETAILS.map((_, i) => `j.value ->> ${i}`).join(", "))}
            from json_each(${json}) j
            where not exists (select 1 from ${lenders} l where ${holds("l", sql.raw("j.value"))})`,
      ),
    ),
  ];
}

/**
 * How rows refer to names and lenders: by values the database looks up in
 * the statement that writes them (`lookedUp`), or by ids known already (a
 * bulk load, which reads them back after writing them: scripts/bulk/).
 */
export interface LenderRefs {
  /** filings.lenders of a filing with these secured parties, in order. */
  lenders(secured: SecuredParty[]): string | SQL;
  /** secured_parties.name_id of a party so named. */
  nameId(words: string): number | SQL;
}

export const lookedUp: LenderRefs = {
  lenders: (secured) =>
    secured.length === 0
      ? "[]"
      : sql`(select json_group_array(l.id order by j.key) from json_each(${JSON.stringify(secured.map(lenderValues))}) j join ${lenders} l on ${holds("l", sql.raw("j.value"))})`,
  nameId: (words) => sql`(select ${lenderNames.id} from ${lenderNames} where ${lenderNames.words} = ${words})`,
};

/** Ids of names and lenders already stored, read back (scripts/bulk/: after lenderStatements ran). */
export function knownRefs(names: ReadonlyMap<string, number>, ids: ReadonlyMap<string, number>): LenderRefs {
  return {
    lenders: (secured) =>
      JSON.stringify(
        secured.map((s) => {
          const id = ids.get(lenderText(s));
          if (id === undefined) throw new Error(`lender not stored: ${s.name}`);
          return id;
        }),
      ),
    nameId: (words) => {
      const id = names.get(words);
      if (id === undefined) throw new Error(`lender name not stored: ${words}`);
      return id;
    },
  };
}

/**
 * The text knownRefs finds a lender's id by: its details as stored, from a
 * SecuredParty or from a lenders row.
 */
export function lenderText(lender: SecuredParty | Record<string, unknown>): string {
  if ("nameWords" in lender) return JSON.stringify(lenderValues(lender as SecuredParty));
  return JSON.stringify(DETAILS.map((d) => lender[d] ?? null));
}

/** The lenders columns lenderText lists, in its order, quoted for SQL. */
export const LENDER_COLUMNS = DETAILS.map((c) => `"${c}"`).join(", ");

/** The secured_parties row of `s`, its name referred to as `refs` says. */
export function securedRow(s: SecuredParty, refs: LenderRefs) {
  return {
    filingId: s.filingId,
    position: s.position,
    nameId: refs.nameId(s.nameWords),
    filingState: s.filingState,
    filedAt: s.filedAt,
    filingNumber: s.filingNumber,
    lapsesOn: s.lapsesOn,
    debtorTypes: s.debtorTypes,
    debtorIndustries: s.debtorIndustries,
  };
}

/** A filing's lenders row at `position`, by its list (filings.lenders). */
const lenderAt = (list: SQLWrapper, position: SQLWrapper) => sql`(${list} ->> ${position})`;

/**
 * The secured parties of the filings `where` picks (on secured_parties),
 * as loaders handle them (SecuredParty), in filing and position order.
 */
export function securedPartiesWhere(db: Db, where: SQL | undefined) {
  return db
    .select({
      filingId: securedParties.filingId,
      position: securedParties.position,
      type: lenders.type,
      name: lenders.name,
      nameWords: lenderNames.words,
      category: lenders.category,
      street1: lenders.street1,
      street2: lenders.street2,
      city: lenders.city,
      state: lenders.state,
      zip: lenders.zip,
      country: lenders.country,
      filingState: securedParties.filingState,
      filedAt: securedParties.filedAt,
      filingNumber: securedParties.filingNumber,
      lapsesOn: securedParties.lapsesOn,
      debtorTypes: securedParties.debtorTypes,
      debtorIndustries: securedParties.debtorIndustries,
    })
    .from(securedParties)
    .innerJoin(filings, eq(filings.id, securedParties.filingId))
    .innerJoin(lenders, eq(lenders.id, lenderAt(filings.lenders, securedParties.position)))
    .innerJoin(lenderNames, eq(lenderNames.id, securedParties.nameId))
    .where(and(where))
    .orderBy(securedParties.filingId, securedParties.position);
}
