/**
 * The lien report's summary, counted by the API over every matched filing
 * (not the page): how many are live, of what kind, on what collateral and
 * for whom; how fast filings arrive (a stack of funding-company filings in
 * the last 90 days is the warning sign); which filing is first in line and
 * when the next one lapses.
 */
import type { Report } from "./api.ts";
import { COLLATERAL_CATEGORY_LABELS, count, day, FILING_KIND_LABELS, SECURED_PARTY_KIND_LABELS } from "./format.ts";
import { href } from "./route.ts";

type Summary = Report["summary"];

/** "Label 3; Other 1" for the counts above zero, in the API's order; `none` when every count is zero. */
function nonZero<K extends string>(counts: Record<K, number>, labels: Record<K, string>, none: string): string {
  const shown = (Object.entries(counts) as [K, number][]).filter(([, n]) => n > 0);
  return shown.length === 0 ? none : shown.map(([k, n]) => `${labels[k]} ${n.toLocaleString("en-US")}`).join("; ");
}

function FirstActive({ first }: { first: Summary["first_active_filing"] }) {
  if (first === null) return <>None</>;
  const link = href("filing", { number: first.initial_financing_number, state: first.jurisdiction_state });
  return (
    <>
      <a href={link}>{first.initial_financing_number}</a> <span class="state">{first.jurisdiction_state}</span>, filed{" "}
      {day(first.initial_financing_date)}
      {first.secured_parties.length === 0
        ? "; secured party: None recorded"
        : `, for ${first.secured_parties.map((p) => `${p.name} (${SECURED_PARTY_KIND_LABELS[p.kind]})`).join("; ")}`}
    </>
  );
}

export function ReportSummary({ summary: s }: { summary: Summary }) {
  return (
    <section class="report-summary" aria-labelledby="report-summary-title">
      <h2 id="report-summary-title">Summary</h2>
      <dl class="facts">
        <dt>Filings</dt>
        <dd>
          {count(s.filings, "filing")}: {s.active.toLocaleString("en-US")} active, {s.lapsed.toLocaleString("en-US")}{" "}
          lapsed, {s.terminated.toLocaleString("en-US")} terminated
        </dd>
        <dt>Active by kind</dt>
        <dd>{nonZero(s.active_by_kind, FILING_KIND_LABELS, "None")}</dd>
        <dt>Blanket liens</dt>
        <dd>{count(s.blanket_liens, "active filing")} on all assets</dd>
        <dt>Collateral of active filings</dt>
        <dd>{nonZero(s.collateral_categories, COLLATERAL_CATEGORY_LABELS, "None described")}</dd>
        <dt>Filed recently</dt>
        <dd>
          {s.filed_last_30_days.toLocaleString("en-US")} in the last 30 days,{" "}
          {s.filed_last_90_days.toLocaleString("en-US")} in 90, {s.filed_last_180_days.toLocaleString("en-US")} in 180
        </dd>
        <dt>Funding-company filings</dt>
        <dd>{s.funding_company_filings_last_90_days.toLocaleString("en-US")} in the last 90 days</dd>
        <dt>First active filing</dt>
        <dd>
          <FirstActive first={s.first_active_filing} />
        </dd>
        <dt>Next lapse date</dt>
        <dd>{s.next_lapse_date ?? "None: no active filing lapses"}</dd>
      </dl>
      {s.active_secured_parties.length > 0 && (
        <>
          <h3 id="report-lenders-title">Secured parties on active filings</h3>
          <table class="report-lenders" aria-labelledby="report-lenders-title">
            <thead>
              <tr>
                <th scope="col">Secured party</th>
                <th scope="col">Kind</th>
                <th scope="col" class="number">
                  Active filings
                </th>
              </tr>
            </thead>
            <tbody>
              {s.active_secured_parties.map((p) => (
                <tr key={`${p.kind}/${p.name}`}>
                  <th scope="row" data-label="Secured party">
                    {p.name}
                  </th>
                  <td data-label="Kind">{SECURED_PARTY_KIND_LABELS[p.kind]}</td>
                  <td data-label="Active filings" class="number">
                    {p.filings.toLocaleString("en-US")}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}
