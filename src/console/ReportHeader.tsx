/**
 * The lien report's header: what was searched, when, and how current the
 * answer is in each state searched. States with filings are listed one by
 * one; the others (often most of the 56) by the date their records run
 * through, latest first, so a state whose records lag stands out and the
 * header fits the first printed page.
 */
import type { Report } from "./api.ts";
import { count } from "./format.ts";

type Header = Report["report"];
type State = Header["states"][number];

/** "2026-11-29 03:48:24 UTC" from the API's ISO time. */
const when = (stamp: string) => `${stamp.slice(0, 10)} ${stamp.slice(11, 19)} UTC`;

/** States' codes by the date their records run through, latest first; states with no records last (null). */
function byDate(states: State[]): [string | null, string[]][] {
  const groups = new Map<string | null, string[]>();
  for (const s of states) groups.set(s.records_through, [...(groups.get(s.records_through) ?? []), s.state]);
  return [...groups].sort(([a], [b]) => (a === b ? 0 : a === null ? 1 : b === null ? -1 : b.localeCompare(a)));
}

export function ReportHeader({ report, summary }: { report: Header; summary: Report["summary"] }) {
  const found = report.states.filter((s) => s.filings > 0);
  const empty = report.states.filter((s) => s.filings === 0);
  return (
    <section class="report-header" aria-labelledby="report-title">
      <h2 id="report-title">Lien report on “{report.name}”</h2>
      <p class="report-tally" role="status">
        {summary.filings === 0
          ? `No filing names “${report.name}” in the ${count(report.states.length, "state")} searched.`
          : `${count(summary.filings, "filing")} in ${found.length} of the ${count(report.states.length, "state")} searched; ${summary.active.toLocaleString("en-US")} active.`}
      </p>
      <dl class="facts">
        <dt>Generated</dt>
        <dd>{when(report.generated_at)}</dd>
        <dt>Report id</dt>
        <dd>
          <code>{report.id}</code>
        </dd>
        <dt>Names searched</dt>
        <dd>{report.name_searched.join("; ")}</dd>
        <dt>Search logic</dt>
        <dd>
          {report.search_logic.description} <a href={report.search_logic.url}>How names match</a>
        </dd>
      </dl>
      <h3>States searched</h3>
      {found.length > 0 && (
        <ul class="report-states">
          {found.map((s) => (
            <li key={s.state}>
              <strong>{s.state}</strong> {count(s.filings, "filing")},{" "}
              {s.records_through ? `records through ${s.records_through}` : "no records held"}
            </li>
          ))}
        </ul>
      )}
      {empty.length > 0 && (
        <>
          <p>
            {found.length > 0 ? `No filings in the other ${count(empty.length, "state")}` : "No filings in any"}, whose
            records run through:
          </p>
          <ul class="report-dates">
            {byDate(empty).map(([date, codes]) => (
              <li key={date ?? "none"}>
                <strong>{date ?? "No records held"}</strong>: {codes.join(", ")}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
