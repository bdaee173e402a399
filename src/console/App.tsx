/**
 * The console's frame: a skip button, the header with the views, and the view
 * the URL's fragment names. Following a link or sending a form changes the
 * fragment; the view then asks the API, and on arriving at another view
 * keyboard focus moves to its heading, so keyboard and screen-reader users
 * land on it; on turning a page, to the list's heading (parts.tsx,
 * ResultsHeading), as the pager it was on goes while the page loads.
 */
import { useEffect, useState } from "hono/jsx/dom";
import { ChangesView } from "./ChangesView.tsx";
import { AddressesView, AssociatedView, SimilarView } from "./DebtorViews.tsx";
import { FilingView } from "./FilingView.tsx";
import { LapsingView, LenderView, RecentView } from "./ListViews.tsx";
import { RELOAD_EVENT } from "./navigate.ts";
import { ReportView } from "./ReportView.tsx";
import { href, parseRoute, type Route, type View } from "./route.ts";
import { SearchView } from "./SearchView.tsx";

const NAV: [View, string][] = [
  ["search", "Debtor search"],
  ["report", "Lien report"],
  ["lender", "Lender's filings"],
  ["recent", "Recent by industry"],
  ["lapsing", "Lapsing soon"],
  ["changes", "Latest changes"],
];

/** The navigation entry a view belongs to (a filing or a debtor's pages sit under the search). */
const SECTION: Record<View, View> = {
  search: "search",
  report: "report",
  similar: "search",
  filing: "search",
  addresses: "search",
  associated: "search",
  lender: "lender",
  recent: "recent",
  lapsing: "lapsing",
  changes: "changes",
};

function Current({ route, version }: { route: Route; version: string }) {
  switch (route.view) {
    case "search":
      return <SearchView route={route} version={version} />;
    case "report":
      return <ReportView route={route} version={version} />;
    case "similar":
      return <SimilarView route={route} version={version} />;
    case "filing":
      return <FilingView route={route} version={version} />;
    case "addresses":
      return <AddressesView route={route} version={version} />;
    case "associated":
      return <AssociatedView route={route} version={version} />;
    case "lender":
      return <LenderView route={route} version={version} />;
    case "recent":
      return <RecentView route={route} version={version} />;
    case "lapsing":
      return <LapsingView route={route} version={version} />;
    case "changes":
      return <ChangesView route={route} version={version} />;
  }
}

export function App() {
  const [hash, setHash] = useState(location.hash);
  const [reloads, setReloads] = useState(0);
  useEffect(() => {
    const follow = () => setHash(location.hash);
    const reload = () => setReloads((n) => n + 1);
    window.addEventListener("hashchange", follow);
    window.addEventListener(RELOAD_EVENT, reload);
    return () => {
      window.removeEventListener("hashchange", follow);
      window.removeEventListener(RELOAD_EVENT, reload);
    };
  }, []);
  const route = parseRoute(hash);
  const [shown, setShown] = useState(route.view);
  useEffect(() => {
    // Arriving at another view: focus its heading. Within a view (a search sent) focus stays where the
    // person is, and the view's status line says what changed; a page turned focuses the list's heading.
    if (route.view !== shown) {
      setShown(route.view);
      document.getElementById("view-title")?.focus();
    }
    document.title = `${NAV.find(([v]) => v === SECTION[route.view])?.[1] ?? "Console"} · Lien Filing Lookup`;
  }, [hash]);

  return (
    <>
      <button class="skip" type="button" onClick={skipToMain}>
        Skip to the view
      </button>
      <header class="top">
        <p class="brand">Lien Filing Lookup console</p>
        <nav aria-label="Views">
          <ul>
            {NAV.map(([view, label]) => (
              <li key={view}>
                <a href={href(view)} aria-current={SECTION[route.view] === view ? "page" : undefined}>
                  {label}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" tabindex={-1}>
        <Current route={route} version={String(reloads)} />
      </main>
    </>
  );
}

/** A button, not a link to #main: the fragment names the view, so the skip only moves focus. */
function skipToMain() {
  document.getElementById("main")?.focus();
}
