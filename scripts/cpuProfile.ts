/**
 * CPU profiles of a `wrangler dev` Worker, taken through its inspector with
 * the DevTools protocol's Profiler domain (the Chrome `.cpuprofile` format),
 * and their flame summary: the functions and modules that spent the most
 * self time, each mapped back to its source through the bundle's source map.
 * Used by `npm run bench -- --profile` (scripts/bench.ts).
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { openInspector } from "./devServer.ts";

interface CallFrame {
  functionName: string;
  url: string;
  /** 0-based, as the protocol gives them. */
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

/** A Profiler.stop answer's profile (times in microseconds). */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Sampling interval, in microseconds: V8's default is 1,000, too coarse for requests of a few ms. */
const SAMPLING_US = 100;

/** Runs `work` with the Worker's CPU profiler on, and returns the profile with `work`'s result. */
export async function profiled<T>(
  inspectorPort: number,
  work: () => Promise<T>,
): Promise<{ profile: CpuProfile; result: T }> {
  const inspector = await openInspector(inspectorPort);
  try {
    await inspector.send("Profiler.enable");
    await inspector.send("Profiler.setSamplingInterval", { interval: SAMPLING_US });
    await inspector.send("Profiler.start");
    const result = await work();
    const { profile } = (await inspector.send("Profiler.stop")) as { profile?: CpuProfile };
    if (!profile) throw new Error("the inspector's Profiler.stop answered no profile");
    await inspector.send("Profiler.disable");
    return { profile, result };
  } finally {
    inspector.close();
  }
}

/** One function's (or module's) self time. */
export interface SelfTime {
  name: string;
  /** Where it is: a source file and line, a package, or the runtime. */
  where: string;
  ms: number;
  /** Of the isolate's busy time (everything but idle). */
  share: number;
}

export interface FlameSummary {
  /** The isolate's busy time in the profile, ms. */
  busyMs: number;
  functions: SelfTime[];
  modules: SelfTime[];
}

/** Source maps of the bundles, read once. */
const maps = new Map<string, SourceMap | null>();

function sourceMap(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    map = existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))) : null;
    maps.set(file, map);
  }
  return map;
}

/**
 * The newest bundle `wrangler dev` built under `dir` (its .wrangler/tmp/dev-*),
 * which workerd names by its module name alone (`index.js`).
 */
export function devBundle(dir = ".wrangler/tmp"): string | undefined {
  const bundles = existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.startsWith("dev-") && existsSync(join(dir, name, "index.js.map")))
        .map((name) => join(dir, name, "index.js"))
    : [];
  return bundles.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}

/**
 * Copies the newest bundle under `from` (devBundle) and its source map to
 * `to` as `name`, beside the profiles taken on it: `wrangler dev` deletes
 * its bundle when it stops, and flameSummary (its `bundle`) places a
 * profile's frames through the copy.
 */
export function keepBundle(from: string, to: string, name: string): void {
  const bundle = devBundle(from);
  if (!bundle) return;
  copyFileSync(bundle, join(to, name));
  copyFileSync(`${bundle}.map`, join(to, `${name}.map`));
}

/** A call frame's original source file (relative to the project) and 1-based line, when its bundle has a map. */
function original(frame: CallFrame, bundle: string | undefined): { file: string; line: number } | null {
  const file =
    frame.url === "index.js" ? bundle : frame.url.startsWith("file://") ? fileURLToPath(frame.url) : undefined;
  const map = file ? sourceMap(file) : null;
  if (!file || !map) return null;
  const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
  if (!("originalSource" in entry)) return null;
  const source = entry.originalSource.startsWith("file://")
    ? fileURLToPath(entry.originalSource)
    : resolve(dirname(file), entry.originalSource);
  return { file: relative(process.cwd(), source), line: entry.originalLine + 1 };
}

/** The module a source file counts under: a package by its name, the project's own code by its folder. */
function moduleOf(file: string): string {
  const parts = file.split("/");
  const at = parts.lastIndexOf("node_modules");
  if (at >= 0) {
    const name = parts[at + 1] ?? "";
    return name.startsWith("@") ? `${name}/${parts[at + 2] ?? ""}` : name;
  }
  if (parts[0] === "src") return parts.length > 2 ? `src/${parts[1]}` : "src";
  return parts.slice(0, 2).join("/");
}

/** How a frame is named and placed in the summary. */
function placed(frame: CallFrame, bundle: string | undefined): { name: string; where: string; module: string } {
  // V8's own pseudo-frames: (program), (garbage collector), (idle), (root).
  if (frame.functionName.startsWith("(") && !frame.url) {
    return { name: frame.functionName, where: "V8", module: frame.functionName };
  }
  const name = frame.functionName || "(anonymous)";
  const source = original(frame, bundle);
  if (source) return { name, where: `${source.file}:${source.line}`, module: moduleOf(source.file) };
  // Built into workerd (node: and cloudflare: modules), or a bundle without a map.
  const where = frame.url ? `${frame.url.replace(/^.*\//, "")}:${frame.lineNumber + 1}` : "native";
  return { name, where, module: frame.url || "native" };
}

/**
 * The profile's self time by function and by module, largest first, as
 * shares of the isolate's busy time. Each sample is charged the time until
 * the next one (the last, the mean interval).
 */
export function flameSummary(profile: CpuProfile, top: number, bundle = devBundle()): FlameSummary {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const selfUs = new Map<number, number>();
  const meanUs = (profile.endTime - profile.startTime) / Math.max(1, samples.length);
  samples.forEach((node, i) => {
    selfUs.set(node, (selfUs.get(node) ?? 0) + (deltas[i + 1] ?? meanUs));
  });
  const byFunction = new Map<string, SelfTime>();
  const byModule = new Map<string, SelfTime>();
  let busyUs = 0;
  const add = (into: Map<string, SelfTime>, key: string, entry: Omit<SelfTime, "ms" | "share">, us: number) => {
    const row = into.get(key) ?? { ...entry, ms: 0, share: 0 };
    row.ms += us / 1000;
    into.set(key, row);
  };
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (us === 0 || node.callFrame.functionName === "(idle)") continue;
    busyUs += us;
    const { name, where, module } = placed(node.callFrame, bundle);
    add(byFunction, `${name} ${where}`, { name, where }, us);
    add(byModule, module, { name: module, where: module }, us);
  }
  const ranked = (rows: Map<string, SelfTime>) =>
    [...rows.values()]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, top)
      .map((row) => ({ ...row, share: row.ms / Math.max(1e-9, busyUs / 1000) }));
  return { busyMs: busyUs / 1000, functions: ranked(byFunction), modules: ranked(byModule) };
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`;

/** A summary as Markdown: busy time per request, the modules in a line, and the functions in a table. */
export function summaryMarkdown(summary: FlameSummary, requests: number, errors: number): string {
  const perRequest = (ms: number) => (ms / Math.max(1, requests)).toFixed(3);
  const modules = summary.modules.map((m) => `${m.name} ${pct(m.share)}`).join(", ");
  const rows = summary.functions.map((f) => `| ${pct(f.share)} | ${perRequest(f.ms)} | \`${f.name}\` | ${f.where} |`);
  return `${requests.toLocaleString("en-US")} requests${errors > 0 ? ` (${errors} failed)` : ""}, busy ${perRequest(summary.busyMs)} ms each. By module: ${modules}.

| self | ms/req | function | where |
|---|---|---|---|
${rows.join("\n")}`;
}
