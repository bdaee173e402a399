/**
 * The debtor search: a name and a state, the debtor's filings by exact
 * name (UCC standard search logic, as the API matches), page by page; and
 * when the name finds nothing, the similar names the API suggests, each a
 * link to its own filings.
 */
import { call } from "./api.ts";
import { count } from "./format.ts";
import { LienTable } from "./LienTable.tsx";
import { KeyField, Loading, Pager, ProblemNotice, ResultsHeading, StateField, TextField, To } from "./parts.tsx";
import type { Route } from "./route.ts";
import { useAnswer } from "./useAnswer.ts";
import { useLookups } from "./useLookups.ts";
import { ViewForm } from "./ViewForm.tsx";

/**
 * Similar names, each one click from its filings. In the similar view
 * (`route` given) they are paged by the API's cursor; elsewhere (the
 * search's "no exact match" panel) the first page shows, and a link leads
 * to the similar view for the rest.
 */
export function SimilarNames(props: { name: string; state?: string; version: string; route?: Route }) {
  const params = { name: props.name, state: props.state, cursor: props.route?.params.get("cursor") ?? undefined };
  const answer = useAnswer(`${JSON.stringify(params)}|${props.version}`, (signal) =>
    call("/debtors/search-similar", params, signal),
  );
  if (answer.phase === "loading") return <Loading what="similar names" />;
  if (answer.phase === "failed") return <ProblemNotice problem={answer.problem} />;
  if (answer.phase !== "done") return null;
  const names = answer.body.similar_debtors;
  if (names.length === 0) {
    return <p>No similar debtor name {props.state ? `in ${props.state}` : "in any state"} either.</p>;
  }
  const { current_page, total_pages, total_results, next_cursor } = answer.body.pagination;
  const where = `Page ${current_page} of ${total_pages}`;
  return (
    <>
      <ul class="similar">
        {names.map((d) => (
          <li key={`${d.debtor_state}/${d.debtor_name}`}>
            <To view="search" params={{ name: d.debtor_name, state: d.debtor_state }}>
              {d.debtor_name}
            </To>{" "}
            <span class="meta">
              {d.debtor_state}, {count(d.filing_count, "filing")}, similarity {d.score.toFixed(2)}
            </span>
          </li>
        ))}
      </ul>
      {props.route ? (
        <Pager route={props.route} next={next_cursor} where={where} />
      ) : (
        total_pages > 1 && (
          <p>
            <To view="similar" params={{ name: props.name, state: props.state }}>
              All {count(total_results, "similar name")}
              {props.state ? ` in ${props.state}` : ""}
            </To>{" "}
            <span class="meta">({where})</span>
          </p>
        )
      )}
    </>
  );
}

/** The name's lien report in every state: the search looks in one state, a report in all of them. */
function ReportLink({ name }: { name: string }) {
  return (
    <To view="report" params={{ name }}>
      Lien report on “{name}” in every state
    </To>
  );
}

export function SearchView({ route, version }: { route: Route; version: string }) {
  const name = route.params.get("name") ?? "";
  const state = route.params.get("state") ?? "";
  const cursor = route.params.get("cursor") ?? undefined;
  const answer = useAnswer(`${route.params}|${version}`, (signal) =>
    name && state ? call("/debtors/search", { name, state, cursor }, signal) : null,
  );
  const liens = answer.phase === "done" ? answer.body.ucc_liens : undefined;
  const lookups = useLookups(liens);

  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Debtor search
      </h1>
      <ViewForm view="search" label="Debtor search" button="Search">
        <KeyField />
        <TextField id="debtor-name" name="name" label="Debtor name" value={name} required />
        <StateField id="debtor-state" value={state} />
      </ViewForm>
      <section class="results">
        {answer.phase === "loading" && <Loading what={`filings of “${name}” in ${state}`} />}
        {answer.phase === "failed" && <ProblemNotice problem={answer.problem} />}
        {answer.phase === "done" && liens && liens.length > 0 && (
          <>
            <ResultsHeading>
              Filings of “{name}” in {state}
            </ResultsHeading>
            <p class="meta" role="status">
              {count(answer.body.pagination.total_results, "filing")} by exact name. Open a filing for its parties,
              amendments and timeline.
            </p>
            <LienTable caption={`Filings of ${name} in ${state}`} liens={liens} lookups={lookups} />
            <Pager
              route={route}
              next={answer.body.pagination.next_cursor}
              where={`Page ${answer.body.pagination.current_page} of ${answer.body.pagination.total_pages}`}
            />
            <p class="more">
              <To view="addresses" params={{ name }}>
                Known addresses of “{name}”
              </To>{" "}
              ·{" "}
              <To view="associated" params={{ name, state }}>
                Co-borrowers in {state}
              </To>{" "}
              · <ReportLink name={name} />
            </p>
          </>
        )}
        {answer.phase === "done" && liens && liens.length === 0 && cursor !== undefined && (
          <p role="status">No more filings: this list has ended.</p>
        )}
        {answer.phase === "done" && liens && liens.length === 0 && cursor === undefined && (
          <>
            <h2>
              No filing names “{name}” in {state}
            </h2>
            <p role="status">
              No debtor matches the name exactly (case, punctuation and endings such as Inc or LLC aside). Similar names
              in {state}:
            </p>
            <SimilarNames name={name} state={state} version={version} />
            <p class="more">
              <To view="similar" params={{ name }}>
                Similar names in every state
              </To>{" "}
              · <ReportLink name={name} />
            </p>
          </>
        )}
      </section>
    </>
  );
}
