/**
 * Abbreviations that filers and searchers write for common words of
 * business names ("Mfg" for "Manufacturing", "Bros" for "Brothers"), so
 * similar-name search treats a word and its short forms as one word, both
 * when it ranks names and when it finds candidates.
 *
 * Each entry is a canonical word and the forms that mean it. Forms are as
 * src/domain/names.ts leaves words: lowercase, periods and apostrophes
 * removed ("Int'l." reads "intl"). A form that could mean two words maps to
 * the one business names use most ("Assoc" to Associates, "Ent" to
 * Enterprises); singular and plural share one entry where filers mix them
 * ("Svc", "Service", "Services"). Single letters stay out: they are
 * initials far more often than compass points.
 */
const FORMS: Record<string, readonly string[]> = {
  accounting: ["acctg"],
  american: ["amer"],
  associates: ["assoc", "assocs", "associate"],
  association: ["assn"],
  automotive: ["auto"],
  brothers: ["bros", "bro"],
  building: ["bldg"],
  center: ["ctr", "cntr", "centre"],
  company: ["co"],
  companies: ["cos"],
  construction: ["constr", "const", "cnstr", "constrn"],
  consulting: ["consltg", "cnsltg"],
  contractors: ["contr", "contrs"],
  corporation: ["corp"],
  county: ["cnty"],
  department: ["dept"],
  development: ["dev", "devel", "devt", "dvlpmt"],
  distribution: ["dist", "distr", "distrib"],
  electric: ["elec", "electrical"],
  engineering: ["eng", "engr", "engrg"],
  enterprises: ["ent", "ents", "entps", "enterprise"],
  entertainment: ["entmt", "entmnt"],
  equipment: ["equip", "eqpt", "eqp"],
  fabrication: ["fab"],
  financial: ["finl", "fin", "finan"],
  foundation: ["fdn"],
  fort: ["ft"],
  freight: ["frt"],
  group: ["grp"],
  holdings: ["hldgs", "hldg", "hldngs"],
  incorporated: ["inc"],
  industrial: ["indl"],
  industries: ["inds", "indus", "ind"],
  institute: ["inst"],
  insurance: ["ins"],
  international: ["intl", "internatl"],
  investments: ["invts", "invs", "inv", "invest"],
  laboratories: ["labs", "lab", "laboratory"],
  learning: ["lrng"],
  limited: ["ltd"],
  machinery: ["mchy"],
  management: ["mgmt", "mgt", "mngmt"],
  manufacturing: ["mfg", "mfrg", "mnfg", "manuf"],
  manufacturers: ["mfrs", "mfr", "manufacturer"],
  medical: ["med"],
  mountain: ["mtn"],
  national: ["natl"],
  partners: ["ptnrs", "prtnrs", "partner"],
  physical: ["phys"],
  plumbing: ["plbg", "plmbg"],
  productions: ["prodns", "prodn"],
  products: ["prods", "prod"],
  properties: ["props", "prop", "ppty", "pptys", "property"],
  services: ["svcs", "svc", "srvcs", "srvc", "servs", "serv", "service"],
  supply: ["sply", "supplies"],
  systems: ["sys", "syst"],
  technology: ["tech", "techs", "technol", "technologies"],
  training: ["trng"],
  transportation: ["transp", "trans", "transpt"],
  trucking: ["trkg"],
};

const CANONICAL = new Map<string, string>(
  Object.entries(FORMS).flatMap(([word, forms]) => forms.map((form) => [form, word] as const)),
);

/** The canonical word for `word` (lowercase): its long form when it is an abbreviation, else itself. */
export function canonicalWord(word: string): string {
  return CANONICAL.get(word) ?? word;
}
