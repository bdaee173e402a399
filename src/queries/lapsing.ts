/**
 * GET /filings/lapsing: a state's live filings whose lapse date falls in a
 * window, soonest first (then by number), optionally only those with a
 * debtor in given industries or a secured party of a name: a refinancing
 * lead list and a lender's continuation reminder.
 *
 * Each list is arms of index entries in list order (src/queries/filings.ts),
 * here by lapse date: the state's live filings (filings_state_lapsing), a
 * debtor industry's (debtor_parties_lapsing) or a lender's
 * (secured_parties_lapsing, on the lapse date copied onto party rows), so a
 * page reads about a page of entries.
 * - A lender name matches whole leading words, so a query covers every
 *   lender name under it: the state's lender names come from its "l"
 *   facets, the first NAME_SLOTS get an ordered arm each and any beyond
 *   share one sorted arm (only a very broad name pays for its filings
 *   beyond the page).
 * - Counts (envelope A): the whole state's from its "x" facet (live
 *   filings by lapse day, schema.ts), four rows of its tallies; by industry
 *   from its "y" facets, four rows per industry and pair asked for
 *   (industriesBetween);
 *   a lender's by counting its entries in the window, which reads the
 *   lender's window, not the state.
 */
import { and, eq, gt, gte, lt, type SQL, sql } from "drizzle-orm";
import { INCLUDED_MAX, industryFacetName, industryLetter } from "../db/records.ts";
import { debtorParties, facetCounts, filings, securedParties } from "../db/schema.ts";
import { securedNameRange } from "../domain/names.ts";
import { query } from "./db.ts";
import { arm, type CountedFilter, type FilingWithParties, type ListPosition, NAME_SLOTS } from "./filings.ts";
import { between } from "./tallies.ts";

/**
 * A validated day (YYYY-MM-DD) or day number as an SQL literal: the window's
 * bounds repeat in every index range of a list, and bound each time they
 * would take D1's 100 parameters for a list of many ranges.
 */
function dayLiteral(day: string | number): SQL {
  const n = typeof day === "number" ? day : Number(filings.lapseDate.mapToDriverValue(day));
  if (!Number.isInteger(n)) throw new Error(`not a day: ${day}`);
  return sql.raw(String(n));
}

/** An industry's stored code (src/db/encodings.ts, labelCode), as an SQL literal. */
function industryCode(industry: string): string {
  const code = debtorParties.industry.mapToDriverValue(industry);
  if (typeof code !== "number") throw new Error(`not an industry: ${industry}`);
  return String(code);
}

export interface LapsingQuery {
  state: string;
  /** First and last lapse day of the window (YYYY-MM-DD, inclusive). */
  from: string;
  to: string;
  industries?: string[] | undefined;
  securedParty?: string | undefined;
  /** Resume after this item (a cursor's position): the list runs soonest first, so after is above. */
  after?: ListPosition | undefined;
}

/** An item's place in a lapse list: its lapse date as stored (a day number) and its number. */
export function lapsePosition({ filing }: FilingWithParties): ListPosition {
  return { at: Number(filings.lapseDate.mapToDriverValue(filing.lapseDate ?? "")), num: filing.number };
}

/** Rows after `after` in a soonest-first list: a row value over the index's own columns, where SQLite starts the range. */
function above(at: SQL, num: SQL, after: ListPosition | undefined) {
  return after === undefined ? undefined : sql`(${at}, ${num}) > (${dayLiteral(after.at)}, ${after.num})`;
}

/** A column's days from `from` (unless the range starts at a cursor's position) to `to`. */
function within(column: SQL, q: LapsingQuery): SQL {
  const to = sql`${column} <= ${dayLiteral(q.to)}`;
  // From a cursor's position the range starts there: a second lower bound could start it earlier.
  return q.after ? to : sql`${column} >= ${dayLiteral(q.from)} and ${to}`;
}

/** Live filings of `state` lapsing on days `from` to `to`: its "x" facet's (tallies.ts). */
function liveBetween(state: string, from: string, to: string): SQL {
  return between({ scope: "x", place: state, name: "", facet: "" }, from, to);
}

/** The lender names of `state` under `name` (whole leading words), from its lender facets, in name order, each with its id (ref). */
function lenderNames(state: string, name: string, after?: SQL) {
  const { from, to } = securedNameRange(name);
  return query
    .selectDistinct({ name: facetCounts.name, ref: facetCounts.ref })
    .from(facetCounts)
    .where(
      and(
        sql`${facetCounts.scope} = 'l'`,
        eq(facetCounts.place, state),
        gte(facetCounts.name, from),
        lt(facetCounts.name, to),
        after ? gt(facetCounts.name, after) : undefined,
      ),
    )
    .orderBy(facetCounts.name);
}

export function lapsing(q: LapsingQuery): CountedFilter {
  const arms = lapseArms(q);
  const industries = q.industries ?? [];
  // A count is of the whole window, wherever the page resumes.
  const countArms = q.after === undefined ? arms : lapseArms({ ...q, after: undefined });
  const count = q.securedParty
    ? // The lender's arms are five: one compound SELECT, each filing once.
      query.select({ total: sql<number>`count(*)`.as("total") }).from(sql`(${sql.join(countArms, sql` union `)})`)
    : industries.length > 0
      ? query.select({ total: industriesBetween(q.state, industries, q.from, q.to).as("total") }).from(sql`(select 1)`)
      : query.select({ total: sql<number>`${liveBetween(q.state, q.from, q.to)}`.as("total") }).from(sql`(select 1)`);
  return { arms, count: count.getSQL(), ascending: true };
}

/**
 * Live filings of `state` lapsing on days `from` to `to` with a debtor in
 * one of `industries`, from the state's "y" facets (schema.ts): by
 * inclusion-exclusion, each industry's facet of one, less each pair's
 * facet of two (a filing with two of them is in both ones and the pair),
 * and a filing with more than two industries made up from its exact set's
 * facet, weighted by how many of them it holds (as industryTotal does for
 * recent filings, src/queries/filings.ts): with three or more asked, each
 * larger set of the state is looked at (a row), and its tallies read only
 * when it holds three of them. Each facet's filings in the
 * window are those through `to` less those before `from` (src/queries/tallies.ts,
 * between): four rows (two within one month), so a count reads four rows per
 * industry and pair asked for, whatever the data.
 * The sets are written into the text (validated letters) and the window
 * bound once, so any number of industries stays within D1's 100 bound
 * parameters.
 */
function industriesBetween(state: string, industries: string[], from: string, to: string): SQL<number> {
  const asked = [...new Set(industries.map(industryLetter))].filter((l): l is string => l !== undefined).sort();
  const sets = [...asked, ...asked.flatMap((a, i) => asked.slice(i + 1).map((b) => `${a}${b}`))];
  if (sets.length === 0) return sql<number>`0`;
  // A facet's filings lapsing from `from` to `to`, from its tallies (four rows).
  const inWindow = (name: SQL, facet: SQL) =>
    between({ scope: "y", place: sql`w.place`, name, facet }, sql`w.since`, sql`w.through`);
  const terms = sql.raw(`(values ${sets.map((set) => `('${set}')`).join(", ")}) as term`);
  const size = sql`length(term.column1)`;
  const summed = sql`(select coalesce(sum((3 - 2 * ${size}) * ${inWindow(sql`'i' || ${size}`, sql`term.column1`)}), 0) from ${terms})`;
  // Larger sets: the terms counted one holding m of them m - m(m-1)/2 times, not once, which
  // differs only for m > 2: with one or two asked, none is read.
  const held = sql.raw(asked.map((letter) => `(instr(c.facet, '${letter}') > 0)`).join(" + "));
  const weight = sql`(select case when m = 0 then 0 else 1 - m + m * (m - 1) / 2 end from (select ${held} as m))`;
  const larger =
    asked.length <= INCLUDED_MAX
      ? sql`0`
      : sql`(select coalesce(sum(${weight} * ${inWindow(sql`c.name`, sql`c.facet`)}), 0) from ${facetCounts} c
    where c.scope = 'y' and c.place = w.place and c.name > ${industryFacetName("e", INCLUDED_MAX)} and c.name < 'f' and ${held} >= 3)`;
  return sql<number>`(select ${summed} + ${larger} from (select ${state} as place, ${from} as since, ${to} as through) as w)`;
}

/** The list's index ranges (see above), each in list order, from after `q.after`. */
function lapseArms(q: LapsingQuery): SQL[] {
  const industries = q.industries ?? [];
  const lender = q.securedParty;
  if (lender) {
    // A filing of the lender with a debtor in one of the industries, when asked for.
    const inIndustry =
      industries.length === 0
        ? undefined
        : // Industries are stored as codes (validated ones, written as literals: this repeats in every range).
          sql`exists (select 1 from ${debtorParties} d where d.filing_id = ${securedParties.filingId} and d.industry in (${sql.raw(
            industries.map(industryCode).join(", "),
          )}))`;
    const lenderArm = (names: SQL) =>
      query
        .selectDistinct(arm(securedParties.lapsesOn, securedParties.filingNumber, securedParties.filingId))
        .from(securedParties)
        .where(
          and(
            eq(securedParties.filingState, q.state),
            names,
            within(sql`${securedParties.lapsesOn}`, q),
            above(sql`${securedParties.lapsesOn}`, sql`${securedParties.filingNumber}`, q.after),
            inIndustry,
          ),
        )
        .getSQL();
    // The i-th name's words or id (its facets hold it: schema.ts, facetCounts.ref).
    const slot = (i: number, column: "name" | "ref") =>
      sql`(select ${sql.raw(column)} from (${lenderNames(q.state, lender).limit(1).offset(i)}))`;
    const rest = lenderNames(q.state, lender, slot(NAME_SLOTS - 1, "name"));
    return [
      ...Array.from({ length: NAME_SLOTS }, (_, i) => lenderArm(sql`${securedParties.nameId} = ${slot(i, "ref")}`)),
      lenderArm(sql`${securedParties.nameId} in (select ref from (${rest}))`),
    ];
  }
  if (industries.length > 0) {
    return industries.map((industry) =>
      query
        .selectDistinct(arm(debtorParties.lapsesOn, debtorParties.filingNumber, debtorParties.filingId))
        .from(debtorParties)
        .where(
          and(
            eq(debtorParties.filingState, q.state),
            eq(debtorParties.industry, industry),
            within(sql`${debtorParties.lapsesOn}`, q),
            above(sql`${debtorParties.lapsesOn}`, sql`${debtorParties.filingNumber}`, q.after),
          ),
        )
        .getSQL(),
    );
  }
  return [
    query
      .select(arm(filings.lapseDate, filings.number, filings.id))
      .from(filings)
      .where(
        and(
          eq(filings.state, q.state),
          within(sql`${filings.lapseDate}`, q),
          sql`${filings.terminatedAt} is null`,
          above(sql`${filings.lapseDate}`, sql`${filings.number}`, q.after),
        ),
      )
      .getSQL(),
  ];
}
