/**
 * The console (/console) in a real browser: Debian's chromium, driven by
 * playwright-core, against `wrangler dev` over the seeded data
 * (test/node/devWorker.ts) serving the console built from src/console now
 * (scripts/browser.ts). Each step is done as a person does it (typing,
 * clicking, the keyboard), checked for what the page says, for axe-core's
 * serious and critical accessibility violations and for errors in the
 * browser's console, and photographed into test-results/console/ (which CI
 * keeps; gitignored), with the lien report's printout as a PDF.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import type { ConsoleMessage, Page, Route } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Browser, consoleAssets, launchChromium } from "../../scripts/browser.ts";
import { type DevWorker, LOCAL_DEV_KEY, startDevWorker } from "./devWorker.ts";
import { pdfPageTexts } from "./pdfText.ts";

const SHOTS = join("test-results", "console");

/** A seeded debtor with 25 filings in CA (five pages), and a misspelling of it that matches nothing exactly. */
const DEBTOR = { name: "Harbor Manufacturing Inc", state: "CA" };
const MISSPELT = "Harbour Manufacturing";
/** A seeded debtor with filings in four states (AR, CA, FL, MO), 28 in all: a lien report of two pages. */
const REPORTED = "Summit Tool & Equipment Corp.";
/** The width a page prints at: A4 (the narrower of A4 and Letter) less the stylesheet's 1.5 cm margins, in CSS px. */
const PRINTED_WIDTH = 680;

let worker: DevWorker;
let assets: { dir: string; remove(): void };
let browser: Browser;
let page: Page;
/** Errors the browser's console showed during the current test. */
let errors: ConsoleMessage[] = [];
/** A failed request the step provokes on purpose (the bad key's 401), which the browser notes as an error. */
let expectedFailure: RegExp | undefined;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The browser first: on a machine without chromium the file fails at once,
  // not after a minute of building and serving the seeded Worker.
  browser = await launchChromium();
  assets = await consoleAssets();
  worker = await startDevWorker(["--assets", assets.dir]);
  page = await browser.context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message);
  });
  page.on("pageerror", (error) => {
    errors.push({ type: () => "error", text: () => error.message, location: () => ({ url: "" }) } as ConsoleMessage);
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  assets?.remove();
}, 60_000);

afterEach(() => {
  const unexpected = errors.filter(
    (m) => !(expectedFailure && /status of 401/.test(m.text()) && expectedFailure.test(m.location().url)),
  );
  errors = [];
  expectedFailure = undefined;
  expect(unexpected.map((m) => `${m.text()} (${m.location().url})`)).toEqual([]);
});

/** A photograph of the step, and axe-core's check of the page as it stands. */
async function step(name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)).toEqual([]);
}

async function search(key: string, name: string, state: string): Promise<void> {
  await page.goto(`${worker.base}/console`);
  await page.getByLabel("API key").fill(key);
  await page.getByLabel("Debtor name").fill(name);
  await page.getByLabel("State", { exact: true }).selectOption(state);
  await page.getByRole("button", { name: "Search" }).click();
}

/** The filing numbers of the results table, in order. */
async function resultNumbers(): Promise<string[]> {
  return page.locator("table.liens tbody th a").allTextContents();
}

/** A view opened by its fragment, the key saved as a sent form saves it. */
async function openView(fragment: string): Promise<void> {
  await page.goto(`${worker.base}/console`);
  await page.evaluate(`sessionStorage.setItem("lien-console:api-key", ${JSON.stringify(LOCAL_DEV_KEY)})`);
  await page.goto(`${worker.base}/console${fragment}`);
}

/** The element with keyboard focus, as "TAG text". */
const focusedElement = () =>
  page.evaluate<string>(`(document.activeElement?.tagName ?? "") + " " + (document.activeElement?.textContent ?? "")`);

/** The API's own answer, for choosing what to open and checking what the page shows. */
async function api<T>(path: string): Promise<T> {
  const res = await fetch(`${worker.base}${path}`, { headers: { "x-api-key": LOCAL_DEV_KEY } });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

interface Filing {
  initial_financing_number: string;
  jurisdiction_state: string;
  estimated_lien_lapse_date: string | null;
  involved_parties: { debtor_parties: { name: string }[]; secured_parties: { name: string }[] };
  amendments: { amendment_financing_number: string; amendment_financing_date: string }[];
}

interface ReportBody {
  report: { states: { state: string; records_through: string | null; filings: number }[] };
  summary: {
    filings: number;
    active: number;
    lapsed: number;
    terminated: number;
    active_secured_parties: { name: string; filings: number }[];
    first_active_filing: { initial_financing_number: string } | null;
    next_lapse_date: string | null;
  };
  filings: { initial_financing_number: string; collateral_categories: string[] }[];
}

/** Text with its white space taken out: a PDF draws words apart, without the spaces between them. */
const squash = (text: string) => text.replace(/\s+/g, "");

// Each step waits on a browser and a dev server sharing two cores with other work.
describe("the console, in chromium", { timeout: 60_000 }, () => {
  it("serves its page under a policy without inline script or eval", async () => {
    const res = await page.goto(`${worker.base}/console`);
    const policy = res?.headers()["content-security-policy"] ?? "";
    expect(policy).toContain("script-src 'self'");
    expect(policy).not.toContain("unsafe");
    await expect.poll(() => page.getByRole("heading", { name: "Debtor search" }).isVisible()).toBe(true);
    await step("01-start");
  });

  it("says in words that a bad key was refused, and shows no result", async () => {
    expectedFailure = /\/debtors\/search\?/;
    await search("not-a-key", DEBTOR.name, DEBTOR.state);
    const alert = page.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("The service refused this API key.");
    expect(await page.locator("table.liens").count()).toBe(0);
    await step("02-bad-key");
  });

  it("finds a debtor's filings by exact name, with status and lapse dates, and pages by the API's cursor", async () => {
    await search(LOCAL_DEV_KEY, DEBTOR.name, DEBTOR.state);
    const rows = page.locator("table.liens tbody tr");
    await expect.poll(() => rows.count()).toBe(5);
    // Status and lapse date arrive from each filing's own lookup.
    await expect.poll(() => page.getByText("Looking up…").count()).toBe(0);
    const first = await resultNumbers();
    const expected = await api<{ ucc_liens: Filing[] }>(
      `/debtors/search?name=${encodeURIComponent(DEBTOR.name)}&state=${DEBTOR.state}`,
    );
    expect(first).toEqual(expected.ucc_liens.map((l) => l.initial_financing_number));
    for (const row of await rows.all()) {
      expect(await row.locator('td[data-label="Status"]').textContent()).toMatch(/^(Active|Lapsed|Terminated)$/);
      expect(await row.locator('td[data-label="Lapse date"]').textContent()).toMatch(
        /^\d{4}-\d{2}-\d{2}$|^Does not lapse$/,
      );
    }
    expect(await page.getByRole("status").first().textContent()).toContain("25 filings");
    await step("03-search");

    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.getByText("Page 2 of 5").count()).toBe(1);
    const second = await resultNumbers();
    expect(second).toHaveLength(5);
    expect(second.filter((n) => first.includes(n))).toEqual([]);
    await step("04-search-page-2");
  });

  it("opens a filing: its parties, amendments, lapse date and timeline", async () => {
    // The filing of the debtor's first page with the most amendments.
    await search(LOCAL_DEV_KEY, DEBTOR.name, DEBTOR.state);
    await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
    const filings = await Promise.all(
      (await resultNumbers()).map(async (n) => {
        const body = await api<{ ucc_liens: Filing[] }>(`/filings?initial_financing_number=${n}&state=${DEBTOR.state}`);
        return body.ucc_liens[0] as Filing;
      }),
    );
    const filing = filings.reduce((a, b) => (b.amendments.length > a.amendments.length ? b : a));
    expect(filing.amendments.length).toBeGreaterThan(0);
    const number = filing.initial_financing_number;

    await page.getByRole("link", { name: number, exact: true }).click();
    const timeline = page.getByRole("img", { name: `Timeline of filing ${number}` });
    await expect.poll(() => timeline.isVisible()).toBe(true);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toContain(`Filing ${number}`);
    const main = page.locator("main");
    for (const party of [...filing.involved_parties.debtor_parties, ...filing.involved_parties.secured_parties]) {
      expect(await main.getByText(party.name, { exact: true }).count(), party.name).toBeGreaterThan(0);
    }
    const amendments = page.locator("table.amendments tbody tr");
    expect(await amendments.count()).toBe(filing.amendments.length);
    for (const a of filing.amendments) {
      const row = amendments.filter({ hasText: a.amendment_financing_number });
      expect(await row.locator('td[data-label="Date"]').textContent()).toBe(a.amendment_financing_date.slice(0, 10));
    }
    if (filing.estimated_lien_lapse_date) {
      expect(await page.locator(".facts").textContent()).toContain(filing.estimated_lien_lapse_date);
    }
    // One mark per amendment on the picture, and the same facts as text beside it.
    expect(await timeline.locator(".mark").count()).toBe(filing.amendments.length);
    const facts = page.getByRole("list", { name: `Events of filing ${number}` });
    for (const a of filing.amendments) expect(await facts.textContent()).toContain(a.amendment_financing_number);
    await step("05-filing");

    // The debtor's addresses and co-borrowers are one click away.
    await page.getByRole("link", { name: "Known addresses" }).first().click();
    await expect.poll(() => page.locator("ul.addresses li").count()).toBeGreaterThan(0);
    await step("06-known-addresses");
    await page.goBack();
    await page
      .getByRole("link", { name: /^Co-borrowers in / })
      .first()
      .click();
    await expect.poll(() => page.getByRole("heading", { level: 2 }).first().textContent()).toContain("Named with");
    await step("07-co-borrowers");
  });

  it("offers the right similar name for a misspelt one, one click from its filings", async () => {
    await search(LOCAL_DEV_KEY, MISSPELT, DEBTOR.state);
    await expect.poll(() => page.getByRole("heading", { level: 2 }).first().textContent()).toContain("No filing names");
    const suggestion = page.locator("ul.similar a").first();
    await expect.poll(() => suggestion.textContent()).toBe("The Harbor Manufacturing Inc.");
    await step("08-similar");
    await suggestion.click();
    await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
    await expect.poll(() => page.getByText("Looking up…").count()).toBe(0);
  });

  it("lists a lender's recent filings, a state's recent filings by industry, filings lapsing soon and the latest changes", async () => {
    const lists: [string, string, string, () => Promise<void>][] = [
      [
        "lender",
        "Lender's filings",
        "Lender's recent filings",
        async () => {
          await page.getByLabel("Lender name").fill("wells fargo");
          await page.getByLabel("State", { exact: true }).selectOption("CA");
        },
      ],
      [
        "recent",
        "Recent by industry",
        "Recent filings by industry",
        async () => {
          await page.getByLabel("State", { exact: true }).selectOption("CA");
          await page.getByLabel("Manufacturing", { exact: true }).check();
        },
      ],
      [
        "lapsing",
        "Lapsing soon",
        "Filings lapsing soon",
        async () => {
          await page.getByLabel("State", { exact: true }).selectOption("CA");
        },
      ],
    ];
    await page.goto(`${worker.base}/console`);
    for (const [view, nav, form, fill] of lists) {
      await page.getByRole("link", { name: nav }).click();
      // The view's own form first: the one before it, shown until the view changes, has a State too.
      await page.getByRole("form", { name: form }).waitFor();
      await fill();
      await page.locator("form button[type=submit]").click();
      await expect.poll(() => page.locator("table.liens tbody tr").count(), { message: view }).toBeGreaterThan(0);
      await expect.poll(() => page.getByRole("link", { name: "Next page" }).count(), { message: view }).toBe(1);
      await step(`09-list-${view}`);
    }
    await page.getByRole("link", { name: "Latest changes" }).click();
    await page.getByRole("form", { name: "Latest changes" }).waitFor();
    await page.getByLabel("State", { exact: true }).selectOption("CA");
    await page.locator("form button[type=submit]").click();
    await expect.poll(() => page.getByRole("heading", { name: "Changes, oldest first" }).count()).toBe(1);
    await step("09-list-changes");
  });

  it("works with the keyboard alone, and on a phone-width screen", async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`${worker.base}/console`);
    await expect.poll(() => page.getByLabel("API key").isVisible()).toBe(true);
    const focused = () => page.evaluate<string>(`document.activeElement?.id ?? ""`);
    for (let i = 0; i < 20 && (await focused()) !== "api-key"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toBe("api-key");
    await page.keyboard.insertText(LOCAL_DEV_KEY);
    await page.keyboard.press("Tab");
    await page.keyboard.insertText(DEBTOR.name);
    await page.keyboard.press("Tab");
    await page.keyboard.type(DEBTOR.state);
    await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toBe("Search");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
    await expect.poll(() => page.getByText("Looking up…").count()).toBe(0);
    // Nothing wider than the screen.
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await step("10-phone-search");

    // Tab to the first filing and open it with Enter: focus lands on its heading.
    const number = (await resultNumbers())[0] ?? "";
    for (let i = 0; i < 30 && (await page.evaluate<string>("document.activeElement?.textContent")) !== number; i++) {
      await page.keyboard.press("Tab");
    }
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate<string>("document.activeElement?.id")).toBe("view-title");
    expect(await page.evaluate<string>("document.activeElement?.textContent")).toContain(number);
    await expect.poll(() => page.getByRole("img", { name: `Timeline of filing ${number}` }).isVisible()).toBe(true);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await step("11-phone-filing");
    await page.emulateMedia({ media: "print" });
    await page.screenshot({ path: join(SHOTS, "12-print-filing.png"), fullPage: true });
    await page.emulateMedia({ media: "screen" });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it("reaches the lien report of a debtor's name from its filings in one click", async () => {
    await search(LOCAL_DEV_KEY, REPORTED, "FL");
    await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
    await expect.poll(() => page.getByText("Looking up…").count()).toBe(0);
    await page
      .getByRole("main")
      .getByRole("link", { name: `Lien report on “${REPORTED}” in every state` })
      .click();
    await expect.poll(() => page.evaluate<string>("document.activeElement?.textContent")).toBe("Lien report");
    const title = page.getByRole("heading", { level: 2, name: `Lien report on “${REPORTED}”` });
    await expect.poll(() => title.count()).toBe(1);
    expect(await page.getByLabel("Debtor name").inputValue()).toBe(REPORTED);
    expect(await page.getByLabel("States").inputValue()).toBe("");
  });

  it("makes a lien report over every state: its header, summary and filings, paged by cursor, and prints it", async () => {
    await page.goto(`${worker.base}/console`);
    await page.getByRole("link", { name: "Lien report", exact: true }).click();
    await page.getByRole("form", { name: "Lien report" }).waitFor();
    await page.getByLabel("API key").fill(LOCAL_DEV_KEY);
    await page.getByLabel("Debtor name").fill(REPORTED);
    await page.getByLabel("States").fill("");
    await page.getByRole("button", { name: "Make report" }).click();
    const expected = await api<ReportBody>(`/debtors/report?name=${encodeURIComponent(REPORTED)}`);
    const rows = page.locator("table.report-filings tbody tr");
    await expect.poll(() => rows.count()).toBe(expected.filings.length);

    // The header: every state searched, each with its count and the date its records run through.
    const header = (await page.locator(".report-header").textContent()) ?? "";
    const found = expected.report.states.filter((s) => s.filings > 0);
    expect(found.length).toBeGreaterThan(1);
    for (const s of found) {
      expect(header).toContain(`${s.state} ${s.filings} filings, records through ${s.records_through}`);
    }
    // The search logic links to the API reference's section on matching, on this origin.
    const logic = page.locator(".report-header").getByRole("link", { name: "How names match" });
    expect(await logic.getAttribute("href")).toBe("/docs#/Debtors/searchDebtorFilings");
    expect((await fetch(new URL("/docs", worker.base))).status).toBe(200);
    // The states without filings, by the date their records run through ("2026-11-28: CO, CT, …").
    const dates = new Map(
      (await page.locator(".report-dates li").allTextContents()).map((line) => {
        const [date = "", codes = ""] = line.split(": ");
        return [date, codes.split(", ")];
      }),
    );
    for (const s of expected.report.states.filter((s) => s.filings === 0)) {
      expect(dates.get(s.records_through ?? "No records held"), s.state).toContain(s.state);
    }
    const summary = (await page.locator(".report-summary").textContent()) ?? "";
    const { filings, active, lapsed, terminated } = expected.summary;
    expect(summary).toContain(`${filings} filings: ${active} active, ${lapsed} lapsed, ${terminated} terminated`);
    expect(summary).toContain(expected.summary.first_active_filing?.initial_financing_number ?? "None");
    expect(summary).toContain(expected.summary.next_lapse_date ?? "None");
    const lenders = page.locator("table.report-lenders tbody tr");
    expect(await lenders.count()).toBe(expected.summary.active_secured_parties.length);
    const top = expected.summary.active_secured_parties[0];
    expect(await lenders.first().locator("th").textContent()).toBe(top?.name);
    expect(await lenders.first().locator('td[data-label="Kind"]').textContent()).not.toBe("");
    expect(await lenders.first().locator('td[data-label="Active filings"]').textContent()).toBe(String(top?.filings));
    // The filings in the API's order, lenders with their kinds, collateral by category.
    const first = await page.locator("table.report-filings tbody th a").allTextContents();
    expect(first).toEqual(expected.filings.map((f) => f.initial_financing_number));
    expect(await rows.locator('td[data-label="Secured parties"]').first().textContent()).toMatch(/\(.+\)$/);
    const categorized = expected.filings.findIndex((f) => f.collateral_categories.includes("all_assets"));
    expect(categorized).toBeGreaterThanOrEqual(0);
    expect(await rows.nth(categorized).locator('td[data-label="Collateral"]').textContent()).toContain("All assets");

    // On paper: no form or navigation, nothing wider than the page, the header on the first page, every filing whole.
    await page.setViewportSize({ width: PRINTED_WIDTH, height: 900 });
    await page.emulateMedia({ media: "print" });
    expect(await page.locator("form").isVisible()).toBe(false);
    expect(await page.getByRole("navigation").filter({ visible: true }).count()).toBe(0);
    expect(await page.locator(".report-header").isVisible()).toBe(true);
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PRINTED_WIDTH);
    const pdf = await page.pdf({ format: "A4" });
    writeFileSync(join(SHOTS, "13-print-report.pdf"), pdf);
    const pages = pdfPageTexts(pdf).map(squash);
    expect(pages[0]).toContain(squash(`Lien report on “${REPORTED}”`));
    for (const s of found) {
      expect(pages[0]).toContain(squash(`${s.state} ${s.filings} filings, records through ${s.records_through}`));
    }
    for (const number of first) expect(pages.join("")).toContain(number);
    await page.emulateMedia({ media: "screen" });
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => rows.count()).toBe(filings - first.length);
    const second = await page.locator("table.report-filings tbody th a").allTextContents();
    expect(second.filter((n) => first.includes(n))).toEqual([]);
    expect(await page.locator(".report-header").textContent()).toBe(header);
    // Photographed and checked by axe-core here, on the shorter second page: the same parts as the first (whose
    // printout is kept as the PDF), in half the time of its 25 rows.
    await step("14-report-page-2");
  });

  it("fills in the status and lapse date of each of a state's recent filings, which that list's answer leaves out", async () => {
    await openView("#/recent?state=CA&industry=Manufacturing");
    const rows = page.locator("table.liens tbody tr");
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    await expect.poll(() => page.getByText("Looking up…").count()).toBe(0);
    for (const row of await rows.all()) {
      expect(await row.locator('td[data-label="Status"]').textContent()).toMatch(/^(Active|Lapsed|Terminated)$/);
    }
  });

  it("pages similar names, and links the search's first page of them to the rest", async () => {
    const { pagination } = await api<{ pagination: { total_pages: number; total_results: number } }>(
      "/debtors/search-similar?name=Harbor&state=CA",
    );
    expect(pagination.total_pages).toBeGreaterThan(1);
    await search(LOCAL_DEV_KEY, "Harbor", "CA");
    const names = page.locator("ul.similar li > a");
    await expect.poll(() => names.count()).toBeGreaterThan(0);
    const first = await names.allTextContents();
    await page
      .getByRole("link", { name: `All ${pagination.total_results.toLocaleString("en-US")} similar names in CA` })
      .click();
    await expect.poll(() => page.getByText(`Page 1 of ${pagination.total_pages}`).count()).toBe(1);
    expect(await names.allTextContents()).toEqual(first);
    await page.getByRole("link", { name: "Next page" }).click();
    await expect.poll(() => page.getByText(`Page 2 of ${pagination.total_pages}`).count()).toBe(1);
    const second = await names.allTextContents();
    expect(second.length).toBeGreaterThan(0);
    expect(second.filter((n) => first.includes(n))).toEqual([]);
    await step("08-similar-page-2");
  });

  it("moves keyboard focus to the list's heading when a page is turned with the keyboard", async () => {
    await search(LOCAL_DEV_KEY, DEBTOR.name, DEBTOR.state);
    await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
    await page.getByRole("link", { name: "Next page" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByText("Page 2 of 5").count()).toBe(1);
    await expect.poll(focusedElement).toBe(`H2 Filings of “${DEBTOR.name}” in ${DEBTOR.state}`);

    // The similar names' heading stays while the next page loads: it takes focus all the same.
    await openView("#/similar?name=Harbor&state=CA");
    await page.getByRole("link", { name: "Next page" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.getByText(/^Page 2 of/).count()).toBe(1);
    await expect.poll(focusedElement).toBe("H2 Names like “Harbor” in CA");

    await openView("#/changes?state=CA&limit=5");
    await page.getByRole("button", { name: "Next changes" }).focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => page.evaluate<string>("location.hash")).toContain("cursor=");
    await expect.poll(focusedElement).toBe("H2 Changes, oldest first");
  });

  it("says “None recorded” for a filing, or a report's first active filing, without a secured party", async () => {
    // The seeded filings all have secured parties: the answers are emptied of them on their way to the page.
    const emptied = async <T>(route: Route, empty: (body: T) => void) => {
      const response = await route.fetch();
      const body = (await response.json()) as T;
      empty(body);
      await route.fulfill({ response, json: body });
    };
    await page.route(/\/filings\?initial_financing_number=/, (route) =>
      emptied<{ ucc_liens: Filing[] }>(route, (body) => {
        for (const lien of body.ucc_liens) lien.involved_parties.secured_parties = [];
      }),
    );
    await page.route(/\/debtors\/report\?/, (route) =>
      emptied<{ summary: { first_active_filing: { secured_parties: unknown[] } } }>(route, (body) => {
        body.summary.first_active_filing.secured_parties = [];
      }),
    );
    try {
      await search(LOCAL_DEV_KEY, DEBTOR.name, DEBTOR.state);
      await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
      await page.locator("table.liens tbody th a").first().click();
      const secureds = page.getByRole("region", { name: "Secured parties" });
      await expect.poll(() => secureds.textContent()).toBe("Secured partiesNone recorded.");

      await openView(`#/report?name=${encodeURIComponent(REPORTED)}`);
      const first = page
        .locator(".report-summary dt", { hasText: "First active filing" })
        .locator("xpath=following-sibling::dd[1]");
      await expect.poll(() => first.textContent()).toMatch(/; secured party: None recorded$/);
    } finally {
      await page.unrouteAll();
    }
  });

  it("wraps a long name within a phone's width, and counts addresses in plain English", async () => {
    const long = "Supercalifragilisticexpialidociousmanufacturingandholdingscompanyincorporated";
    await page.setViewportSize({ width: 375, height: 812 });
    try {
      // The debtor's filings answered for the long name, so its links (".more") quote it too.
      await page.route(/\/debtors\/search\?name=Super/, async (route) => {
        const url = new URL(route.request().url());
        url.searchParams.set("name", DEBTOR.name);
        await route.fulfill({ response: await route.fetch({ url: url.toString() }) });
      });
      await search(LOCAL_DEV_KEY, long, DEBTOR.state);
      await expect.poll(() => page.locator("table.liens tbody tr").count()).toBe(5);
      await expect.poll(() => page.getByText("Looking up…").count()).toBe(0);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      await page.unrouteAll();
      await search(LOCAL_DEV_KEY, long, DEBTOR.state);
      await expect.poll(() => page.getByRole("heading", { level: 2 }).first().textContent()).toContain("No filing");
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    } finally {
      await page.unrouteAll();
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await openView(`#/addresses?name=${encodeURIComponent(DEBTOR.name)}`);
    const status = page.locator("section.results [role=status]");
    await expect.poll(() => status.textContent()).toMatch(/^\d+ address(es)?, most recently used first\.$/);
  });
});
