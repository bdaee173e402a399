/**
 * Checks the repository's links (run by `npm run lint`):
 *
 * - every relative link of every Markdown file (`[text](path#anchor)`,
 *   `[id]: path`, `href="..."` and `src="..."`): the file or folder exists
 *   and, for a link to a Markdown file, the anchor names one of its headings
 *   as GitHub makes them (lower case, spaces to hyphens, punctuation
 *   dropped; a repeated heading gets -1, -2, ...);
 * - every path of a page under docs/ named in plain text, in any text file
 *   (`docs/api.md`, in a comment, a message or a description): the page
 *   exists, and a heading quoted after it (`docs/api.md, "Lien report"`)
 *   is one of its headings;
 * - the map of the docs, docs/README.md, links to every page under docs/.
 *
 * Files are those git tracks or would track (untracked files not ignored),
 * that exist; a file that carries the marker IGNORE_FILE (this check's own
 * test, whose examples name pages that do not exist) is left out. Code
 * blocks and code spans of Markdown are not read for links. Prints one
 * line per problem, `file:line: ...`; exit status 1 when there is any.
 *
 *   node scripts/checkLinks.ts [ROOT]
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join, relative, resolve, sep } from "node:path";

/** A broken link: where it is, and what is wrong. */
export interface LinkProblem {
  file: string;
  line: number;
  message: string;
}

/** What a file says to be left out of the check. */
const IGNORE_FILE = ["check-links", "ignore-file"].join(": ");

/** Text files whose plain-text mentions of docs/ pages are checked. */
const TEXT_EXTENSIONS = new Set([".md", ".ts", ".tsx", ".mjs", ".js", ".toml", ".sql", ".yaml", ".yml"]);

/** GitHub's anchor for a heading's text (github-slugger, without the duplicate suffix). */
export function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The text a heading shows: code spans' contents, links' texts, no emphasis markers or tags. */
function headingText(raw: string): string {
  return raw
    .replace(/\s+#+\s*$/, "")
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/`+([^`]*)`+/g, "$1")
    .replace(/\*+/g, "")
    .trim();
}

/** The text with fenced code blocks and code spans blanked out (line breaks kept, so offsets keep their lines). */
function withoutCode(text: string): string {
  const blank = (s: string) => s.replace(/[^\n]/g, " ");
  const lines = text.split("\n");
  let fence: string | undefined;
  const out = lines.map((line) => {
    const open = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence === undefined) {
      if (open) {
        fence = open[1]?.[0]?.repeat(open[1].length);
        return blank(line);
      }
      return line;
    }
    if (open?.[1]?.startsWith(fence) && /^\s{0,3}[`~]+\s*$/.test(line)) fence = undefined;
    return blank(line);
  });
  return out.join("\n").replace(/(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g, (m) => blank(m));
}

/** The anchors of a Markdown file's headings (and of explicit `id`/`name` anchors). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(text).split("\n")) {
    const heading = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const base = slug(headingText(heading[1] ?? ""));
      let anchor = base;
      let n = seen.get(base) ?? 0;
      while (anchors.has(anchor)) anchor = `${base}-${++n}`;
      seen.set(base, n);
      anchors.add(anchor);
    }
    for (const m of line.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) anchors.add(m[1] ?? "");
  }
  return anchors;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Every relative link target of a Markdown text, with its offset. */
function linkTargets(text: string): { target: string; index: number }[] {
  const prose = withoutCode(text);
  const found: { target: string; index: number }[] = [];
  const inline =
    /\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*(<[^>\n]*>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
  for (const m of prose.matchAll(inline)) found.push({ target: m[1] ?? "", index: m.index });
  for (const m of prose.matchAll(/^\s{0,3}\[[^\]\n]+\]:\s*(<[^>\n]*>|\S+)/gm))
    found.push({ target: m[1] ?? "", index: m.index });
  for (const m of prose.matchAll(/\b(?:href|src)="([^"]*)"/g)) found.push({ target: m[1] ?? "", index: m.index });
  return found
    .map(({ target, index }) => ({ target: target.replace(/^<|>$/g, ""), index }))
    .filter(({ target }) => target !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith("//"));
}

/** Checks `files` (paths relative to `root`) and returns what is broken. */
export function checkLinks(root: string, files: string[]): LinkProblem[] {
  const problems: LinkProblem[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    let set = anchorCache.get(path);
    if (!set) {
      set = anchorsOf(readFileSync(path, "utf8"));
      anchorCache.set(path, set);
    }
    return set;
  };
  const show = (path: string) => relative(root, path).split(sep).join("/");

  /** Checks one target (a decoded path, possibly empty, and an anchor) of a link in `self`, whose folder is `base`. */
  const check = (base: string, pathPart: string, anchor: string | undefined, self: string): string | undefined => {
    const target = pathPart === "" ? self : pathPart.startsWith("/") ? join(root, pathPart) : resolve(base, pathPart);
    if (!existsSync(target)) return `no such file: ${show(target)}`;
    if (anchor === undefined || anchor === "") return undefined;
    if (statSync(target).isDirectory() || extname(target).toLowerCase() !== ".md") return undefined;
    if (!anchors(target).has(anchor.toLowerCase())) return `no heading "#${anchor}" in ${show(target)}`;
    return undefined;
  };

  for (const file of files) {
    const path = join(root, file);
    const text = readFileSync(path, "utf8");
    if (text.includes(IGNORE_FILE)) continue;
    const report = (index: number, message: string) => problems.push({ file, line: lineAt(text, index), message });

    if (extname(file).toLowerCase() === ".md") {
      for (const { target, index } of linkTargets(text)) {
        const hash = target.indexOf("#");
        const rawPath = (hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, "");
        const rawAnchor = hash === -1 ? undefined : target.slice(hash + 1);
        let pathPart: string;
        let anchor: string | undefined;
        try {
          pathPart = decodeURI(rawPath);
          anchor = rawAnchor === undefined ? undefined : decodeURIComponent(rawAnchor);
        } catch {
          report(index, `link "${target}" is not a valid URL`);
          continue;
        }
        const problem = check(dirname(path), pathPart, anchor, path);
        if (problem) report(index, `link "${target}": ${problem}`);
      }
    }

    const plain = extname(file).toLowerCase() === ".md" ? withoutCode(text) : text;
    const mention = /(?<![\w/.-])(docs\/[\w./-]*?\.md)\b((?:'s)?(?:,\s*|\s+)["“]([^"”\n]+)["”])?/g;
    for (const m of plain.matchAll(mention)) {
      const page = m[1] ?? "";
      const quoted = m[3];
      if (!existsSync(join(root, page))) {
        report(m.index, `names ${page}: no such file`);
        continue;
      }
      if (quoted !== undefined && !anchors(join(root, page)).has(slug(quoted))) {
        report(m.index, `names ${page}, "${quoted}": no such heading there`);
      }
    }
  }
  problems.push(...unmapped(root, files));
  return problems;
}

/** A link's path, decoded as a URL's; undefined when it is not a valid one. */
function decodedPath(target: string): string | undefined {
  try {
    return decodeURI(target.replace(/[#?].*$/, ""));
  } catch {
    return undefined;
  }
}

/** The map of the docs, which lists every page under docs/. */
const MAP = "docs/README.md";

/** Every page under docs/ that the map does not link to. */
function unmapped(root: string, files: string[]): LinkProblem[] {
  if (!files.includes(MAP)) return [];
  const map = readFileSync(join(root, MAP), "utf8");
  const listed = new Set<string>();
  for (const { target } of linkTargets(map)) {
    const path = decodedPath(target);
    const page = path === undefined ? undefined : relative(root, resolve(root, "docs", path));
    if (page !== undefined) listed.add(page.split(sep).join("/"));
  }
  return files
    .filter((f) => f.startsWith("docs/") && f !== MAP && extname(f).toLowerCase() === ".md" && !listed.has(f))
    .map((f) => ({ file: MAP, line: 1, message: `does not list ${f}` }));
}

/** The files git tracks or would track, that exist; without git, every file outside ignored folders. */
function repositoryFiles(root: string): string[] {
  let listed: string[];
  try {
    listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 64 * 1024 * 1024,
    })
      .split("\0")
      .filter((f) => f !== "");
  } catch {
    listed = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
        if (["node_modules", ".git", ".wrangler", "dist"].includes(entry.name)) continue;
        const rel = dir === "" ? entry.name : `${dir}/${entry.name}`;
        if (entry.isDirectory()) walk(rel);
        else listed.push(rel);
      }
    };
    walk("");
  }
  return [...new Set(listed)]
    .filter((f) => TEXT_EXTENSIONS.has(extname(f).toLowerCase()) && existsSync(join(root, f)))
    .sort();
}

if (import.meta.main) {
  const root = resolve(process.argv[2] ?? ".");
  const files = repositoryFiles(root);
  const problems = checkLinks(root, files);
  for (const p of problems) console.error(`${p.file}:${p.line}: ${p.message}`);
  if (problems.length > 0) {
    console.error(`${problems.length} broken link${problems.length === 1 ? "" : "s"}`);
    process.exit(1);
  }
}
