/**
 * The link check of `npm run lint` (scripts/checkLinks.ts), on pages the
 * test writes to a directory of its own: what it reports, and what it lets
 * through. Its examples name pages that do not exist here, so the check
 * leaves this file out (check-links: ignore-file).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkLinks, slug } from "../../scripts/checkLinks.ts";

let root: string | undefined;

afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** Writes the files (path to text) under a fresh directory and checks them all. */
function check(files: Record<string, string>) {
  root = mkdtempSync(join(tmpdir(), "lien-links-"));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return checkLinks(root, Object.keys(files)).map((p) => `${p.file}:${p.line}: ${p.message}`);
}

const PAGE = `# Loading a file

## Exit status: 0, 1 or 3

## What is rejected, what is kept

## Notes

## Notes
`;

describe("the link check", () => {
  it("makes anchors as GitHub does", () => {
    expect(slug("Exit status: 0, 1 or 3")).toBe("exit-status-0-1-or-3");
    expect(slug("Offices' open registers")).toBe("offices-open-registers");
    expect(slug("GET /filings/changes")).toBe("get-filingschanges");
    expect(slug("The `debtor_name` filter")).toBe("the-debtor_name-filter");
  });

  it("passes links to files, folders and headings that exist, and links it does not check", () => {
    const problems = check({
      "docs/loading.md": PAGE,
      "docs/sources/ct.md": "# Connecticut\n",
      "README.md": [
        "[loading](docs/loading.md), [its status](docs/loading.md#exit-status-0-1-or-3),",
        "[kept](docs/loading.md#what-is-rejected-what-is-kept), [the second notes](docs/loading.md#notes-1),",
        "[sources](docs/sources/), [Connecticut](<docs/sources/ct.md>), [up](#loading-a-file),",
        "[the web](https://example.org/missing.md#nowhere), [mail](mailto:ops@example.org).",
        "",
        "# Loading a file",
        "",
        "```md",
        "[inside a code block](docs/missing.md)",
        "```",
        "",
        'and `[in a code span](docs/missing.md)`; docs/loading.md, "Notes" names a heading.',
      ].join("\n"),
      "src/route.ts": '// docs/loading.md, "What is rejected, what is kept"\n',
    });
    expect(problems).toEqual([]);
  });

  it("reports a link to a missing file and to a missing heading, with their lines", () => {
    const problems = check({
      "docs/loading.md": PAGE,
      "docs/README.md": [
        "# Map",
        "",
        "- [pulls](pulls.md): how a register is pulled",
        "- [status](loading.md#exit-codes) and [the first notes](loading.md#notes),",
        "  [a heading of this page](#mapp)",
      ].join("\n"),
    });
    expect(problems).toEqual([
      'docs/README.md:3: link "pulls.md": no such file: docs/pulls.md',
      'docs/README.md:4: link "loading.md#exit-codes": no heading "#exit-codes" in docs/loading.md',
      'docs/README.md:5: link "#mapp": no heading "#mapp" in docs/README.md',
    ]);
  });

  it("reports a page under docs/ that the map, docs/README.md, does not list", () => {
    const problems = check({
      "docs/README.md": "# The docs\n\n| page | question |\n| --- | --- |\n| [loading.md](loading.md#notes) | How? |\n",
      "docs/loading.md": PAGE,
      "docs/feeds/pulls.md": "# Pulls\n",
    });
    expect(problems).toEqual(["docs/README.md:1: does not list docs/feeds/pulls.md"]);
  });

  it("leaves out a file that asks to be left out", () => {
    expect(check({ "notes.md": "[gone](gone.md) (check-links: ignore-file)\n" })).toEqual([]);
  });

  it("reports a docs page named in plain text that is gone, or a heading quoted after it", () => {
    const problems = check({
      "docs/loading.md": PAGE,
      "src/feed.ts": "/**\n * The columns, in the order of docs/data-feeds.md's table.\n */\n",
      "wrangler.toml": '# Logs (docs/loading.md, "Logs").\n',
    });
    expect(problems).toEqual([
      "src/feed.ts:2: names docs/data-feeds.md: no such file",
      'wrangler.toml:1: names docs/loading.md, "Logs": no such heading there',
    ]);
  });
});
