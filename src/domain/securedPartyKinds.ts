/**
 * What kind of lender a secured party is, read from its name alone, so a
 * name has one kind wherever it is shown. The first rule that matches
 * decides, in this order: representative (a filing service, or anyone
 * "as representative", files for a lender it does not name, so what the
 * name says about the filer says nothing about the lender), government,
 * credit union (before bank: "Bank-Fund Staff Federal Credit Union"), bank
 * (before the lenders below: a bank's leasing or funding arm is still a
 * bank, and funding companies are those that are not banks), equipment
 * finance, funding company, and other for the rest.
 *
 * Decisions:
 * - "as agent" is not "as representative": an agent bank is a lender acting
 *   for lenders, and is shown as its own kind;
 * - "CSC" alone is Corporation Service Company, but not inside a longer name
 *   ("CSC Leasing Company" is a lessor);
 * - "United States", "USA" and "U.S." are the government alone or followed
 *   by an agency ("United States of America, Department of Treasury"), never
 *   in a name such as "U.S. Bank"; a state, county or city is the
 *   government when the name is just the place ("State of New York") or also
 *   names an agency word ("State of California Franchise Tax Board"), so
 *   "State of Franklin Savings Bank" stays a bank;
 * - bancorp, bancshares, banc and banco count as bank; "bankers" does not;
 * - car makers' captive lenders (Ford Motor Credit, Toyota Motor Credit, GM
 *   Financial) are other: they finance cars and dealers' stock, not business
 *   equipment; truck and machinery makers' captives are equipment finance;
 * - a bare "Capital" is other (banks and lenders of every kind use it);
 *   "Business Capital", "Merchant Capital", "Working Capital", "Funding",
 *   "Advance", factoring and receivables purchase are funding companies;
 * - lenders whose names say neither are named, as the makers' captives
 *   are: the best-known merchant cash advance and online business lenders
 *   (On Deck, Kapitus, Fundbox, Yellowstone Capital, ...) are funding
 *   companies, and lessors such as Balboa Capital, Navitas Credit and
 *   Mitsubishi HC Capital, and banks' vendor finance arms not named as
 *   banks, are equipment finance. A change here needs `npm run db:rekey`
 *   (docs/deploying.md): a filing's funding trait is stored.
 */
import { securedNameWords } from "./names.ts";

export const SECURED_PARTY_KINDS = [
  "government",
  "bank",
  "credit_union",
  "representative",
  "equipment_finance",
  "funding_company",
  "other",
] as const;
export type SecuredPartyKind = (typeof SECURED_PARTY_KINDS)[number];

/**
 * Whole-word phrases over securedNameWords(): lowercase words split by single
 * spaces, periods and apostrophes joining letters ("N.A." is "na", "U.S."
 * "us"), `&` read as "and". A phrase may be anchored with ^ and $.
 */
const phrases = (...sources: string[]) => new RegExp(`(?:^| )(?:${sources.join("|")})(?= |$)`);

/** Agency words that make a state, county or city name the government. */
const AGENCY =
  "(?:department|dept|board|commission|commissioner|division|agency|bureau|office|treasurer|comptroller|controller|collector|revenue|taxation|tax|franchise|employment|labor|workforce|finance)";
const PLACE = "(?:state|commonwealth|city|county|city and county|town|village|borough|parish|district)";
const UNITED_STATES = "(?:united states(?: of america)?|usa|u s a|us|u s)";

const RULES: readonly (readonly [SecuredPartyKind, RegExp])[] = [
  [
    "representative",
    phrases(
      "as (?:secured party )?representative",
      "corporation service (?:company|co)",
      "^csc$",
      "c ?t corporation(?: system)?",
      "first corporate solutions",
      "lien solutions",
      "united corporate services",
    ),
  ],
  [
    "government",
    phrases(
      `^(?:the )?${UNITED_STATES}$`,
      `^(?:the )?${UNITED_STATES} (?:government|acting|by|through|on behalf|for|department|dept|treasury|internal revenue|small business|sba|irs|secretary|attorney|customs)`,
      "internal revenue service",
      "irs",
      "(?:department|dept) of (?:the )?treasury",
      "treasury department",
      "small business administration",
      "^(?:us )?sba$",
      "usda",
      "farm service agency",
      "commodity credit corporation",
      `^(?:the )?${PLACE} of \\w+(?: \\w+)?$`,
      `^(?:the )?${PLACE} of (?:.* )?${AGENCY}`,
      "(?:department|dept) of (?:revenue|taxation|finance|labor|employment|treasury|workforce)",
      "(?:revenue|taxation|labor|treasury|finance) (?:department|dept)",
      "franchise tax board",
      "employment development department",
      "employment security",
      "workforce (?:commission|development)",
      "comptroller",
      "tax commission(?:er)?",
      "board of equalization",
      "division of (?:taxation|revenue)",
      "commissioner of (?:revenue|taxation|labor)",
      "revenue cabinet",
      "taxation and finance",
    ),
  ],
  ["credit_union", phrases("credit union", "fcu", "cu$")],
  [
    "bank",
    phrases(
      "banks?",
      "banking",
      "banc",
      "banco",
      "bancorp(?:oration)?",
      "bancshares",
      "na",
      "n a$",
      "national association",
      "savings (?:bank|and loan|association)",
      "fsb",
      "federal savings",
      "trust (?:company|co)",
    ),
  ],
  [
    "equipment_finance",
    phrases(
      "equipment financ(?:e|ing)",
      "leasing",
      "leases?",
      "caterpillar financial",
      "cat financial",
      "deere",
      "cnh(?: industrial)? capital",
      "kubota credit",
      "de lage landen",
      "dll",
      "komatsu financial",
      "volvo financial",
      "paccar financial",
      "navistar financial",
      "daimler truck financial",
      "toyota industries commercial finance",
      "dell financial",
      "cisco(?: systems)? capital",
      "agco finance",
      "claas financial",
      "pitney bowes",
      "greatamerica financial",
      // Lessors and equipment lenders whose names say neither.
      "navitas credit",
      "balboa capital",
      "mitsubishi hc capital",
      "vendor financ(?:e|ial|ing)",
    ),
  ],
  [
    "funding_company",
    phrases(
      "funding",
      "funders?",
      "advances?",
      "merchants? (?:capital|funding|cash|advance|finance|financing)",
      "receivables? (?:purchase|purchasing|funding|financing|capital)",
      "business (?:capital|funding|finance)",
      "working capital",
      "revenue based",
      "factoring",
      "factors",
      // Merchant cash advance and online business lenders whose names say neither: a stack of them is what
      // `funding_company_filings_last_90_days` shows an underwriter.
      "on ?deck",
      "kapitus",
      "fundbox",
      "bluevine",
      "credibly",
      "kabbage",
      "yellowstone capital",
      "can capital",
      "fora financial",
      "forward financing",
      "rapid finance",
      "headway capital",
      "fundkite",
      "itria ventures",
      "greenbox capital",
      "idea financial",
      "square capital",
      "shopify capital",
      "stripe capital",
    ),
  ],
];

/** Names most recently classified, and their kinds: a lien report names the same lenders again and again. */
const known = new Map<string, SecuredPartyKind>();
/** Names kept (some 100 bytes each); the map is emptied when full. */
const KNOWN_MAX = 4096;

/** The kind of lender `name` names (see the top of this file for the order of the rules). */
export function securedPartyKind(name: string): SecuredPartyKind {
  let kind = known.get(name);
  if (kind === undefined) {
    kind = classify(name);
    if (known.size >= KNOWN_MAX) known.clear();
    known.set(name, kind);
  }
  return kind;
}

function classify(name: string): SecuredPartyKind {
  const words = securedNameWords(name);
  for (const [kind, pattern] of RULES) if (pattern.test(words)) return kind;
  return "other";
}
