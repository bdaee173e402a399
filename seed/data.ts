/**
 * Vocabulary of the seed generator: places, names, industries and lenders.
 * Cities carry their real three-digit ZIP prefixes so postal codes look and
 * cluster like real ones.
 */
import type { INDUSTRIES } from "../src/domain/industries.ts";
import type { StateCode } from "../src/domain/states.ts";

/** Relative weight of each jurisdiction (roughly population), and its cities. */
export const STATES: Record<StateCode, { weight: number; cities: [city: string, zip3: string][] }> = {
  AL: {
    weight: 5.1,
    cities: [
      ["Birmingham", "352"],
      ["Montgomery", "361"],
      ["Mobile", "366"],
      ["Huntsville", "358"],
    ],
  },
  AK: {
    weight: 0.7,
    cities: [
      ["Anchorage", "995"],
      ["Fairbanks", "997"],
    ],
  },
  AZ: {
    weight: 7.4,
    cities: [
      ["Phoenix", "850"],
      ["Tucson", "857"],
      ["Mesa", "852"],
    ],
  },
  AR: {
    weight: 3.0,
    cities: [
      ["Little Rock", "722"],
      ["Fayetteville", "727"],
    ],
  },
  CA: {
    weight: 39,
    cities: [
      ["Los Angeles", "900"],
      ["San Diego", "921"],
      ["San Francisco", "941"],
      ["San Jose", "951"],
      ["Fresno", "937"],
      ["Sacramento", "958"],
    ],
  },
  CO: {
    weight: 5.8,
    cities: [
      ["Denver", "802"],
      ["Colorado Springs", "809"],
      ["Fort Collins", "805"],
    ],
  },
  CT: {
    weight: 3.6,
    cities: [
      ["Hartford", "061"],
      ["New Haven", "065"],
      ["Stamford", "069"],
    ],
  },
  DE: {
    weight: 1.0,
    cities: [
      ["Wilmington", "198"],
      ["Dover", "199"],
    ],
  },
  DC: { weight: 0.7, cities: [["Washington", "200"]] },
  FL: {
    weight: 22,
    cities: [
      ["Miami", "331"],
      ["Orlando", "328"],
      ["Tampa", "336"],
      ["Jacksonville", "322"],
    ],
  },
  GA: {
    weight: 11,
    cities: [
      ["Atlanta", "303"],
      ["Savannah", "314"],
      ["Augusta", "309"],
    ],
  },
  HI: { weight: 1.4, cities: [["Honolulu", "968"]] },
  ID: {
    weight: 1.9,
    cities: [
      ["Boise", "837"],
      ["Idaho Falls", "834"],
    ],
  },
  IL: {
    weight: 12.5,
    cities: [
      ["Chicago", "606"],
      ["Springfield", "627"],
      ["Peoria", "616"],
    ],
  },
  IN: {
    weight: 6.8,
    cities: [
      ["Indianapolis", "462"],
      ["Fort Wayne", "468"],
    ],
  },
  IA: {
    weight: 3.2,
    cities: [
      ["Des Moines", "503"],
      ["Cedar Rapids", "524"],
    ],
  },
  KS: {
    weight: 2.9,
    cities: [
      ["Wichita", "672"],
      ["Topeka", "666"],
    ],
  },
  KY: {
    weight: 4.5,
    cities: [
      ["Louisville", "402"],
      ["Lexington", "405"],
    ],
  },
  LA: {
    weight: 4.6,
    cities: [
      ["New Orleans", "701"],
      ["Baton Rouge", "708"],
    ],
  },
  ME: {
    weight: 1.4,
    cities: [
      ["Portland", "041"],
      ["Bangor", "044"],
    ],
  },
  MD: {
    weight: 6.2,
    cities: [
      ["Baltimore", "212"],
      ["Frederick", "217"],
    ],
  },
  MA: {
    weight: 7.0,
    cities: [
      ["Boston", "021"],
      ["Worcester", "016"],
      ["Springfield", "011"],
    ],
  },
  MI: {
    weight: 10,
    cities: [
      ["Detroit", "482"],
      ["Grand Rapids", "495"],
      ["Lansing", "489"],
    ],
  },
  MN: {
    weight: 5.7,
    cities: [
      ["Minneapolis", "554"],
      ["Saint Paul", "551"],
      ["Duluth", "558"],
    ],
  },
  MS: {
    weight: 2.9,
    cities: [
      ["Jackson", "392"],
      ["Gulfport", "395"],
    ],
  },
  MO: {
    weight: 6.2,
    cities: [
      ["Kansas City", "641"],
      ["Saint Louis", "631"],
      ["Springfield", "658"],
    ],
  },
  MT: {
    weight: 1.1,
    cities: [
      ["Billings", "591"],
      ["Missoula", "598"],
    ],
  },
  NE: {
    weight: 2.0,
    cities: [
      ["Omaha", "681"],
      ["Lincoln", "685"],
    ],
  },
  NV: {
    weight: 3.2,
    cities: [
      ["Las Vegas", "891"],
      ["Reno", "895"],
    ],
  },
  NH: {
    weight: 1.4,
    cities: [
      ["Manchester", "031"],
      ["Concord", "033"],
    ],
  },
  NJ: {
    weight: 9.3,
    cities: [
      ["Newark", "071"],
      ["Jersey City", "073"],
      ["Trenton", "086"],
    ],
  },
  NM: {
    weight: 2.1,
    cities: [
      ["Albuquerque", "871"],
      ["Santa Fe", "875"],
    ],
  },
  NY: {
    weight: 20,
    cities: [
      ["New York", "100"],
      ["Buffalo", "142"],
      ["Rochester", "146"],
      ["Albany", "122"],
    ],
  },
  NC: {
    weight: 10.7,
    cities: [
      ["Charlotte", "282"],
      ["Raleigh", "276"],
      ["Greensboro", "274"],
    ],
  },
  ND: {
    weight: 0.8,
    cities: [
      ["Fargo", "581"],
      ["Bismarck", "585"],
    ],
  },
  OH: {
    weight: 11.8,
    cities: [
      ["Columbus", "432"],
      ["Cleveland", "441"],
      ["Cincinnati", "452"],
    ],
  },
  OK: {
    weight: 4.0,
    cities: [
      ["Oklahoma City", "731"],
      ["Tulsa", "741"],
    ],
  },
  OR: {
    weight: 4.2,
    cities: [
      ["Portland", "972"],
      ["Eugene", "974"],
    ],
  },
  PA: {
    weight: 13,
    cities: [
      ["Philadelphia", "191"],
      ["Pittsburgh", "152"],
      ["Harrisburg", "171"],
    ],
  },
  RI: { weight: 1.1, cities: [["Providence", "029"]] },
  SC: {
    weight: 5.3,
    cities: [
      ["Columbia", "292"],
      ["Charleston", "294"],
      ["Greenville", "296"],
    ],
  },
  SD: {
    weight: 0.9,
    cities: [
      ["Sioux Falls", "571"],
      ["Rapid City", "577"],
    ],
  },
  TN: {
    weight: 7.0,
    cities: [
      ["Nashville", "372"],
      ["Memphis", "381"],
      ["Knoxville", "379"],
    ],
  },
  TX: {
    weight: 30,
    cities: [
      ["Houston", "770"],
      ["Dallas", "752"],
      ["Austin", "787"],
      ["San Antonio", "782"],
    ],
  },
  UT: {
    weight: 3.4,
    cities: [
      ["Salt Lake City", "841"],
      ["Provo", "846"],
    ],
  },
  VT: {
    weight: 0.65,
    cities: [
      ["Burlington", "054"],
      ["Montpelier", "056"],
    ],
  },
  VA: {
    weight: 8.7,
    cities: [
      ["Richmond", "232"],
      ["Virginia Beach", "234"],
      ["Arlington", "222"],
    ],
  },
  WA: {
    weight: 7.8,
    cities: [
      ["Seattle", "981"],
      ["Spokane", "992"],
      ["Tacoma", "984"],
    ],
  },
  WV: {
    weight: 1.8,
    cities: [
      ["Charleston", "253"],
      ["Morgantown", "265"],
    ],
  },
  WI: {
    weight: 5.9,
    cities: [
      ["Milwaukee", "532"],
      ["Madison", "537"],
    ],
  },
  WY: {
    weight: 0.6,
    cities: [
      ["Cheyenne", "820"],
      ["Casper", "826"],
    ],
  },
  PR: {
    weight: 3.2,
    cities: [
      ["San Juan", "009"],
      ["Ponce", "007"],
    ],
  },
  GU: { weight: 0.4, cities: [["Hagatna", "969"]] },
  VI: { weight: 0.4, cities: [["Charlotte Amalie", "008"]] },
  AS: { weight: 0.4, cities: [["Pago Pago", "967"]] },
  MP: { weight: 0.4, cities: [["Saipan", "969"]] },
};

/** Industries of the spec, plus labels real feeds carry that are not in it. */
export const OTHER_INDUSTRIES = ["Hospitality", "Technology", "Nonprofit"] as const;

/** Business-name nouns by industry, so a name reads like its trade. */
export const TRADE_NOUNS: Record<(typeof INDUSTRIES)[number] | (typeof OTHER_INDUSTRIES)[number], string[]> = {
  "Construction & Trades": ["Construction", "Builders", "Roofing", "Plumbing", "Electric", "Contracting", "Concrete"],
  "Retail & E-commerce": ["Outfitters", "Boutique", "Supply", "Market", "Goods", "Trading Post"],
  "Real Estate": ["Properties", "Realty", "Holdings", "Development", "Land"],
  Equipment: ["Equipment Rental", "Machinery", "Tool & Equipment", "Lift Services"],
  "Finance & Investments": ["Capital", "Financial Group", "Investments", "Advisors"],
  "Food & Beverage": ["Bakery", "Grill", "Cafe", "Brewing", "Catering", "Pizzeria", "Foods"],
  "Professional Services": ["Consulting", "Law Group", "Accounting", "Staffing", "Engineering"],
  "Health & Wellness": ["Dental", "Medical Group", "Physical Therapy", "Wellness Center", "Pharmacy"],
  "Education & Training": ["Academy", "Learning Center", "Training Institute", "Driving School"],
  "Transportation & Logistics": ["Trucking", "Logistics", "Freight", "Transport", "Courier"],
  Manufacturing: ["Manufacturing", "Fabrication", "Industries", "Machine Works", "Plastics"],
  "Arts & Entertainment": ["Studios", "Productions", "Events", "Gallery", "Entertainment"],
  "Automotive Services & Sales": ["Auto Repair", "Motors", "Auto Sales", "Collision", "Tire & Service"],
  "Energy & Utilities": ["Energy", "Solar", "Power", "Utilities", "Propane"],
  "Agriculture & Farming": ["Farms", "Ranch", "Dairy", "Orchards", "Grain"],
  Hospitality: ["Inn", "Hotel Group", "Suites", "Lodge"],
  Technology: ["Software", "Technologies", "Systems", "Data Services"],
  Nonprofit: ["Foundation", "Community Services", "Outreach"],
};

export const PLACE_WORDS = [
  "Summit",
  "Riverside",
  "Blue Ridge",
  "Lakeside",
  "Pioneer",
  "Evergreen",
  "Cedar",
  "Redwood",
  "Liberty",
  "Heritage",
  "Keystone",
  "Coastal",
  "Prairie",
  "Northstar",
  "Silver Creek",
  "Iron Horse",
  "Granite",
  "Sunbelt",
  "Big Sky",
  "Harbor",
  "Capitol",
  "Golden Gate",
  "Red River",
  "Bluegrass",
  "Magnolia",
  "Canyon",
  "Tri-County",
  "Midwest",
  "Atlantic",
  "Pacific",
  "Frontier",
  "Eagle",
  "Oak Hollow",
  "Pinnacle",
  "Copper",
  "Willow Creek",
];

export const SURNAMES = [
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Garcia",
  "Miller",
  "Davis",
  "Rodriguez",
  "Martinez",
  "Hernandez",
  "Lopez",
  "Gonzalez",
  "Wilson",
  "Anderson",
  "Thomas",
  "Taylor",
  "Moore",
  "Jackson",
  "Martin",
  "Lee",
  "Perez",
  "Thompson",
  "White",
  "Harris",
  "Sanchez",
  "Clark",
  "Ramirez",
  "Lewis",
  "Robinson",
  "Walker",
  "Young",
  "Allen",
  "King",
  "Wright",
  "Scott",
  "Torres",
  "Nguyen",
  "Hill",
  "Flores",
  "Green",
  "Adams",
  "Nelson",
  "Baker",
  "Hall",
  "Rivera",
  "Campbell",
  "Mitchell",
  "Carter",
  "Roberts",
  "Kowalski",
  "O'Brien",
  "Patel",
  "Kim",
];

export const GIVEN_NAMES = [
  "James",
  "Mary",
  "Robert",
  "Patricia",
  "John",
  "Jennifer",
  "Michael",
  "Linda",
  "David",
  "Elizabeth",
  "William",
  "Barbara",
  "Richard",
  "Susan",
  "Joseph",
  "Jessica",
  "Thomas",
  "Sarah",
  "Carlos",
  "Karen",
  "Daniel",
  "Maria",
  "Matthew",
  "Nancy",
  "Anthony",
  "Lisa",
  "Mark",
  "Betty",
  "Luis",
  "Sandra",
  "Steven",
  "Ashley",
  "Paul",
  "Emily",
  "Andrew",
  "Donna",
  "Joshua",
  "Michelle",
  "Kevin",
  "Angela",
  "Brian",
  "Priya",
  "Wei",
  "Aaliyah",
  "Omar",
];

export const STREETS = [
  "Main St",
  "Oak Ave",
  "Industrial Pkwy",
  "Commerce Dr",
  "Market St",
  "Elm St",
  "Washington Blvd",
  "Park Ave",
  "Highway 40",
  "Airport Rd",
  "Mill Rd",
  "Church St",
  "Lincoln Way",
  "Broadway",
  "Maple Ave",
  "Riverfront Dr",
  "Enterprise Ct",
  "Harbor Blvd",
  "County Road 12",
  "Technology Dr",
  "Center St",
  "1st Ave",
  "5th St",
  "Pine St",
];

/** Legal endings as businesses write them, several spellings of each. */
export const LEGAL_ENDINGS = [
  ["LLC", 30],
  ["L.L.C.", 4],
  [", LLC", 8],
  ["Inc.", 16],
  [", Inc.", 8],
  ["Incorporated", 2],
  ["Corp.", 6],
  ["Corporation", 4],
  ["Co.", 4],
  ["Company", 3],
  ["LP", 2],
  ["Ltd.", 1],
  ["", 12],
] as const;

export interface Lender {
  name: string;
  category: string;
  weight: number;
  street1: string;
  city: string;
  state: string;
  zip: string;
}

/** Secured parties as they appear on real filings, weighted by how often. */
export const LENDERS: Lender[] = [
  {
    name: "Wells Fargo Bank, N.A.",
    category: "Bank",
    weight: 9,
    street1: "420 Montgomery St",
    city: "San Francisco",
    state: "CA",
    zip: "94104",
  },
  {
    name: "Wells Fargo Equipment Finance, Inc.",
    category: "Equipment Finance",
    weight: 3,
    street1: "600 S 4th St",
    city: "Minneapolis",
    state: "MN",
    zip: "55415",
  },
  {
    name: "Wells Fargo Vendor Financial Services, LLC",
    category: "Equipment Finance",
    weight: 2,
    street1: "1010 Thomas Edison Blvd SW",
    city: "Cedar Rapids",
    state: "IA",
    zip: "52404",
  },
  {
    name: "JPMorgan Chase Bank, N.A.",
    category: "Bank",
    weight: 8,
    street1: "383 Madison Ave",
    city: "New York",
    state: "NY",
    zip: "10179",
  },
  {
    name: "Bank of America, N.A.",
    category: "Bank",
    weight: 7,
    street1: "100 N Tryon St",
    city: "Charlotte",
    state: "NC",
    zip: "28255",
  },
  {
    name: "U.S. Bank National Association",
    category: "Bank",
    weight: 5,
    street1: "800 Nicollet Mall",
    city: "Minneapolis",
    state: "MN",
    zip: "55402",
  },
  {
    name: "PNC Bank, National Association",
    category: "Bank",
    weight: 4,
    street1: "300 Fifth Ave",
    city: "Pittsburgh",
    state: "PA",
    zip: "15222",
  },
  {
    name: "Truist Bank",
    category: "Bank",
    weight: 4,
    street1: "214 N Tryon St",
    city: "Charlotte",
    state: "NC",
    zip: "28202",
  },
  {
    name: "TD Bank, N.A.",
    category: "Bank",
    weight: 2,
    street1: "2035 Limestone Rd",
    city: "Wilmington",
    state: "DE",
    zip: "19808",
  },
  {
    name: "Citizens Bank, N.A.",
    category: "Bank",
    weight: 2,
    street1: "1 Citizens Plz",
    city: "Providence",
    state: "RI",
    zip: "02903",
  },
  {
    name: "Fifth Third Bank, National Association",
    category: "Bank",
    weight: 3,
    street1: "38 Fountain Square Plz",
    city: "Cincinnati",
    state: "OH",
    zip: "45263",
  },
  {
    name: "KeyBank National Association",
    category: "Bank",
    weight: 2,
    street1: "127 Public Sq",
    city: "Cleveland",
    state: "OH",
    zip: "44114",
  },
  {
    name: "The Huntington National Bank",
    category: "Bank",
    weight: 2,
    street1: "41 S High St",
    city: "Columbus",
    state: "OH",
    zip: "43215",
  },
  {
    name: "Regions Bank",
    category: "Bank",
    weight: 2,
    street1: "1900 5th Ave N",
    city: "Birmingham",
    state: "AL",
    zip: "35203",
  },
  {
    name: "First Citizens Bank & Trust Company",
    category: "Bank",
    weight: 2,
    street1: "4300 Six Forks Rd",
    city: "Raleigh",
    state: "NC",
    zip: "27609",
  },
  {
    name: "Live Oak Banking Company",
    category: "Bank",
    weight: 2,
    street1: "1741 Tiburon Dr",
    city: "Wilmington",
    state: "NC",
    zip: "28403",
  },
  {
    name: "Byline Bank",
    category: "Bank",
    weight: 1,
    street1: "180 N LaSalle St",
    city: "Chicago",
    state: "IL",
    zip: "60601",
  },
  {
    name: "Celtic Bank Corporation",
    category: "Bank",
    weight: 1,
    street1: "268 S State St",
    city: "Salt Lake City",
    state: "UT",
    zip: "84111",
  },
  {
    name: "Corporation Service Company, as Representative",
    category: "Filing Service",
    weight: 8,
    street1: "801 Adlai Stevenson Dr",
    city: "Springfield",
    state: "IL",
    zip: "62703",
  },
  {
    name: "CT Corporation System, as Representative",
    category: "Filing Service",
    weight: 4,
    street1: "330 N Brand Blvd",
    city: "Glendale",
    state: "CA",
    zip: "91203",
  },
  {
    name: "U.S. Small Business Administration",
    category: "Government",
    weight: 4,
    street1: "409 3rd St SW",
    city: "Washington",
    state: "DC",
    zip: "20416",
  },
  {
    name: "Caterpillar Financial Services Corporation",
    category: "Captive Finance",
    weight: 3,
    street1: "2120 West End Ave",
    city: "Nashville",
    state: "TN",
    zip: "37203",
  },
  {
    name: "Deere & Company",
    category: "Captive Finance",
    weight: 3,
    street1: "6400 NW 86th St",
    city: "Johnston",
    state: "IA",
    zip: "50131",
  },
  {
    name: "Kubota Credit Corporation, U.S.A.",
    category: "Captive Finance",
    weight: 2,
    street1: "1000 Kubota Dr",
    city: "Grapevine",
    state: "TX",
    zip: "76051",
  },
  {
    name: "CNH Industrial Capital America LLC",
    category: "Captive Finance",
    weight: 2,
    street1: "5729 Washington Ave",
    city: "Racine",
    state: "WI",
    zip: "53406",
  },
  {
    name: "Ford Motor Credit Company LLC",
    category: "Captive Finance",
    weight: 2,
    street1: "1 American Rd",
    city: "Dearborn",
    state: "MI",
    zip: "48126",
  },
  {
    name: "Daimler Truck Financial Services USA LLC",
    category: "Captive Finance",
    weight: 1,
    street1: "14372 Heritage Pkwy",
    city: "Fort Worth",
    state: "TX",
    zip: "76177",
  },
  {
    name: "Dell Financial Services L.L.C.",
    category: "Captive Finance",
    weight: 1,
    street1: "1 Dell Way",
    city: "Round Rock",
    state: "TX",
    zip: "78682",
  },
  {
    name: "De Lage Landen Financial Services, Inc.",
    category: "Equipment Finance",
    weight: 3,
    street1: "1111 Old Eagle School Rd",
    city: "Wayne",
    state: "PA",
    zip: "19087",
  },
  {
    name: "Navitas Credit Corp.",
    category: "Equipment Finance",
    weight: 2,
    street1: "203 Fort Wade Rd",
    city: "Ponte Vedra",
    state: "FL",
    zip: "32081",
  },
  {
    name: "Balboa Capital Corporation",
    category: "Equipment Finance",
    weight: 2,
    street1: "575 Anton Blvd",
    city: "Costa Mesa",
    state: "CA",
    zip: "92626",
  },
  {
    name: "Pawnee Leasing Corporation",
    category: "Equipment Finance",
    weight: 1,
    street1: "3801 Automation Way",
    city: "Fort Collins",
    state: "CO",
    zip: "80525",
  },
  {
    name: "Mitsubishi HC Capital America, Inc.",
    category: "Equipment Finance",
    weight: 1,
    street1: "800 Connecticut Ave",
    city: "Norwalk",
    state: "CT",
    zip: "06854",
  },
  {
    name: "Ally Bank",
    category: "Bank",
    weight: 2,
    street1: "500 Woodward Ave",
    city: "Detroit",
    state: "MI",
    zip: "48226",
  },
  {
    name: "On Deck Capital, Inc.",
    category: "Alternative Lender",
    weight: 3,
    street1: "1400 Broadway",
    city: "New York",
    state: "NY",
    zip: "10018",
  },
  {
    name: "Fundbox, Inc.",
    category: "Alternative Lender",
    weight: 1,
    street1: "6900 Dallas Pkwy",
    city: "Plano",
    state: "TX",
    zip: "75024",
  },
  {
    name: "Kapitus Servicing, Inc.",
    category: "Alternative Lender",
    weight: 1,
    street1: "2500 Wilson Blvd",
    city: "Arlington",
    state: "VA",
    zip: "22201",
  },
  {
    name: "AgDirect, LLP",
    category: "Agricultural Lender",
    weight: 1,
    street1: "6340 S Fiddlers Green Cir",
    city: "Greenwood Village",
    state: "CO",
    zip: "80111",
  },
  {
    name: "Farm Credit Services of America, FLCA",
    category: "Agricultural Lender",
    weight: 1,
    street1: "5015 S 118th St",
    city: "Omaha",
    state: "NE",
    zip: "68137",
  },
  {
    name: "21st Mortgage Corporation",
    category: "Manufactured Housing Lender",
    weight: 0,
    street1: "620 Market St",
    city: "Knoxville",
    state: "TN",
    zip: "37902",
  },
  {
    name: "Vanderbilt Mortgage and Finance, Inc.",
    category: "Manufactured Housing Lender",
    weight: 0,
    street1: "500 Alcoa Trail",
    city: "Maryville",
    state: "TN",
    zip: "37804",
  },
];

/** Lenders of manufactured-home filings (weight 0 above keeps them out of the general draw). */
export const HOME_LENDERS = LENDERS.filter((l) => l.category === "Manufactured Housing Lender");

export const AMENDMENT_DESCRIPTIONS = {
  continuation: "Continuation",
  termination: "Termination",
  reinstatement: "Termination Revoked",
  assignment: "Assignment",
  party_change: "Amendment - Party Information",
  collateral_change: "Amendment - Collateral",
  other: "Office Correction",
} as const;

/** A party with a foreign address, as filings name them: region and postal code as written, or none. */
export interface ForeignParty {
  name: string;
  street1: string;
  city: string;
  state: string | null;
  zip: string | null;
  country: string;
}

/** Foreign banks and lessors, common on aircraft and equipment filings. */
export const FOREIGN_LENDERS: ForeignParty[] = [
  { name: "Royal Bank of Canada", street1: "200 Bay St", city: "Toronto", state: "ON", zip: "M5J 2J5", country: "CA" },
  {
    name: "Export Development Canada",
    street1: "150 Slater St",
    city: "Ottawa",
    state: "ON",
    zip: "K1A 1K3",
    country: "CA",
  },
  {
    name: "Mitsubishi HC Capital Inc.",
    street1: "1-5-1 Marunouchi, Chiyoda-ku",
    city: "Tokyo",
    state: null,
    zip: "100-6525",
    country: "JP",
  },
  {
    name: "Barclays Bank PLC",
    street1: "1 Churchill Place",
    city: "London",
    state: null,
    zip: "E14 5HP",
    country: "GB",
  },
  {
    name: "Deutsche Leasing AG",
    street1: "Frölingstraße 15-31",
    city: "Bad Homburg vor der Höhe",
    state: "Hessen",
    zip: "61352",
    country: "DE",
  },
  {
    name: "Banco Santander, S.A.",
    street1: "Paseo de Pereda 9-12",
    city: "Santander",
    state: "Cantabria",
    zip: "39004",
    country: "ES",
  },
  {
    name: "Aircastle Limited",
    street1: "Clarendon House, 2 Church St",
    city: "Hamilton",
    state: null,
    zip: "HM 11",
    country: "BM",
  },
];

/** State tax agencies that file liens in their state's UCC index; other states get a generic department. */
export const STATE_TAX_AGENCIES: Partial<Record<StateCode, { name: string; street1: string; zip: string }[]>> = {
  CA: [
    { name: "EMPLOYMENT DEVELOPMENT DEPARTMENT", street1: "PO Box 826880", zip: "94280" },
    { name: "FRANCHISE TAX BOARD", street1: "PO Box 942857", zip: "94257" },
  ],
  NY: [{ name: "NEW YORK STATE DEPARTMENT OF TAXATION AND FINANCE", street1: "W A Harriman Campus", zip: "12227" }],
  TX: [{ name: "TEXAS WORKFORCE COMMISSION", street1: "101 E 15th St", zip: "78778" }],
  FL: [{ name: "FLORIDA DEPARTMENT OF REVENUE", street1: "5050 W Tennessee St", zip: "32399" }],
  IL: [{ name: "ILLINOIS DEPARTMENT OF REVENUE", street1: "101 W Jefferson St", zip: "62702" }],
};

/** Debtor names with letters beyond A-Z, as registers hold them. */
export const ACCENTED_NAMES = [
  "José Álvarez Muñoz",
  "François Lefèvre",
  "Zoë Ångström",
  "Søren Kjærgaard",
  "Nguyễn Văn An",
  "Renée Côté-Bélanger",
  "Jürgen Groß",
];

/** Collateral descriptions, by what the filing secures. */
export const COLLATERAL = {
  standard: [
    "All assets of the Debtor, whether now owned or hereafter acquired, and all proceeds thereof.",
    "All inventory, accounts, equipment and general intangibles, now owned or hereafter acquired, and all proceeds.",
    "All equipment leased under Master Lease Agreement No. {n}, together with all accessions, additions and replacements.",
  ],
  foreign: [
    "One (1) Airbus A320-214 aircraft, manufacturer's serial number {n}, with two (2) CFM56-5B4/P engines,\nand all logs, manuals and records relating thereto.",
    "All rolling stock and equipment described in Schedule A (Schedule No. {n}) to the Lease Agreement.",
  ],
  tax: ["All property and rights to property, real and personal, belonging to the taxpayer."],
  judgment: ["All personal property of the judgment debtor subject to enforcement of a money judgment."],
} as const;
