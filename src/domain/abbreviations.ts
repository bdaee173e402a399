/**
 * Abbreviations that filers and searchers write for common words of
 * business names ("Mfg" for "Manufacturing", "Bros" for "Brothers"), so
 * similar-name search treats a word and its short forms as one word, both
 * when it ranks names and when it finds candidates.
 *
 * Each entry is a long form and its abbreviations, written as
 * src/domain/names.ts leaves words: lowercase, periods and apostrophes
 * removed ("Int'l." reads "intl"). Only abbreviations are listed, never
 * other words ("Auto", "Labs" and "Service" stay as written): a stored word
 * replaced by a longer one would no longer match its own misspellings. An
 * abbreviation that could mean two words maps to the one business names use
 * most ("Assoc" to Associates); one missing here still scores close to its
 * long form (see similarity.ts). Single letters stay out: they are initials
 * far more often than compass points.
 */
const FORMS: Record<string, readonly string[]> = {
  accounting: ["acctg"],
  american: ["amer"],
  associates: ["assoc", "assocs"],
  association: ["assn"],
  brothers: ["bros"],
  building: ["bldg"],
  center: ["ctr", "cntr"],
  company: ["co"],
  companies: ["cos"],
  construction: ["constr", "const", "cnstr", "constrn"],
  consulting: ["consltg", "cnsltg"],
  contractors: ["contrs"],
  corporation: ["corp"],
  county: ["cnty"],
  department: ["dept"],
  development: ["dev", "devel", "devt", "dvlpmt"],
  distribution: ["distr", "distrib"],
  engineering: ["engrg", "engr"],
  enterprises: ["ents", "entrps"],
  entertainment: ["entmt", "entmnt"],
  equipment: ["equip", "eqpt", "eqp"],
  financial: ["finl", "finan"],
  foundation: ["fdn"],
  fort: ["ft"],
  freight: ["frt"],
  group: ["grp"],
  holdings: ["hldgs", "hldg", "hldngs"],
  incorporated: ["inc"],
  industrial: ["indl"],
  industries: ["inds", "indus"],
  institute: ["inst"],
  insurance: ["ins"],
  international: ["intl", "internatl"],
  investments: ["invts", "invs"],
  learning: ["lrng"],
  limited: ["ltd"],
  machinery: ["mchy"],
  management: ["mgmt", "mgt", "mngmt"],
  manufacturing: ["mfg", "mfrg", "mnfg", "manuf"],
  manufacturers: ["mfrs"],
  manufacturer: ["mfr"],
  medical: ["med"],
  mountain: ["mtn"],
  national: ["natl"],
  partners: ["ptnrs", "prtnrs"],
  physical: ["phys"],
  plumbing: ["plbg", "plmbg"],
  productions: ["prodns"],
  products: ["prods"],
  properties: ["props", "ppty", "pptys"],
  service: ["svc", "srvc", "serv"],
  services: ["svcs", "srvcs", "servs"],
  supply: ["sply"],
  systems: ["sys", "systs"],
  technology: ["tech", "technol"],
  technologies: ["techs"],
  training: ["trng"],
  transportation: ["transp", "transpt"],
  trucking: ["trkg"],
};

const CANONICAL = new Map<string, string>(
  Object.entries(FORMS).flatMap(([word, forms]) => forms.map((form) => [form, word] as const)),
);

/** The canonical word for `word` (lowercase): its long form when it is an abbreviation, else itself. */
export function canonicalWord(word: string): string {
  return CANONICAL.get(word) ?? word;
}
