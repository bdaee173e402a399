/**
 * Misspellings of debtor names, as a person types them, for the recall
 * benchmark of similar-name search (scripts/recall.ts). Each kind changes a
 * name one way; `null` when the kind does not apply to the name (too few
 * words, no word long enough, no abbreviation known).
 *
 * The abbreviations here are the benchmark's own list, kept apart from the
 * service's table (src/domain/abbreviations.ts) so that an abbreviation the
 * service does not know shows up as a miss.
 */
import type { prng } from "../seed/generate.ts";

type Rng = ReturnType<typeof prng>;

export const KINDS = [
  "one wrong letter",
  "two letters swapped",
  "a letter dropped",
  "words swapped",
  "a middle word left out",
  "sound-alike spelling",
  "two words joined",
  "abbreviation",
  "individual: last name first",
  "individual: middle initial left out",
  "individual: another middle initial",
  "individual: first and last name joined",
] as const;
export type Kind = (typeof KINDS)[number];

/** Kinds that only apply to individuals. */
export const INDIVIDUAL_KINDS: readonly Kind[] = KINDS.filter((k) => k.startsWith("individual"));

/** Legal endings and other words a person does not misspell on purpose. */
const ENDINGS = new Set([
  "llc",
  "inc",
  "incorporated",
  "corp",
  "corporation",
  "co",
  "company",
  "lp",
  "ltd",
  "llp",
  "pc",
  "pa",
]);

/** Common business-name abbreviations (long form, then the short forms people write). */
const ABBREVIATIONS: Record<string, string[]> = {
  manufacturing: ["Mfg", "Mfg."],
  development: ["Dev", "Dev.", "Devel"],
  construction: ["Constr", "Const.", "Constr."],
  services: ["Svcs", "Svcs.", "Svc", "Servs"],
  service: ["Svc", "Serv"],
  international: ["Intl", "Int'l", "Intl."],
  brothers: ["Bros", "Bros."],
  associates: ["Assoc", "Assocs", "Assoc."],
  equipment: ["Equip", "Eqpt"],
  engineering: ["Engr", "Eng", "Engrg"],
  technologies: ["Tech", "Techs"],
  technology: ["Tech"],
  systems: ["Sys", "Systs"],
  properties: ["Props", "Prop"],
  holdings: ["Hldgs", "Hldg"],
  investments: ["Invts", "Inv"],
  financial: ["Finl", "Fin", "Fin'l"],
  medical: ["Med", "Med."],
  center: ["Ctr", "Ctr.", "Cntr"],
  institute: ["Inst", "Inst."],
  productions: ["Prods", "Prodns"],
  entertainment: ["Ent", "Entmt"],
  group: ["Grp", "Grp."],
  industries: ["Inds", "Ind"],
  transport: ["Trans", "Transp"],
  transportation: ["Transp", "Trans"],
  accounting: ["Acctg", "Acct"],
  consulting: ["Consltg", "Cnsltg"],
  supply: ["Sply", "Sup"],
  distribution: ["Dist", "Distr"],
  management: ["Mgmt", "Mgt"],
  national: ["Natl", "Nat'l"],
  american: ["Amer", "Amer."],
  mountain: ["Mtn", "Mtn."],
  saint: ["St", "St."],
  fort: ["Ft", "Ft."],
  north: ["N", "No."],
  south: ["S", "So."],
  east: ["E"],
  west: ["W"],
  physical: ["Phys", "Phys."],
  therapy: ["Ther"],
  learning: ["Lrng"],
  training: ["Trng"],
  school: ["Sch"],
  foundation: ["Fdn", "Found."],
  community: ["Cmty", "Comm"],
  contracting: ["Contr", "Contrg"],
  plumbing: ["Plbg"],
  electric: ["Elec", "Elec."],
  machinery: ["Mach", "Mchy"],
  machine: ["Mach"],
  fabrication: ["Fab"],
  plastics: ["Plas"],
  financing: ["Fin"],
  logistics: ["Logis"],
  trucking: ["Trkg"],
  freight: ["Frt"],
  automotive: ["Auto"],
  insurance: ["Ins"],
  partners: ["Ptnrs", "Prtnrs"],
  restaurant: ["Rest"],
  laboratories: ["Labs", "Lab"],
  department: ["Dept"],
  county: ["Cnty", "Co."],
};

/** Phonetic respellings: a pattern and what it may be written as. */
const SOUND_ALIKES: [RegExp, string][] = [
  [/y$/, "ie"],
  [/ie$/, "y"],
  [/ey$/, "y"],
  [/y$/, "ey"],
  [/ph/, "f"],
  [/f/, "ph"],
  [/ck/, "k"],
  [/c(?=[aou])/, "k"],
  [/k/, "c"],
  [/(?<=[aeiou])s(?=[aeiou])/, "z"],
  [/z/, "s"],
  [/ee/, "ea"],
  [/ea/, "ee"],
  [/ou/, "ow"],
  [/ow/, "ou"],
  [/i(?=[^aeiou][aeiou]|[^aeiou]$)/, "y"],
  [/([bdfglmnprstz])\1/, "$1"],
  [/(?<=[aeiou])([bdglmnprt])(?=[aeiou])/, "$1$1"],
  [/x/, "ks"],
  [/qu/, "kw"],
  [/tion/, "shun"],
  [/er$/, "ar"],
  [/or$/, "er"],
  [/s$/, "z"],
  [/gh/, "g"],
  [/wr/, "r"],
  [/kn/, "n"],
  [/th/, "t"],
];

/** A word of a name as typed: its letters, with what surrounds them kept aside. */
interface Token {
  before: string;
  word: string;
  after: string;
}

function tokens(name: string): Token[] {
  return name
    .trim()
    .split(/\s+/)
    .map((t) => {
      const m = /^([^A-Za-z0-9]*)(.*?)([^A-Za-z0-9]*)$/.exec(t)!;
      return { before: m[1]!, word: m[2]!, after: m[3]! };
    });
}

const join = (ts: Token[]) =>
  ts
    .map((t) => `${t.before}${t.word}${t.after}`)
    .filter((t) => t.length > 0)
    .join(" ");

const norm = (w: string) => w.toLowerCase().replace(/[^a-z0-9]/g, "");

/** Indexes of the words worth misspelling: not "&", "and", "The", a legal ending or an initial. */
function contentIndexes(ts: Token[]): number[] {
  const out: number[] = [];
  ts.forEach((t, i) => {
    const w = norm(t.word);
    if (w.length < 2 || w === "and" || (i === 0 && w === "the") || ENDINGS.has(w)) return;
    out.push(i);
  });
  return out;
}

/** Keeps the case style of `like` (all caps, capitalized, lower). */
function cased(word: string, like: string): string {
  if (like.length > 1 && like === like.toUpperCase()) return word.toUpperCase();
  if (like[0] === like[0]?.toUpperCase()) return word[0]!.toUpperCase() + word.slice(1).toLowerCase();
  return word.toLowerCase();
}

function withWord(ts: Token[], i: number, word: string): Token[] {
  return ts.map((t, j) => (j === i ? { ...t, word } : t));
}

function pickWord(rng: Rng, ts: Token[], minLetters: number): number | null {
  const eligible = contentIndexes(ts).filter(
    (i) => /^[A-Za-z]+$/.test(ts[i]!.word) && ts[i]!.word.length >= minLetters,
  );
  return eligible.length === 0 ? null : rng.pick(eligible);
}

const LETTERS = "abcdefghijklmnopqrstuvwxyz";

/** `name` misspelled one way, or null when `kind` does not apply to it. */
export function misspell(rng: Rng, kind: Kind, name: string, individual: boolean): string | null {
  const ts = tokens(name);
  switch (kind) {
    case "one wrong letter": {
      const i = pickWord(rng, ts, 4);
      if (i === null) return null;
      const w = ts[i]!.word;
      const at = rng.int(w.length);
      let letter = rng.pick([...LETTERS]);
      while (letter === w[at]!.toLowerCase()) letter = rng.pick([...LETTERS]);
      const ch = w[at] === w[at]!.toUpperCase() ? letter.toUpperCase() : letter;
      return join(withWord(ts, i, w.slice(0, at) + ch + w.slice(at + 1)));
    }
    case "two letters swapped": {
      const i = pickWord(rng, ts, 4);
      if (i === null) return null;
      const w = ts[i]!.word;
      const places = [...Array(w.length - 1).keys()].filter((k) => w[k]!.toLowerCase() !== w[k + 1]!.toLowerCase());
      if (places.length === 0) return null;
      const at = rng.pick(places);
      // Keep the capital where it was: "Mangolia", not "MAngolia".
      const swapped = w.slice(0, at) + w[at + 1] + w[at] + w.slice(at + 2);
      return join(withWord(ts, i, cased(swapped, w)));
    }
    case "a letter dropped": {
      const i = pickWord(rng, ts, 4);
      if (i === null) return null;
      const w = ts[i]!.word;
      const at = rng.int(w.length);
      return join(withWord(ts, i, cased(w.slice(0, at) + w.slice(at + 1), w)));
    }
    case "words swapped": {
      const content = contentIndexes(ts).filter((i) => norm(ts[i]!.word).length > 1);
      if (content.length < 2) return null;
      const k = rng.int(content.length - 1);
      const a = content[k]!;
      const b = content[k + 1]!;
      if (norm(ts[a]!.word) === norm(ts[b]!.word)) return null;
      return join(
        ts.map((t, j) => (j === a ? { ...t, word: ts[b]!.word } : j === b ? { ...t, word: ts[a]!.word } : t)),
      );
    }
    case "a middle word left out": {
      const content = contentIndexes(ts);
      if (content.length < 3) return null;
      const drop = content[1 + rng.int(content.length - 2)]!;
      // "Smith & Sons Bakery" without "Sons" reads "Smith Bakery": an "&" or "and" before it goes too.
      const prev = ts[drop - 1];
      const dropAnd = prev !== undefined && (join([prev]) === "&" || norm(prev.word) === "and");
      return join(ts.filter((_, j) => j !== drop && !(dropAnd && j === drop - 1)));
    }
    case "sound-alike spelling": {
      const content = contentIndexes(ts).filter((i) => /^[A-Za-z]{3,}$/.test(ts[i]!.word));
      const options: [number, string][] = [];
      for (const i of content) {
        const w = ts[i]!.word.toLowerCase();
        for (const [pattern, replacement] of SOUND_ALIKES) {
          const out = w.replace(pattern, replacement);
          if (out !== w) options.push([i, cased(out, ts[i]!.word)]);
        }
      }
      if (options.length === 0) return null;
      const [i, word] = rng.pick(options);
      return join(withWord(ts, i, word));
    }
    case "two words joined": {
      const content = new Set(contentIndexes(ts));
      const pairs = [...Array(Math.max(0, ts.length - 1)).keys()].filter(
        (i) =>
          (content.has(i) || (i === 0 && norm(ts[0]!.word) === "the")) &&
          content.has(i + 1) &&
          ts[i]!.after === "" &&
          ts[i + 1]!.before === "",
      );
      if (pairs.length === 0) return null;
      const i = rng.pick(pairs);
      const joined = {
        before: ts[i]!.before,
        word: ts[i]!.word + ts[i + 1]!.word.toLowerCase(),
        after: ts[i + 1]!.after,
      };
      return join([...ts.slice(0, i), joined, ...ts.slice(i + 2)]);
    }
    case "abbreviation": {
      const options = contentIndexes(ts).filter((i) => ABBREVIATIONS[norm(ts[i]!.word)] !== undefined);
      if (options.length === 0) return null;
      const i = rng.pick(options);
      const short = rng.pick(ABBREVIATIONS[norm(ts[i]!.word)]!);
      return join(withWord(ts, i, cased(short, ts[i]!.word)));
    }
    case "individual: last name first": {
      if (!individual || ts.length < 2 || name.includes(",")) return null;
      const last = ts.at(-1)!;
      return `${join([last])}, ${join(ts.slice(0, -1))}`;
    }
    case "individual: middle initial left out": {
      if (!individual) return null;
      const middle = ts.findIndex((t, i) => i > 0 && i < ts.length - 1 && norm(t.word).length === 1);
      if (middle < 0) return null;
      return join(ts.filter((_, i) => i !== middle));
    }
    case "individual: another middle initial": {
      if (!individual) return null;
      const middle = ts.findIndex((t, i) => i > 0 && i < ts.length - 1 && norm(t.word).length === 1);
      if (middle < 0) return null;
      let letter = rng.pick([...LETTERS]).toUpperCase();
      while (letter === ts[middle]!.word.toUpperCase()) letter = rng.pick([...LETTERS]).toUpperCase();
      return join(withWord(ts, middle, letter));
    }
    case "individual: first and last name joined": {
      // "Betty A. Walker" or "Walker, Betty A." typed as one word, middle
      // initial left out: "Bettywalker", or last name first, "Walkerbetty".
      if (!individual) return null;
      const named = ts.filter((t) => norm(t.word).length > 1);
      if (named.length !== 2) return null;
      const [first, last] = name.includes(",") ? [named[1]!, named[0]!] : [named[0]!, named[1]!];
      const [a, b] = rng.chance(0.5) ? [first, last] : [last, first];
      return cased(`${a.word}${b.word}`, a.word);
    }
  }
}
