/**
 * A page of the lien report's filings as a table: beside what the other
 * lists show, each filing's kind (when it is not a plain UCC financing
 * statement), its secured parties' kinds, its collateral categories and
 * the VINs its collateral names. Nothing is cut
 * short: on paper every filing of the page prints whole.
 */
import type { Report } from "./api.ts";
import { COLLATERAL_CATEGORY_LABELS, day, FILING_KIND_LABELS, SECURED_PARTY_KIND_LABELS } from "./format.ts";
import { filingKey } from "./LienTable.tsx";
import { href } from "./route.ts";

type Filing = Report["filings"][number];

function Row({ filing: f }: { filing: Filing }) {
  const link = href("filing", { number: f.initial_financing_number, state: f.jurisdiction_state });
  const status = f.estimated_lien_status;
  return (
    <tr>
      <th scope="row" data-label="Filing">
        <a href={link}>{f.initial_financing_number}</a> <span class="state">{f.jurisdiction_state}</span>
        {f.filing_kind !== "standard" && <small class="kind">{FILING_KIND_LABELS[f.filing_kind]}</small>}
      </th>
      <td data-label="Filed" class="date">
        {day(f.initial_financing_date)}
      </td>
      <td data-label="Status" class={`status status-${status.toLowerCase()}`}>
        {status}
      </td>
      <td data-label="Lapse date" class="date">
        {f.estimated_lien_lapse_date ?? "Does not lapse"}
      </td>
      <td data-label="Debtors">{f.involved_parties.debtor_parties.map((p) => p.name).join("; ")}</td>
      <td data-label="Secured parties">
        <ul class="in-cell">
          {f.involved_parties.secured_parties.map((p, i) => (
            <li key={String(i)}>
              {p.name} <span class="meta">({SECURED_PARTY_KIND_LABELS[p.kind]})</span>
            </li>
          ))}
        </ul>
      </td>
      <td data-label="Collateral">
        {f.collateral_categories.map((c) => COLLATERAL_CATEGORY_LABELS[c]).join("; ") ||
          (f.collateral === null ? "Not given" : "")}
      </td>
      <td data-label="VINs" class="vins">
        {f.vins.join(" ")}
      </td>
    </tr>
  );
}

export function ReportTable({ caption, filings }: { caption: string; filings: Filing[] }) {
  return (
    <table class="liens report-filings">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Filing</th>
          <th scope="col">Filed</th>
          <th scope="col">Status</th>
          <th scope="col">Lapse date</th>
          <th scope="col">Debtors</th>
          <th scope="col">Secured parties (kind)</th>
          <th scope="col">Collateral</th>
          <th scope="col">VINs</th>
        </tr>
      </thead>
      <tbody>
        {filings.map((f) => (
          <Row key={filingKey(f)} filing={f} />
        ))}
      </tbody>
    </table>
  );
}
