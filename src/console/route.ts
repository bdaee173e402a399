/**
 * Where the console is: a view and its parameters, kept in the URL's
 * fragment (`#/filing?number=…&state=…`). So every result is a link the
 * browser's Back, a new tab and a bookmark understand, and no request
 * reaches the server for it. The API key never goes here: it is not part
 * of a view, and a fragment ends up in history and in shared links.
 */

const VIEWS = [
  "search",
  "report",
  "similar",
  "filing",
  "addresses",
  "associated",
  "lender",
  "recent",
  "lapsing",
  "changes",
] as const;
export type View = (typeof VIEWS)[number];

export interface Route {
  view: View;
  params: URLSearchParams;
}

/** The route a fragment names; anything else is the empty search. */
export function parseRoute(hash: string): Route {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  const view = VIEWS.find((v) => v === path) ?? "search";
  return { view, params: new URLSearchParams(query) };
}

/** The fragment of a view with `params`; empty values are left out, as the API counts them absent. */
export function href(view: View, params: Record<string, string | undefined> | URLSearchParams = {}): string {
  const entries = params instanceof URLSearchParams ? [...params] : Object.entries(params);
  const kept = new URLSearchParams();
  for (const [name, value] of entries) if (value !== undefined && value !== "") kept.append(name, value);
  const query = kept.toString();
  return `#/${view}${query ? `?${query}` : ""}`;
}

/** The same view and parameters, with `cursor` set (or, when undefined, removed). */
export function withCursor(route: Route, cursor: string | undefined): string {
  const params = new URLSearchParams(route.params);
  params.delete("cursor");
  if (cursor !== undefined) params.set("cursor", cursor);
  return href(route.view, params);
}
