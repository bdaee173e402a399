/**
 * A debtor-name query (src/domain/names.ts, debtorQuery) as SQL over a
 * stored match-key column. The filing list, the count and the per-debtor
 * aggregates (addresses, co-debtors) all use these predicates, so every
 * exact-name endpoint means the same debtors by the same name.
 *
 * Each span is an equality or one range on the key, so it is served by any
 * index that starts with the key; a middle-name rule is checked on the key
 * itself, inside that range.
 *
 * The predicates take spans whose values are SQL, a template's holes
 * (spansIn, over the form and values of spanForms), so a statement
 * template (src/queries/db.ts) is rendered once per form of query rather
 * than once per name.
 */
import { and, eq, gte, inArray, lt, or, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { type DebtorQuery, type KeySpan, nextChar } from "../domain/names.ts";

/** A key span (names.ts, KeySpan) with SQL for its values; a middle initial brings the letter after it. */
export type Span =
  | { key: SQLWrapper }
  | {
      from: SQLWrapper;
      to: SQLWrapper;
      middle?: { firstAt: SQLWrapper } & ({ initial: SQLWrapper; beyond: SQLWrapper } | { names: SQLWrapper[] });
      few?: boolean;
    };

/** A span's form: an equality, or a range with its middle rule (an initial, or how many names) and size. */
export type SpanForm = { key: true } | { middle?: "initial" | number; few?: boolean };

/** A query's spans as a template takes them: their forms (its shape) and their values in order (one list). */
export function spanForms(query: DebtorQuery): { forms: SpanForm[]; values: (string | number)[] } {
  const forms: SpanForm[] = [];
  const values: (string | number)[] = [];
  const spans: KeySpan[] = [{ key: query.orgKey }, ...query.personSpans];
  for (const span of spans) {
    if ("key" in span) {
      forms.push({ key: true });
      values.push(span.key);
      continue;
    }
    values.push(span.from, span.to);
    const rule = span.middle;
    const few = span.few ? { few: true } : {};
    if (!rule) forms.push(few);
    else if ("initial" in rule) {
      forms.push({ middle: "initial", ...few });
      values.push(rule.firstAt, rule.initial, nextChar(rule.initial));
    } else {
      forms.push({ middle: rule.names.length, ...few });
      values.push(rule.firstAt, ...rule.names);
    }
  }
  return { forms, values };
}

/** The spans of `forms` over `values` (holes or SQL), in spanForms' order: the organization key first. */
export function spansIn(forms: readonly SpanForm[], values: readonly SQLWrapper[]): Span[] {
  let next = 0;
  const take = () => {
    const value = values[next++];
    if (value === undefined) throw new Error("fewer span values than the forms take");
    return value;
  };
  return forms.map((form) => {
    if ("key" in form) return { key: take() };
    const [from, to] = [take(), take()];
    const few = form.few ? { few: true } : {};
    if (form.middle === undefined) return { from, to, ...few };
    const firstAt = take();
    if (form.middle === "initial") return { from, to, middle: { firstAt, initial: take(), beyond: take() }, ...few };
    return { from, to, middle: { firstAt, names: Array.from({ length: form.middle as number }, take) }, ...few };
  });
}

/** A condition drizzle types as possibly absent, which it is only when given no terms. */
function present(condition: SQL | undefined): SQL {
  if (!condition) throw new Error("a condition of no terms");
  return condition;
}

/** Keys of `column` (or of an expression: a subquery's column) within `span`. */
export function spanWhere(of: SQLiteColumn | SQL, span: Span): SQL {
  const column: SQLWrapper = of;
  if ("key" in span) return eq(column, span.key);
  const range = present(and(gte(column, span.from), lt(column, span.to)));
  const rule = span.middle;
  if (!rule) return range;
  // The middle name: what follows the space after the first name (see middleOf()).
  const middle = sql`substr(${column}, ${rule.firstAt} + instr(substr(${column}, ${rule.firstAt}), ' '))`;
  const passes =
    "initial" in rule ? and(gte(middle, rule.initial), lt(middle, rule.beyond)) : inArray(middle, rule.names);
  return present(and(range, passes));
}

/**
 * Keys of `column` within one of `spans`, with `also` (equalities on
 * columns ahead of the key in an index, such as the state) repeated in each
 * span's term, so SQLite serves every term from its own index range.
 */
export function spansMatch(column: SQLiteColumn | SQL, spans: readonly Span[], also?: SQL): SQL {
  return present(or(...spans.map((s) => and(also, spanWhere(column, s)))));
}
