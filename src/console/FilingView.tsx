/**
 * One filing, from the public lookup (GET /filings, which needs no key):
 * what it is and where it stands, its timeline, its parties with their
 * addresses (and, one click away, each debtor's other filings, known
 * addresses and co-borrowers), collateral, every amendment, and the
 * filing office's own search page.
 */
import { call, type LienFull } from "./api.ts";
import { AMENDMENT_KIND_LABELS, addressLine, day, FILING_KIND_LABELS, today } from "./format.ts";
import { Loading, ProblemNotice, To } from "./parts.tsx";
import type { Route } from "./route.ts";
import { Timeline } from "./Timeline.tsx";
import { factsOf } from "./timeline.ts";
import { useAnswer } from "./useAnswer.ts";

type Party = LienFull["involved_parties"]["debtor_parties"][number];

function Address({ party }: { party: Party }) {
  return (
    <p class="address">
      {addressLine(party.address)}
      {party.address.maps_url && (
        <>
          {" "}
          <a href={party.address.maps_url} rel="noopener noreferrer" target="_blank">
            Map<span class="visually-hidden"> of this address (opens a new tab)</span>
          </a>
        </>
      )}
    </p>
  );
}

function Debtors({ lien }: { lien: LienFull }) {
  const state = lien.jurisdiction_state;
  return (
    <section aria-labelledby="debtors-heading">
      <h2 id="debtors-heading">Debtors</h2>
      <ul class="parties">
        {lien.involved_parties.debtor_parties.map((p) => (
          <li key={`${p.name}/${addressLine(p.address)}`}>
            <p class="party-name">
              <span>{p.name}</span>{" "}
              <span class="meta">{p.type === p.category ? p.type : `${p.type}, ${p.category}`}</span>
            </p>
            <Address party={p} />
            <p class="more">
              <To view="search" params={{ name: p.name, state }}>
                All filings in {state}
              </To>{" "}
              ·{" "}
              <To view="addresses" params={{ name: p.name }}>
                Known addresses
              </To>{" "}
              ·{" "}
              <To view="associated" params={{ name: p.name, state }}>
                Co-borrowers in {state}
              </To>
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SecuredParties({ lien }: { lien: LienFull }) {
  const state = lien.jurisdiction_state;
  return (
    <section aria-labelledby="secureds-heading">
      <h2 id="secureds-heading">Secured parties</h2>
      {lien.involved_parties.secured_parties.length === 0 && <p>None recorded.</p>}
      <ul class="parties">
        {lien.involved_parties.secured_parties.map((p) => (
          <li key={`${p.name}/${addressLine(p.address)}`}>
            <p class="party-name">
              <span>{p.name}</span> <span class="meta">{p.category}</span>
            </p>
            <Address party={p} />
            <p class="more">
              <To view="lender" params={{ name: p.name, state }}>
                This lender's recent filings in {state}
              </To>
            </p>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Amendments({ lien }: { lien: LienFull }) {
  return (
    <section aria-labelledby="amendments-heading">
      <h2 id="amendments-heading">Amendments</h2>
      {lien.amendments.length === 0 ? (
        <p>None: the filing stands as first filed.</p>
      ) : (
        <table class="amendments">
          <caption>Amendments of filing {lien.initial_financing_number}, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Kind</th>
              <th scope="col">Date</th>
              <th scope="col">As the office describes it</th>
              <th scope="col">Lapse date given</th>
              <th scope="col">Collateral</th>
            </tr>
          </thead>
          <tbody>
            {[...lien.amendments]
              .sort((a, b) => (a.amendment_financing_date < b.amendment_financing_date ? -1 : 1))
              .map((a) => (
                <tr key={a.amendment_financing_number}>
                  <th scope="row" data-label="Number">
                    {a.amendment_financing_number}
                  </th>
                  <td data-label="Kind">{AMENDMENT_KIND_LABELS[a.amendment_kind]}</td>
                  <td data-label="Date">{day(a.amendment_financing_date)}</td>
                  <td data-label="Description">{a.amendment_financing_type_description}</td>
                  <td data-label="Lapse date given">{a.amendment_lapse_date ?? ""}</td>
                  <td data-label="Collateral">{a.amendment_collateral ?? ""}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Filing({ lien }: { lien: LienFull }) {
  const lapse = lien.estimated_lien_lapse_date;
  return (
    <article class="filing" aria-labelledby="view-title">
      <dl class="facts">
        <dt>Status</dt>
        <dd class={`status status-${lien.estimated_lien_status.toLowerCase()}`}>{lien.estimated_lien_status}</dd>
        <dt>Kind</dt>
        <dd>{FILING_KIND_LABELS[lien.filing_kind]}</dd>
        <dt>Filed</dt>
        <dd>{day(lien.initial_financing_date)}</dd>
        <dt>Lapse date</dt>
        <dd>
          {lapse === null
            ? "Does not lapse"
            : `${lapse} (${lien.lapse_date_source === "office" ? "given by the filing office" : "estimated from the filing's kind and continuations"})`}
        </dd>
        <dt>Filing office</dt>
        <dd>{lien.filing_office ?? "Not named in the office's data"}</dd>
        <dt>Office's own search</dt>
        <dd>
          <a href={lien.search_url} rel="noopener noreferrer" target="_blank">
            {lien.jurisdiction_state} filing office search<span class="visually-hidden"> (opens a new tab)</span>
          </a>
        </dd>
      </dl>
      <Timeline facts={factsOf(lien, today())} />
      <Debtors lien={lien} />
      <SecuredParties lien={lien} />
      <section aria-labelledby="collateral-heading">
        <h2 id="collateral-heading">Collateral</h2>
        <p class="collateral">{lien.collateral ?? "The filing office's data gives no collateral text."}</p>
      </section>
      <Amendments lien={lien} />
    </article>
  );
}

/** The heading stays one element while the filing loads, so focus given to it on arrival stays. */
export function FilingView({ route, version }: { route: Route; version: string }) {
  const number = route.params.get("number") ?? "";
  const state = route.params.get("state") ?? undefined;
  const answer = useAnswer(`${route.params}|${version}`, (signal) =>
    number ? call("/filings", { initial_financing_number: number, state }, signal) : null,
  );
  const liens = answer.phase === "done" ? answer.body.ucc_liens : [];
  const only = liens.length === 1 ? liens[0] : undefined;
  const shownState = only?.jurisdiction_state ?? state;
  return (
    <>
      <h1 id="view-title" tabindex={-1}>
        {number ? `Filing ${number}` : "No filing number given"}
        {shownState && <span class="state"> {shownState}</span>}
      </h1>
      {answer.phase === "loading" && <Loading what={`filing ${number}`} />}
      {answer.phase === "failed" && <ProblemNotice problem={answer.problem} />}
      {only && <Filing lien={only} />}
      {answer.phase === "done" && liens.length === 0 && (
        <p role="status">
          No filing has the number {number}
          {state ? ` in ${state}` : ""}.
        </p>
      )}
      {liens.length > 1 && (
        <ul>
          {liens.map((l) => (
            <li key={l.jurisdiction_state}>
              <To view="filing" params={{ number, state: l.jurisdiction_state }}>
                {number} in {l.jurisdiction_state}
              </To>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
