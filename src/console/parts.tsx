/**
 * Pieces every view uses: the form fields (the API key, a state, the
 * industries), the problem notice, the loading line and the pager.
 */
import type { Child } from "hono/jsx";
import { useEffect, useRef } from "hono/jsx/dom";
import { INDUSTRIES } from "../domain/industries.ts";
import { STATE_CODES } from "../domain/states.ts";
import { savedKey } from "./key.ts";
import type { Problem } from "./problems.ts";
import { href, type Route, type View, withCursor } from "./route.ts";

/** The API key field; its value is saved (sessionStorage) when its form is sent. */
export function KeyField() {
  return (
    <p class="field">
      <label for="api-key">API key</label>
      <input
        id="api-key"
        name="key"
        type="password"
        autocomplete="off"
        spellcheck={false}
        required
        value={savedKey()}
        aria-describedby="api-key-note"
      />
      <small id="api-key-note">Kept in this tab only; sent to this service alone.</small>
    </p>
  );
}

export function TextField(props: {
  id: string;
  name: string;
  label: string;
  value: string | null;
  required?: boolean;
  type?: string;
  note?: string;
}) {
  return (
    <p class="field">
      <label for={props.id}>{props.label}</label>
      <input
        id={props.id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        required={props.required ?? false}
        autocomplete="off"
        aria-describedby={props.note ? `${props.id}-note` : undefined}
      />
      {props.note && <small id={`${props.id}-note`}>{props.note}</small>}
    </p>
  );
}

/** A state (or territory) by its two-letter code; `optional` adds "Every state". */
export function StateField({ id, value, optional }: { id: string; value: string | null; optional?: boolean }) {
  const chosen = (value ?? "").toUpperCase();
  return (
    <p class="field">
      <label for={id}>State</label>
      <select id={id} name="state" required={!optional}>
        <option value="" selected={chosen === ""}>
          {optional ? "Every state" : "Choose a state"}
        </option>
        {STATE_CODES.map((code) => (
          <option key={code} value={code} selected={code === chosen}>
            {code}
          </option>
        ))}
      </select>
    </p>
  );
}

/** The 15 industries as checkboxes: none checked is no filter. */
export function IndustryField({ value }: { value: string | null }) {
  const chosen = new Set((value ?? "").split(",").map((i) => i.trim().toLowerCase()));
  return (
    <fieldset class="choices">
      <legend>Debtor industries (none checked: all)</legend>
      {INDUSTRIES.map((industry, i) => (
        <label key={industry} for={`industry-${i}`}>
          <input
            id={`industry-${i}`}
            type="checkbox"
            name="industry"
            value={industry}
            checked={chosen.has(industry.toLowerCase())}
          />
          {industry}
        </label>
      ))}
    </fieldset>
  );
}

/** A failed call, said in words; announced to screen readers as it appears. */
export function ProblemNotice({ problem }: { problem: Problem }) {
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{problem.title}</strong> {problem.detail}
      </p>
      {problem.requestId && (
        <p class="request-id">
          Request id <code>{problem.requestId}</code>
        </p>
      )}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" role="status">
      Looking up {what}…
    </p>
  );
}

/** The fragment of a page just turned to, whose results heading takes focus when it shows. */
let turnedTo: string | null = null;

/**
 * Turns a list's page: the pager goes while the next page loads, taking
 * keyboard focus with it, so the next page's heading (ResultsHeading) takes it.
 */
export function turnPage(to: string): void {
  turnedTo = to;
}

/** A list's heading, focused when it shows the page the person turned to. */
export function ResultsHeading(props: { id?: string; children: Child }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (turnedTo === null || turnedTo !== location.hash) return;
    turnedTo = null;
    heading.current?.focus();
  }, []);
  return (
    <h2 id={props.id} tabindex={-1} ref={heading}>
      {props.children}
    </h2>
  );
}

/** Where a list is and the way on: the next page by the API's cursor; Back (the browser's) returns. */
export function Pager(props: { route: Route; next: string | undefined; where: string }) {
  const first = withCursor(props.route, undefined);
  const next = props.next === undefined ? undefined : withCursor(props.route, props.next);
  return (
    <nav class="pager" aria-label="Pages">
      <span>{props.where}</span>
      {props.route.params.has("cursor") && (
        <a href={first} onClick={() => turnPage(first)}>
          First page
        </a>
      )}
      {next !== undefined && (
        <a href={next} rel="next" onClick={() => turnPage(next)}>
          Next page
        </a>
      )}
    </nav>
  );
}

/** A link to another view of the console. */
export function To(props: { view: View; params: Record<string, string | undefined>; children: Child }) {
  return <a href={href(props.view, props.params)}>{props.children}</a>;
}

/** The values of a form, as the route's parameters (the key apart: it is saved, never put in the URL). */
export function formParams(form: HTMLFormElement): { key: string; params: Record<string, string> } {
  const data = new FormData(form);
  const params: Record<string, string> = {};
  for (const [name, value] of data) {
    if (name === "key" || typeof value !== "string") continue;
    const trimmed = value.trim();
    if (!trimmed) continue;
    // Repeated names (checkboxes) are the API's comma lists.
    params[name] = params[name] ? `${params[name]},${trimmed}` : trimmed;
  }
  return { key: String(data.get("key") ?? "").trim(), params };
}
