/**
 * The lien report (`GET /debtors/report`): a debtor's filings in every state
 * searched, or the states listed, under the header that says what was
 * searched and how current each state's records are, and the summary an
 * underwriter decides from; the filings page by page. Laid out to be
 * printed (console.css's print rules), as a report is handed on on paper.
 */
import { useEffect } from "hono/jsx/dom";
import { call } from "./api.ts";
import { count } from "./format.ts";
import { KeyField, Loading, Pager, ProblemNotice, ResultsHeading, TextField } from "./parts.tsx";
import { ReportHeader } from "./ReportHeader.tsx";
import { ReportSummary } from "./ReportSummary.tsx";
import { ReportTable } from "./ReportTable.tsx";
import type { Route } from "./route.ts";
import { useAnswer } from "./useAnswer.ts";
import { ViewForm } from "./ViewForm.tsx";

export function ReportView({ route, version }: { route: Route; version: string }) {
  const name = route.params.get("name") ?? "";
  const states = route.params.get("state") ?? "";
  const cursor = route.params.get("cursor") ?? undefined;
  const answer = useAnswer(`${route.params}|${version}`, (signal) =>
    name ? call("/debtors/report", { name, state: states, cursor }, signal) : null,
  );
  const done = answer.phase === "done";
  // The borrower in the title: a printed or saved report is named after it.
  useEffect(() => {
    if (done) document.title = `Lien report on ${name} · Lien Filing Lookup`;
  }, [done, name]);

  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Lien report
      </h1>
      <ViewForm view="report" label="Lien report" button="Make report">
        <KeyField />
        <TextField id="report-name" name="name" label="Debtor name" value={name} required />
        <TextField
          id="report-states"
          name="state"
          label="States"
          value={states}
          note="Blank for every state; or codes separated by commas, such as CA,NY."
        />
      </ViewForm>
      <section class="results">
        {answer.phase === "loading" && <Loading what={`filings of “${name}”`} />}
        {answer.phase === "failed" && <ProblemNotice problem={answer.problem} />}
        {answer.phase === "done" && (
          <>
            <ReportHeader report={answer.body.report} summary={answer.body.summary} />
            {answer.body.summary.filings > 0 && <ReportSummary summary={answer.body.summary} />}
            {answer.body.filings.length > 0 && (
              <section aria-labelledby="report-filings-title">
                <ResultsHeading id="report-filings-title">Filings, oldest first</ResultsHeading>
                <ReportTable caption={`Filings of ${name}, oldest first`} filings={answer.body.filings} />
                <Pager
                  route={route}
                  next={answer.body.next_cursor}
                  where={`${count(answer.body.filings.length, "filing")} on this page, of ${answer.body.summary.filings.toLocaleString("en-US")}`}
                />
              </section>
            )}
          </>
        )}
      </section>
    </>
  );
}
