/**
 * The form at the top of each view: its fields become the view's URL
 * parameters (a new search starts at page 1) and the key is saved for the
 * tab. Sent with Enter from any field, as forms are.
 */
import type { Child } from "hono/jsx";
import { saveKey } from "./key.ts";
import { navigate } from "./navigate.ts";
import { formParams } from "./parts.tsx";
import { href, type View } from "./route.ts";

export function ViewForm(props: { view: View; label: string; button: string; children: Child }) {
  const submit = (event: Event) => {
    event.preventDefault();
    const { key, params } = formParams(event.currentTarget as HTMLFormElement);
    saveKey(key);
    navigate(href(props.view, params));
  };
  return (
    <form class="view-form" aria-label={props.label} onSubmit={submit}>
      {props.children}
      <p class="actions">
        <button type="submit">{props.button}</button>
      </p>
    </form>
  );
}
