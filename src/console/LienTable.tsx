/**
 * A page of filings as a table: each filing's number (a link to the
 * filing), state, filing date, status, lapse date, debtors and secured
 * parties. Envelope B answers carry status and lapse date; for envelope A
 * pages (exact-name search, a state's recent filings) they come from each
 * filing's own lookup (useLookups.ts), filled in as those answer, so the
 * list shows at once.
 */
import type { LienA, LienB, LienFull } from "./api.ts";
import { day } from "./format.ts";
import type { Problem } from "./problems.ts";
import { href } from "./route.ts";

/** A filing's own lookup, as it stands for its row. */
export type Lookup =
  | { phase: "loading" }
  | { phase: "done"; lien: LienFull | undefined }
  | { phase: "failed"; problem: Problem };

/** The key of a filing: numbers are unique only within a state. */
export const filingKey = (lien: { jurisdiction_state: string; initial_financing_number: string }) =>
  `${lien.jurisdiction_state}/${lien.initial_financing_number}`;

function statusCells(lien: LienA | LienB, lookup: Lookup | undefined) {
  if ("estimated_lien_status" in lien) {
    return [lien.estimated_lien_status, lien.estimated_lien_lapse_date ?? "Does not lapse"];
  }
  if (lookup === undefined || lookup.phase === "loading") return ["Looking up…", "Looking up…"];
  if (lookup.phase === "failed") return [`Not known: ${lookup.problem.title}`, ""];
  if (lookup.lien === undefined) return ["Not found", ""];
  return [lookup.lien.estimated_lien_status, lookup.lien.estimated_lien_lapse_date ?? "Does not lapse"];
}

export function LienTable(props: { caption: string; liens: (LienA | LienB)[]; lookups?: Map<string, Lookup> }) {
  return (
    <table class="liens">
      <caption class="visually-hidden">{props.caption}</caption>
      <thead>
        <tr>
          <th scope="col">Filing</th>
          <th scope="col">Filed</th>
          <th scope="col">Status</th>
          <th scope="col">Lapse date</th>
          <th scope="col">Debtors</th>
          <th scope="col">Secured parties</th>
        </tr>
      </thead>
      <tbody>
        {props.liens.map((lien) => {
          const key = filingKey(lien);
          const [status, lapse] = statusCells(lien, props.lookups?.get(key));
          const link = href("filing", { number: lien.initial_financing_number, state: lien.jurisdiction_state });
          return (
            <tr key={key}>
              <th scope="row" data-label="Filing">
                <a href={link}>{lien.initial_financing_number}</a> <span class="state">{lien.jurisdiction_state}</span>
              </th>
              <td data-label="Filed" class="date">
                {day(lien.initial_financing_date)}
              </td>
              <td data-label="Status" class={`status status-${String(status).toLowerCase()}`}>
                {status}
              </td>
              <td data-label="Lapse date" class="date">
                {lapse}
              </td>
              <td data-label="Debtors">{lien.involved_parties.debtor_parties.map((p) => p.name).join("; ")}</td>
              <td data-label="Secured parties">
                {lien.involved_parties.secured_parties.map((p) => p.name).join("; ")}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
