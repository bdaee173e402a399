/**
 * A debtor beyond one filing: similar names in every state, the addresses
 * it has filed under, and its co-borrowers in a state. Each links on to
 * the debtor search, so a name found here is one click from its filings.
 */
import { call } from "./api.ts";
import { addressLine, count } from "./format.ts";
import { KeyField, Loading, Pager, ProblemNotice, ResultsHeading, StateField, TextField, To } from "./parts.tsx";
import type { Route } from "./route.ts";
import { SimilarNames } from "./SearchView.tsx";
import { useAnswer } from "./useAnswer.ts";
import { ViewForm } from "./ViewForm.tsx";

export function SimilarView({ route, version }: { route: Route; version: string }) {
  const name = route.params.get("name") ?? "";
  const state = route.params.get("state") ?? undefined;
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Similar debtor names
      </h1>
      <ViewForm view="similar" label="Similar names" button="Find similar names">
        <KeyField />
        <TextField id="similar-name" name="name" label="Debtor name" value={name} required />
        <StateField id="similar-state" value={state ?? ""} optional />
      </ViewForm>
      {name && (
        <section class="results">
          {/* Keyed by the page: it stays while the names load, and is new (so takes focus) for each page turned to. */}
          <ResultsHeading key={route.params.get("cursor") ?? ""}>
            Names like “{name}” {state ? `in ${state}` : "in every state"}
          </ResultsHeading>
          <SimilarNames name={name} state={state} route={route} version={version} />
        </section>
      )}
    </>
  );
}

export function AddressesView({ route, version }: { route: Route; version: string }) {
  const name = route.params.get("name") ?? "";
  const cursor = route.params.get("cursor") ?? undefined;
  const answer = useAnswer(`${route.params}|${version}`, (signal) =>
    name ? call("/debtors/addresses", { name, cursor }, signal) : null,
  );
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Known addresses
      </h1>
      <ViewForm view="addresses" label="Known addresses" button="Show addresses">
        <KeyField />
        <TextField id="addresses-name" name="name" label="Debtor name" value={name} required />
      </ViewForm>
      <section class="results">
        {answer.phase === "loading" && <Loading what={`addresses of “${name}”`} />}
        {answer.phase === "failed" && <ProblemNotice problem={answer.problem} />}
        {answer.phase === "done" && (
          <>
            <ResultsHeading>Addresses “{name}” has filed under, in any state</ResultsHeading>
            <p class="meta" role="status">
              {count(answer.body.pagination.total_results, "address", "addresses")}, most recently used first.
            </p>
            <ul class="addresses">
              {answer.body.addresses.map((a) => (
                <li key={addressLine(a)}>{addressLine(a)}</li>
              ))}
            </ul>
            <Pager
              route={route}
              next={answer.body.pagination.next_cursor}
              where={`Page ${answer.body.pagination.current_page} of ${answer.body.pagination.total_pages}`}
            />
          </>
        )}
      </section>
    </>
  );
}

export function AssociatedView({ route, version }: { route: Route; version: string }) {
  const name = route.params.get("name") ?? "";
  const state = route.params.get("state") ?? "";
  const cursor = route.params.get("cursor") ?? undefined;
  const answer = useAnswer(`${route.params}|${version}`, (signal) =>
    name && state ? call("/debtors/associated/", { name, state, cursor }, signal) : null,
  );
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Co-borrowers
      </h1>
      <ViewForm view="associated" label="Co-borrowers" button="Show co-borrowers">
        <KeyField />
        <TextField id="associated-name" name="name" label="Debtor name" value={name} required />
        <StateField id="associated-state" value={state} />
      </ViewForm>
      <section class="results">
        {answer.phase === "loading" && <Loading what={`co-borrowers of “${name}”`} />}
        {answer.phase === "failed" && <ProblemNotice problem={answer.problem} />}
        {answer.phase === "done" && (
          <>
            <ResultsHeading>
              Named with “{name}” on its filings in {state}
            </ResultsHeading>
            <p class="meta" role="status">
              {count(answer.body.pagination.total_results, "co-borrower")}, most recently filed first.
            </p>
            <ul class="parties">
              {answer.body.associated_debtors.map((d) => {
                const a = d.address;
                const line = addressLine({
                  street1: a.street_address_1,
                  street2: a.street_address_2,
                  city: a.city,
                  state: a.state,
                  zip_code: a.postal_code,
                });
                return (
                  <li key={`${d.debtor_name}/${line}`}>
                    <p class="party-name">
                      <To view="search" params={{ name: d.debtor_name, state }}>
                        {d.debtor_name}
                      </To>
                    </p>
                    <p class="address">{line}</p>
                  </li>
                );
              })}
            </ul>
            <Pager
              route={route}
              next={answer.body.pagination.next_cursor}
              where={`Page ${answer.body.pagination.current_page} of ${answer.body.pagination.total_pages}`}
            />
          </>
        )}
      </section>
    </>
  );
}
