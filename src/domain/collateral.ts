/**
 * What a filing's collateral description covers, read from its free text:
 * the Article 9 categories it names (UCC 9-102(a)), for the lien report.
 * A description may name several; a blanket lien ("all assets") is its own
 * category, reported with whatever it also lists.
 *
 * Matching is on the text lowercased, with curly apostrophes made straight
 * and each run of whitespace (line breaks too) read as one space. Terms match
 * as whole words; the words of a phrase may be split by spaces or dashes
 * ("accounts-receivable", "general\nintangibles"). The terms reported are the
 * phrases as they stand in that form of the text, each once.
 *
 * Decisions where the categories overlap:
 * - accounts are accounts receivable, "A/R", rights to payment and the
 *   "future receipts" merchant cash advances buy; deposit, securities and
 *   other accounts held with a bank or broker are not;
 * - health-care-insurance receivables are accounts (9-102(a)(2) counts them
 *   as accounts); payment intangibles are general intangibles, as
 *   9-102(a)(61) defines them, though merchant cash advance filings list
 *   them beside accounts;
 * - software, licenses and goodwill are general intangibles;
 * - certificates of deposit are deposit accounts (the nonnegotiable kind
 *   banks issue today is one, 9-102(a)(29));
 * - "instruments" after musical, surgical, dental, laboratory and the like
 *   are goods, counted as equipment; the singular "instrument" is left out,
 *   as it mostly names a recorded document ("Instrument No.");
 * - a bare "tractor" is equipment (farm and construction tractors); "truck
 *   tractor", "road tractor" and "semi-tractor" are vehicles, as are trucks
 *   other than lift and fork trucks, which are equipment. A valid VIN in the
 *   text (vinsIn) is a vehicle too;
 * - "furniture" is equipment, "household furniture" consumer goods;
 *   "furniture and fixtures" is both equipment and fixtures; FF&E is equipment;
 * - proceeds and products only add to another category: a text naming
 *   proceeds and nothing else is `other`. "Products" counts only as the
 *   products of the collateral ("proceeds and products", "products
 *   thereof"), not a business's products;
 * - blanket language is `all_assets`: "all assets", "all (of the debtor's)
 *   property", "all personal property", "all business assets", with or
 *   without "present and future" and the like, but not when followed by
 *   "described", "listed", "located", "on Schedule A" and such, which limit
 *   it to a list or a place; "all equipment" is not blanket. The omnibus
 *   list of the filing services ("all goods, accounts, chattel paper,
 *   instruments, ... now owned or hereafter acquired") is blanket too when
 *   it names all goods, after-acquired property and at least four
 *   intangible kinds; "all goods" alone covers goods only, and names no
 *   category here.
 */
export const COLLATERAL_CATEGORIES = [
  "all_assets",
  "accounts",
  "inventory",
  "equipment",
  "vehicles",
  "farm_products",
  "fixtures",
  "general_intangibles",
  "deposit_accounts",
  "chattel_paper",
  "instruments",
  "investment_property",
  "proceeds",
  "consumer_goods",
  "other",
] as const;
export type CollateralCategory = (typeof COLLATERAL_CATEGORIES)[number];

/** One category a description names, with the phrases that named it (none for `other`). */
export interface CollateralMatch {
  category: CollateralCategory;
  terms: string[];
}

/** A letter or digit: a term's words start and end where none runs on. */
const WORD_CHARACTER = "[\\p{L}\\p{N}]";

/** What may split the words of a phrase: a space stands for it in the patterns below. */
const SEP = "[\\s\\-‐‑–—]+";

/**
 * One pattern of whole-word alternatives, each a regex source in which a
 * space is SEP (so lookbehinds such as `(?<!deposit )` see dashes too).
 * Longer alternatives come first where one starts another.
 */
function terms(...sources: string[]): RegExp {
  const alternatives = sources.map((s) => s.replaceAll(" ", SEP)).join("|");
  // The start's word boundary is checked in `found`: a pattern that opens
  // with a lookbehind makes V8 try the lookbehind at every position of the
  // text, where one that opens with its words lets it skip ahead to them
  // (a pattern's scan about four times faster: bench/CPU.md).
  return new RegExp(`(?:${alternatives})(?!${WORD_CHARACTER})`, "gu");
}

/** Matches (empty) at its lastIndex when a word character comes just before: a term must not run on from one. */
const AFTER_WORD_CHARACTER = new RegExp(`(?<=${WORD_CHARACTER})`, "uy");

/** Whose property, when named: "the debtor's", "its". */
const OWNER =
  "(?:(?:debtor|debtors|borrower|grantor|merchant|seller|company|taxpayer|judgment debtor|obligor)(?:'s|')? |its |their |his |her )";
/** "Present and future", "now owned or hereafter acquired". */
const TIME =
  "(?:(?:now owned|now existing|presently owned|existing|present|current) (?:and|or|and/or) (?:hereafter acquired|after acquired|hereafter arising|future) )";
/** What stops "all assets" from being blanket: a list or a place follows. */
const LIMITED =
  ",? (?:(?:now|hereinafter|more particularly|specifically|as|which is|which are) )?(?:described|listed|set forth|identified|specified|shown|itemized|located|situated|leased|financed|purchased|sold|covered|referred)|,? (?:on|in) (?:the )?(?:attached |following )?(?:schedules?|exhibits?|attachments?|addend(?:um|a)|appendix)";
const BLANKET = terms(
  `(?:substantially )?all (?:of )?(?:the |such )?${OWNER}?${TIME}?(?:(?:business|other|tangible and intangible|real and personal) )?(?:personal property|assets|property|properties)(?!${LIMITED})`,
);

/** The omnibus list's parts: all goods, after-acquired property, and intangible kinds not among the categories. */
const ALL_GOODS = terms(`all (?:of )?(?:the |such )?${OWNER}?${TIME}?goods`);
const AFTER_ACQUIRED = terms(
  "now owned or hereafter acquired",
  "now or hereafter (?:owned|existing|acquired|arising)",
  "(?:hereafter|after) acquired",
  "now owned",
  "now existing",
  "hereafter arising",
);
const OTHER_INTANGIBLES = [
  terms("documents"),
  terms("letter of credit rights?", "letters of credit"),
  terms("commercial tort claims?"),
  terms("supporting obligations?"),
];
/** Categories that count toward the omnibus list, with OTHER_INTANGIBLES. */
const OMNIBUS_CATEGORIES: readonly CollateralCategory[] = [
  "accounts",
  "chattel_paper",
  "instruments",
  "general_intangibles",
  "deposit_accounts",
  "investment_property",
];
const OMNIBUS_KINDS = 4;

/** Goods-like adjectives that make "instruments" goods rather than instruments. */
const TOOL_INSTRUMENTS =
  "(?:musical|surgical|medical|dental|scientific|laboratory|lab|measuring|testing|optical|precision)";
/** Accounts that are not accounts receivable (deposit and investment accounts). */
const OTHER_ACCOUNTS =
  "(?:deposit|checking|savings|bank|banking|securities|security|commodity|brokerage|investment|money market|escrow)";

/** The patterns of each category named by words alone (all_assets, vehicles' VINs and other are worked out after). */
const PATTERNS: Partial<Record<CollateralCategory, RegExp>> = {
  accounts: terms(
    "health care insurance receivables?",
    "accounts? receivables?",
    `(?<!${OTHER_ACCOUNTS} )accounts`,
    // "On account of" is not collateral; "liens on accounts" is.
    `(?<!(?:${OTHER_ACCOUNTS}|on) )account`,
    "(?<!notes? )receivables?",
    "(?<!warehouse )receipts",
    "rights? to (?:the )?payment",
    "a/r",
  ),
  inventory: terms(
    "inventor(?:y|ies)",
    "stock in trade",
    "merchandise",
    "raw materials?",
    "work in (?:process|progress)",
    "finished goods",
  ),
  equipment: terms(
    "equipment",
    "machinery",
    "machines?",
    "tools",
    "tooling",
    "(?<!household )furniture",
    "(?<!(?:household|home) )furnishings",
    "ff&e",
    "ff & e",
    "forklifts?",
    "(?:lift|fork) trucks?",
    "excavators?",
    "backhoes?",
    "bulldozers?",
    "skid steers?(?: loaders?)?",
    "(?<!(?:truck|road|semi) )tractors?",
    "aircraft",
    `${TOOL_INSTRUMENTS} instruments?`,
  ),
  vehicles: terms(
    "motor vehicles?",
    "vehicle identification numbers?",
    "vehicles?",
    "vins?",
    "(?:truck|road|semi) tractors?",
    "(?<!(?:lift|fork|hand) )trucks?",
    "semi trailers?",
    "trailers?",
    "automobiles?",
    "rolling stock",
    "motorcycles?",
    "buses",
  ),
  farm_products: terms(
    "farm products",
    "agricultural products",
    "crops?",
    "livestock",
    "cattle",
    "grains?(?! (?:bins?|dryers?|carts?|augers?|handling|storage))",
    "corn",
    "soybeans?",
    "wheat",
    "cotton",
    "hay",
    "hogs",
    "swine",
    "poultry",
    "dairy cows",
    "cows",
    "calves",
    "sheep",
    "milk",
  ),
  fixtures: terms("fixture filing", "fixtures"),
  general_intangibles: terms(
    "general intangibles?",
    "payment intangibles?",
    "intangibles",
    "intellectual property",
    "patents?",
    "trademarks?",
    "service marks?",
    "copyrights?",
    "trade names?",
    "trade secrets?",
    "goodwill",
    "(?:computer )?software",
    "licenses",
    "contract rights",
    "customer lists?",
    "domain names?",
  ),
  deposit_accounts: terms(
    "(?:demand )?deposit accounts?",
    "checking accounts?",
    "savings accounts?",
    "bank accounts?",
    "money market accounts?",
    "escrow accounts?",
    "certificates? of deposit",
  ),
  chattel_paper: terms("(?:electronic |tangible )?chattel paper", "(?:retail )?installment sales? contracts?"),
  instruments: terms(
    `(?<!${TOOL_INSTRUMENTS} )(?:negotiable )?instruments`,
    "(?:promissory|negotiable) notes?",
    "notes receivable",
  ),
  investment_property: terms(
    "investment property",
    "securities accounts?",
    "security entitlements?",
    "commodity (?:accounts?|contracts?)",
    "(?:brokerage|investment) accounts?",
    "securities",
    "(?<!rolling )(?:capital )?stocks?(?! in trade)",
    "shares",
  ),
  proceeds: terms(
    "proceeds",
    "(?<=proceeds (?:and|or|and/or) )products",
    "products(?= (?:and|or|and/or) proceeds)",
    "products(?= (?:thereof|of (?:all |any |each )?(?:of )?(?:the )?(?:foregoing|collateral|same)))",
  ),
  consumer_goods: terms(
    "consumer goods",
    "household goods",
    "household furniture",
    "(?:household|home) furnishings",
    "household appliances",
    "personal,? family,? (?:and|or) household",
  ),
};

/** The distinct matches of `pattern` in `text`, in order. */
function found(pattern: RegExp, text: string): string[] {
  const words = new Set<string>();
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    AFTER_WORD_CHARACTER.lastIndex = match.index;
    // As a lookbehind for no word character before the pattern would: no match here, so look again from the next character.
    if (AFTER_WORD_CHARACTER.test(text)) {
      pattern.lastIndex = match.index + 1;
      continue;
    }
    words.add(match[0]);
  }
  return [...words];
}

/** The text as the patterns read it: lowercased, apostrophes straight, each run of whitespace one space. */
function normalized(text: string | null | undefined): string {
  return spacesCollapsed((text ?? "").toLowerCase().replace(/[‘’ʼ]/g, "'")).trim();
}

/** A run of whitespace that is not a single space: two or more, or one that is not a space. */
const UNCOLLAPSED = /\s\s|[^\S ]/;

/**
 * Each run of whitespace as one space. Only the runs that are not a single
 * space are replaced, and most texts have none: testing for one costs far
 * less than a replace of every run, which rewrote each space of the text
 * (CPU.md).
 */
function spacesCollapsed(t: string): string {
  return UNCOLLAPSED.test(t) ? t.replace(/\s{2,}|[^\S ]/g, " ") : t;
}

/** The terms of a category named by words (PATTERNS), in a normalized text; a vehicle's include the text's VINs. */
function termsOf(category: CollateralCategory, t: string): string[] {
  const pattern = PATTERNS[category];
  const words = pattern ? found(pattern, t) : [];
  if (category !== "vehicles") return words;
  const vins = vinsIn(t).map((v) => v.toLowerCase());
  return vins.length > 0 ? [...words, ...vins] : words;
}

/**
 * The blanket terms of a normalized text (none when it is not all assets):
 * blanket language, or the omnibus list when it names all goods,
 * after-acquired property and OMNIBUS_KINDS intangible kinds, counting the
 * categories `names` says the text names.
 */
function blanketTerms(t: string, names: (category: CollateralCategory) => boolean): string[] {
  const blanket = found(BLANKET, t);
  const allGoods = found(ALL_GOODS, t);
  if (allGoods.length === 0) return blanket;
  const afterAcquired = found(AFTER_ACQUIRED, t);
  if (afterAcquired.length === 0) return blanket;
  const kinds =
    OMNIBUS_CATEGORIES.filter(names).length + OTHER_INTANGIBLES.filter((p) => found(p, t).length > 0).length;
  return kinds >= OMNIBUS_KINDS ? [...blanket, ...allGoods, ...afterAcquired] : blanket;
}

/**
 * The categories a collateral description names, in COLLATERAL_CATEGORIES
 * order, each with its terms (see the top of this file). A blank or missing
 * description names none; one naming no category (proceeds aside) is
 * `other`.
 */
export function collateralCategories(text: string | null | undefined): CollateralMatch[] {
  return categoriesIn(normalized(text));
}

/** collateralCategories of a normalized text. */
function categoriesIn(t: string): CollateralMatch[] {
  if (t === "") return [];
  const hits = new Map<CollateralCategory, string[]>();
  for (const category of COLLATERAL_CATEGORIES) {
    const words = termsOf(category, t);
    if (words.length > 0) hits.set(category, words);
  }
  const blanket = blanketTerms(t, (c) => hits.has(c));
  if (blanket.length > 0) hits.set("all_assets", blanket);

  if ([...hits.keys()].every((c) => c === "proceeds")) return [{ category: "other", terms: [] }];
  return COLLATERAL_CATEGORIES.flatMap((category) => {
    const words = hits.get(category);
    return words ? [{ category, terms: words }] : [];
  });
}

/**
 * collateralCategories(text) when its categories are known already (a
 * filing's stored traits, src/db/records.ts): only the known categories'
 * patterns are run, for their terms, so a description is scanned a few
 * times rather than some twenty. When a known category finds no term, or
 * the text names none where some are known (traits stored under other
 * rules or another text), the whole scan answers.
 */
export function collateralTerms(
  text: string | null | undefined,
  known: ReadonlySet<CollateralCategory>,
): CollateralMatch[] {
  const t = normalized(text);
  const proceedsAlone = [...known].every((c) => c === "proceeds");
  if (t === "" || proceedsAlone || (known.has("other") && known.size > 1)) return categoriesIn(t);
  if (known.has("other")) return [{ category: "other", terms: [] }];
  const matches: CollateralMatch[] = [];
  for (const category of COLLATERAL_CATEGORIES) {
    if (!known.has(category)) continue;
    const words = category === "all_assets" ? blanketTerms(t, (c) => known.has(c)) : termsOf(category, t);
    if (words.length === 0) return categoriesIn(t);
    matches.push({ category, terms: words });
  }
  return matches;
}

/** The values of VIN characters (49 CFR 565.15(c)); I, O and Q never occur. */
const VIN_VALUES: Record<string, number> = {
  A: 1,
  B: 2,
  C: 3,
  D: 4,
  E: 5,
  F: 6,
  G: 7,
  H: 8,
  J: 1,
  K: 2,
  L: 3,
  M: 4,
  N: 5,
  P: 7,
  R: 9,
  S: 2,
  T: 3,
  U: 4,
  V: 5,
  W: 6,
  X: 7,
  Y: 8,
  Z: 9,
};
const VIN_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];

/** Whether a UTF-16 code unit is an ASCII letter or digit: what a VIN must not run on from. */
function isAsciiAlphanumeric(c: number): boolean {
  const lower = c | 32;
  return (c >= 48 && c <= 57) || (lower >= 97 && lower <= 122);
}

/** Whether an upper-case 17-character candidate's 9th character is its check digit (ISO 3779, 49 CFR 565.15). */
function checkDigitValid(vin: string): boolean {
  let sum = 0;
  for (let i = 0; i < vin.length; i++) {
    const ch = vin.charAt(i);
    sum += (VIN_VALUES[ch] ?? Number(ch)) * (VIN_WEIGHTS[i] ?? 0);
  }
  const rest = sum % 11;
  return vin.charAt(8) === (rest === 10 ? "X" : String(rest));
}

/**
 * The vehicle identification numbers in `text`: 17-character runs whose
 * check digit holds, upper-cased, each once, in order of first appearance.
 * The check digit keeps serial numbers and other codes of that length out
 * (a random run passes one time in eleven).
 */
export function vinsIn(text: string): string[] {
  // Runs of exactly 17 ASCII letters and digits; one with an I, O or Q fails
  // its check (they have no value). A loop over the text: a pattern that
  // looked behind at every position took two and a half to three times as
  // long (CPU.md).
  const vins = new Set<string>();
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isAsciiAlphanumeric(text.charCodeAt(i))) continue;
    if (i - start === 17) {
      const vin = text.slice(start, i).toUpperCase();
      if (checkDigitValid(vin)) vins.add(vin);
    }
    start = i + 1;
  }
  return [...vins];
}

/**
 * The collateral a filing covers now: the text of its latest amendment that
 * restates collateral (by filing time, then number), else the text filed
 * with it; null when neither has any.
 */
export function currentCollateral(
  filed: string | null | undefined,
  amendments: readonly { filedAt: string; number: string; collateral?: string | null | undefined }[],
): string | null {
  let latest: (typeof amendments)[number] | undefined;
  for (const a of amendments) {
    if (a.collateral == null || a.collateral.trim() === "") continue;
    if (!latest || a.filedAt > latest.filedAt || (a.filedAt === latest.filedAt && a.number > latest.number)) latest = a;
  }
  return latest?.collateral ?? filed ?? null;
}
