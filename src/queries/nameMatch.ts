/**
 * A debtor-name query (src/domain/names.ts, debtorQuery) as SQL over a
 * stored match-key column. The filing list, the count and the per-debtor
 * aggregates (addresses, co-debtors) all use these predicates, so every
 * exact-name endpoint means the same debtors by the same name.
 *
 * Each span is an equality or one range on the key, so it is served by any
 * index that starts with the key; a middle-name rule is checked on the key
 * itself, inside that range.
 */
import { and, eq, gte, inArray, lt, or, type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type DebtorQuery, type KeySpan, nextChar } from "../domain/names.ts";

/** A condition drizzle types as possibly absent, which it is only when given no terms. */
function present(condition: SQL | undefined): SQL {
  if (!condition) throw new Error("a condition of no terms");
  return condition;
}

/** Keys of `column` within `span`. */
export function spanWhere(column: SQLiteColumn, span: KeySpan): SQL {
  if ("key" in span) return eq(column, span.key);
  const range = present(and(gte(column, span.from), lt(column, span.to)));
  const rule = span.middle;
  if (!rule) return range;
  // The middle name: what follows the space after the first name (see middleOf()).
  const middle = sql`substr(${column}, ${rule.firstAt} + instr(substr(${column}, ${rule.firstAt}), ' '))`;
  const passes =
    "initial" in rule
      ? and(gte(middle, rule.initial), lt(middle, nextChar(rule.initial)))
      : inArray(middle, rule.names);
  return present(and(range, passes));
}

/** Every span of `query`, the organization key first. */
export function spansOf(query: DebtorQuery): KeySpan[] {
  return [{ key: query.orgKey }, ...query.personSpans];
}

/**
 * Keys of `column` that `query` finds, with `also` (equalities on columns
 * ahead of the key in an index, such as the state) repeated in each span's
 * term, so SQLite serves every term from its own index range.
 */
export function keyMatches(column: SQLiteColumn, query: DebtorQuery, also?: SQL): SQL {
  return present(or(...spansOf(query).map((s) => and(also, spanWhere(column, s)))));
}
