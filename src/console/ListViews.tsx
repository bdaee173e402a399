/**
 * The lists an underwriter works from, each with the API's own filters and
 * paged by its cursors: a lender's recent filings in a state, a state's
 * recent filings by debtor industry, and filings lapsing soon.
 */
import { call, type LienA, type LienPageA, type LienPageB, type Outcome, type Params, type Path } from "./api.ts";
import { LienTable } from "./LienTable.tsx";
import {
  IndustryField,
  KeyField,
  Loading,
  Pager,
  ProblemNotice,
  ResultsHeading,
  StateField,
  TextField,
} from "./parts.tsx";
import type { Route } from "./route.ts";
import { useAnswer } from "./useAnswer.ts";
import { useLookups } from "./useLookups.ts";
import { ViewForm } from "./ViewForm.tsx";

/** A page of filings in either envelope, its pager reading whichever it is. */
function LienList(props: {
  route: Route;
  version: string;
  path: Path & ("/secureds/recent-by-secured-party" | "/filings/recent-by-state" | "/filings/lapsing");
  params: Params;
  ready: boolean;
  title: string;
}) {
  const answer = useAnswer<LienPageA | LienPageB>(`${props.route.params}|${props.version}`, (signal) =>
    props.ready
      ? (call(
          props.path,
          { ...props.params, cursor: props.route.params.get("cursor") ?? undefined },
          signal,
        ) as Promise<Outcome<LienPageA | LienPageB>>)
      : null,
  );
  // Envelope A (recent by state) carries no status or lapse date: each row's come from its filing's lookup.
  const lookups = useLookups(
    answer.phase === "done"
      ? answer.body.ucc_liens.filter((l): l is LienA => !("estimated_lien_status" in l))
      : undefined,
  );
  if (answer.phase === "loading") return <Loading what={props.title.toLowerCase()} />;
  if (answer.phase === "failed") return <ProblemNotice problem={answer.problem} />;
  if (answer.phase !== "done") return null;
  const page = answer.body;
  const [next, where] =
    "pagination" in page
      ? [
          page.pagination.next_cursor,
          `Page ${page.pagination.current_page} of ${page.pagination.total_pages} (${page.pagination.total_results.toLocaleString("en-US")} filings)`,
        ]
      : [page.response_metadata.next_cursor, `Page ${page.response_metadata.page}`];
  return (
    <section class="results">
      <ResultsHeading>{props.title}</ResultsHeading>
      {page.ucc_liens.length === 0 ? (
        <p role="status">No filing matches.</p>
      ) : (
        <>
          <p class="meta" role="status">
            {where}
          </p>
          <LienTable caption={props.title} liens={page.ucc_liens} lookups={lookups} />
          <Pager route={props.route} next={next} where={where} />
        </>
      )}
    </section>
  );
}

export function LenderView({ route, version }: { route: Route; version: string }) {
  const p = Object.fromEntries(route.params);
  const borrower = p.borrower_type ?? "";
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        A lender's recent filings
      </h1>
      <ViewForm view="lender" label="Lender's recent filings" button="List filings">
        <KeyField />
        <TextField
          id="lender-name"
          name="name"
          label="Lender name"
          value={p.name ?? ""}
          required
          note="Whole leading words, any case: “wells fargo” finds WELLS FARGO BANK, N.A."
        />
        <StateField id="lender-state" value={p.state ?? ""} />
        <p class="field">
          <label for="lender-borrower">Borrower type</label>
          <select id="lender-borrower" name="borrower_type">
            <option value="" selected={borrower === ""}>
              Any
            </option>
            <option value="Organization" selected={borrower === "Organization"}>
              Organization
            </option>
            <option value="Individual" selected={borrower === "Individual"}>
              Individual
            </option>
          </select>
        </p>
      </ViewForm>
      <LienList
        route={route}
        version={version}
        path="/secureds/recent-by-secured-party"
        params={{ name: p.name, state: p.state, borrower_type: p.borrower_type }}
        ready={Boolean(p.name && p.state)}
        title={`Filings of the last 90 days by “${p.name ?? ""}” in ${p.state ?? ""}`}
      />
    </>
  );
}

export function RecentView({ route, version }: { route: Route; version: string }) {
  const p = Object.fromEntries(route.params);
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Recent filings by industry
      </h1>
      <ViewForm view="recent" label="Recent filings by industry" button="List filings">
        <KeyField />
        <StateField id="recent-state" value={p.state ?? ""} />
        <IndustryField value={p.industry ?? ""} />
      </ViewForm>
      <LienList
        route={route}
        version={version}
        path="/filings/recent-by-state"
        params={{ state: p.state, industry: p.industry }}
        ready={Boolean(p.state)}
        title={`Filings of the last 90 days in ${p.state ?? ""}${p.industry ? `, debtors in ${p.industry.split(",").join(", ")}` : ""}`}
      />
    </>
  );
}

export function LapsingView({ route, version }: { route: Route; version: string }) {
  const p = Object.fromEntries(route.params);
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        Filings lapsing soon
      </h1>
      <ViewForm view="lapsing" label="Filings lapsing soon" button="List filings">
        <KeyField />
        <StateField id="lapsing-state" value={p.state ?? ""} />
        <TextField
          id="lapsing-from"
          name="from"
          type="date"
          label="Lapsing from"
          value={p.from ?? ""}
          note="Default: today."
        />
        <TextField
          id="lapsing-to"
          name="to"
          type="date"
          label="Lapsing to"
          value={p.to ?? ""}
          note="Default: 180 days after the first date."
        />
        <TextField id="lapsing-lender" name="secured_party" label="Secured party" value={p.secured_party ?? ""} />
        <IndustryField value={p.industry ?? ""} />
      </ViewForm>
      <LienList
        route={route}
        version={version}
        path="/filings/lapsing"
        params={{ state: p.state, from: p.from, to: p.to, secured_party: p.secured_party, industry: p.industry }}
        ready={Boolean(p.state)}
        title={`Live filings in ${p.state ?? ""} lapsing ${p.from ? `from ${p.from}` : "from today"}${p.to ? ` to ${p.to}` : ""}, soonest first`}
      />
    </>
  );
}
