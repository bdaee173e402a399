/**
 * The latest changes (the change feed, GET /filings/changes): what each
 * load changed, oldest first, resumed by the feed's cursor. The feed always
 * hands out a cursor; `has_more` says whether more changes are ready now,
 * and an empty page says (Retry-After) how long to wait before asking again.
 */
import { CHANGE_TYPES } from "../domain/kinds.ts";
import { call } from "./api.ts";
import { AMENDMENT_KIND_LABELS, day } from "./format.ts";
import { navigate } from "./navigate.ts";
import { KeyField, Loading, ProblemNotice, ResultsHeading, StateField, TextField, To, turnPage } from "./parts.tsx";
import { type Route, withCursor } from "./route.ts";
import { useAnswer } from "./useAnswer.ts";
import { ViewForm } from "./ViewForm.tsx";

function TypesField({ value }: { value: string }) {
  const chosen = new Set(value.split(","));
  return (
    <fieldset class="choices">
      <legend>Change types (none checked: all)</legend>
      {CHANGE_TYPES.map((type, i) => (
        <label key={type} for={`type-${i}`}>
          <input id={`type-${i}`} type="checkbox" name="types" value={type} checked={chosen.has(type)} />
          {type}
        </label>
      ))}
    </fieldset>
  );
}

export function ChangesView({ route, version }: { route: Route; version: string }) {
  const p = Object.fromEntries(route.params);
  const asked = route.params.size > 0;
  const answer = useAnswer(`${route.params}|${version}`, (signal) =>
    asked
      ? call(
          "/filings/changes",
          {
            state: p.state,
            cursor: p.cursor,
            since: p.cursor ? undefined : p.since,
            types: p.types,
            debtor_name: p.debtor_name,
            secured_party: p.secured_party,
            limit: p.limit ?? "25",
          },
          signal,
        )
      : null,
  );
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Latest changes
      </h1>
      <ViewForm view="changes" label="Latest changes" button="Show changes">
        <KeyField />
        <StateField id="changes-state" value={p.state ?? ""} optional />
        <TextField
          id="changes-since"
          name="since"
          label="Recorded since"
          value={p.since ?? ""}
          note="A time with its zone, such as 2026-11-01T00:00:00Z. Default: the oldest change kept."
        />
        <TypesField value={p.types ?? ""} />
        <TextField id="changes-debtor" name="debtor_name" label="Debtor name" value={p.debtor_name ?? ""} />
        <TextField id="changes-lender" name="secured_party" label="Secured party" value={p.secured_party ?? ""} />
        <TextField
          id="changes-limit"
          name="limit"
          type="number"
          label="Changes per page"
          value={p.limit ?? "25"}
          required
          note="1 to 100."
        />
      </ViewForm>
      <section class="results">
        {answer.phase === "loading" && <Loading what="changes" />}
        {answer.phase === "failed" && <ProblemNotice problem={answer.problem} />}
        {answer.phase === "done" && (
          <>
            <ResultsHeading>Changes, oldest first</ResultsHeading>
            {answer.body.changes.length === 0 ? (
              <p role="status">
                No changes {p.cursor ? "since the last page" : "kept for this filter"}.
                {answer.retryAfter !== undefined && ` The feed suggests asking again in ${answer.retryAfter} seconds.`}
              </p>
            ) : (
              <table class="changes">
                <caption>Changes to filings, oldest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Recorded</th>
                    <th scope="col">Change</th>
                    <th scope="col">Filing</th>
                    <th scope="col">Occurred</th>
                    <th scope="col">Amendment</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.body.changes.map((c) => (
                    <tr key={c.id}>
                      <td data-label="Recorded">{c.recorded_at.replace("T", " ").replace("Z", " UTC")}</td>
                      <th scope="row" data-label="Change">
                        {c.type}
                      </th>
                      <td data-label="Filing">
                        <To view="filing" params={{ number: c.initial_financing_number, state: c.jurisdiction_state }}>
                          {c.initial_financing_number}
                        </To>{" "}
                        <span class="state">{c.jurisdiction_state}</span>
                      </td>
                      <td data-label="Occurred">{day(c.occurred_at)}</td>
                      <td data-label="Amendment">
                        {c.amendment
                          ? `${AMENDMENT_KIND_LABELS[c.amendment.amendment_kind]} ${c.amendment.amendment_financing_number}`
                          : (c.changed_fields?.join(", ") ?? "")}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            <nav class="pager" aria-label="Pages">
              {/* The feed's cursor stays put while nothing new is ready: the same URL, so asked again as a reload. */}
              <button
                type="button"
                onClick={() => {
                  const next = withCursor(route, answer.body.response_metadata.next_cursor);
                  turnPage(next);
                  navigate(next);
                }}
              >
                {answer.body.response_metadata.has_more ? "Next changes" : "Check for newer changes"}
              </button>
            </nav>
          </>
        )}
      </section>
    </>
  );
}
