/**
 * Whether a party name in ACRIS is a person's. The register gives every
 * party as one `name`, people as "LAST, FIRST MI", with no column saying
 * which a party is; so a name is taken as a person's only when it has that
 * form and nothing in it says organization, and as an organization's
 * otherwise. Reading a person as an organization costs less: the name is
 * still found by its exact words, only not part by part.
 */
import { foldAccents, significantWords } from "../../domain/names.ts";

/** Words that name organizations, never people (matched whole, in upper case). */
const ORGANIZATION_WORDS = new RegExp(
  `\\b(?:${[
    "BANK",
    "BANCORP",
    "TRUST",
    "TRUSTEES?",
    "ASSOCIATION",
    "SERVICES?",
    "DEPT",
    "DEPARTMENT",
    "UNITED STATES",
    "USA",
    "INTERNAL REVENUE",
    "TREASURY",
    "CITY",
    "STATE",
    "COUNTY",
    "COMMISSIONER",
    "CAPITAL",
    "FINANCIAL",
    "FINANCE",
    "FUNDING",
    "LEASING",
    "CREDIT",
    "HOLDINGS?",
    "GROUP",
    "PARTNERS",
    "PROPERTIES",
    "REALTY",
    "MANAGEMENT",
    "ENTERPRISES?",
    "INTERNATIONAL",
    "AMERICA",
    "NATIONAL",
    "FEDERAL",
    "SAVINGS",
    "FUND",
    "SOCIETY",
    "HOUSING",
    "APARTMENTS?",
    "OWNERS",
    "ESTATE",
    "ADMINISTRATION",
    "AUTHORITY",
    "INSURANCE",
    "SECURITIES",
    "ACCEPTANCE",
    "LENDING",
    "MORTGAGE",
    "EQUIPMENT",
    "OF",
    "FOR",
  ].join("|")})\\b`,
);

/** One part of a person's name: words of letters, with hyphens, apostrophes and periods inside. */
const NAME_PART = /^[\p{L}][\p{L}'’.-]*(?: [\p{L}][\p{L}'’.-]*){0,3}$/u;

/** The words of a name as the name rules split them (src/domain/names.ts). */
const wordsOf = (name: string) =>
  foldAccents(name)
    .replaceAll("&", " and ")
    .replace(/[.'’ʼ‘]/g, "")
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);

/**
 * Whether `name` is a person's: "LAST, FIRST MI" (one comma; up to four
 * words of letters each side), no word that names an organization, and no
 * ending that says what kind of organization it is ("SMITH, JOHN INC").
 */
export function isPersonName(name: string): boolean {
  const parts = name.split(",");
  if (parts.length !== 2) return false;
  const [last = "", given = ""] = parts.map((p) => p.trim().replace(/\s+/g, " "));
  if (!NAME_PART.test(last) || !NAME_PART.test(given)) return false;
  if (ORGANIZATION_WORDS.test(name.toUpperCase())) return false;
  return significantWords(name).length === wordsOf(name).length;
}
