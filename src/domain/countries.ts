/**
 * Countries as ISO 3166-1 gives them: every alpha-2 code with its alpha-3
 * code and English short name, plus other spellings met in filing records.
 * Addresses store the alpha-2 code (`US`, `CA`, `JP`).
 */

/** "A2 A3 Name[;other name...]", one country a line (ISO 3166-1, 249 entries). */
const TABLE = `
AD AND Andorra
AE ARE United Arab Emirates;UAE
AF AFG Afghanistan
AG ATG Antigua and Barbuda
AI AIA Anguilla
AL ALB Albania
AM ARM Armenia
AO AGO Angola
AQ ATA Antarctica
AR ARG Argentina
AS ASM American Samoa
AT AUT Austria
AU AUS Australia
AW ABW Aruba
AX ALA Aland Islands
AZ AZE Azerbaijan
BA BIH Bosnia and Herzegovina
BB BRB Barbados
BD BGD Bangladesh
BE BEL Belgium
BF BFA Burkina Faso
BG BGR Bulgaria
BH BHR Bahrain
BI BDI Burundi
BJ BEN Benin
BL BLM Saint Barthelemy
BM BMU Bermuda
BN BRN Brunei Darussalam;Brunei
BO BOL Bolivia;Bolivia, Plurinational State of
BQ BES Bonaire, Sint Eustatius and Saba
BR BRA Brazil
BS BHS Bahamas
BT BTN Bhutan
BV BVT Bouvet Island
BW BWA Botswana
BY BLR Belarus
BZ BLZ Belize
CA CAN Canada
CC CCK Cocos (Keeling) Islands
CD COD Congo, Democratic Republic of the;Democratic Republic of the Congo
CF CAF Central African Republic
CG COG Congo;Republic of the Congo
CH CHE Switzerland
CI CIV Cote d'Ivoire;Ivory Coast
CK COK Cook Islands
CL CHL Chile
CM CMR Cameroon
CN CHN China;People's Republic of China
CO COL Colombia
CR CRI Costa Rica
CU CUB Cuba
CV CPV Cabo Verde;Cape Verde
CW CUW Curacao
CX CXR Christmas Island
CY CYP Cyprus
CZ CZE Czechia;Czech Republic
DE DEU Germany;Deutschland
DJ DJI Djibouti
DK DNK Denmark
DM DMA Dominica
DO DOM Dominican Republic
DZ DZA Algeria
EC ECU Ecuador
EE EST Estonia
EG EGY Egypt
EH ESH Western Sahara
ER ERI Eritrea
ES ESP Spain
ET ETH Ethiopia
FI FIN Finland
FJ FJI Fiji
FK FLK Falkland Islands (Malvinas);Falkland Islands
FM FSM Micronesia;Micronesia, Federated States of
FO FRO Faroe Islands
FR FRA France
GA GAB Gabon
GB GBR United Kingdom;United Kingdom of Great Britain and Northern Ireland;Great Britain;UK;England;Scotland;Wales;Northern Ireland
GD GRD Grenada
GE GEO Georgia
GF GUF French Guiana
GG GGY Guernsey
GH GHA Ghana
GI GIB Gibraltar
GL GRL Greenland
GM GMB Gambia
GN GIN Guinea
GP GLP Guadeloupe
GQ GNQ Equatorial Guinea
GR GRC Greece
GS SGS South Georgia and the South Sandwich Islands
GT GTM Guatemala
GU GUM Guam
GW GNB Guinea-Bissau
GY GUY Guyana
HK HKG Hong Kong
HM HMD Heard Island and McDonald Islands
HN HND Honduras
HR HRV Croatia
HT HTI Haiti
HU HUN Hungary
ID IDN Indonesia
IE IRL Ireland
IL ISR Israel
IM IMN Isle of Man
IN IND India
IO IOT British Indian Ocean Territory
IQ IRQ Iraq
IR IRN Iran;Iran, Islamic Republic of
IS ISL Iceland
IT ITA Italy
JE JEY Jersey
JM JAM Jamaica
JO JOR Jordan
JP JPN Japan
KE KEN Kenya
KG KGZ Kyrgyzstan
KH KHM Cambodia
KI KIR Kiribati
KM COM Comoros
KN KNA Saint Kitts and Nevis
KP PRK Korea, Democratic People's Republic of;North Korea
KR KOR Korea, Republic of;South Korea;Korea
KW KWT Kuwait
KY CYM Cayman Islands
KZ KAZ Kazakhstan
LA LAO Lao People's Democratic Republic;Laos
LB LBN Lebanon
LC LCA Saint Lucia
LI LIE Liechtenstein
LK LKA Sri Lanka
LR LBR Liberia
LS LSO Lesotho
LT LTU Lithuania
LU LUX Luxembourg
LV LVA Latvia
LY LBY Libya
MA MAR Morocco
MC MCO Monaco
MD MDA Moldova;Moldova, Republic of
ME MNE Montenegro
MF MAF Saint Martin (French part)
MG MDG Madagascar
MH MHL Marshall Islands
MK MKD North Macedonia;Macedonia
ML MLI Mali
MM MMR Myanmar;Burma
MN MNG Mongolia
MO MAC Macao;Macau
MP MNP Northern Mariana Islands
MQ MTQ Martinique
MR MRT Mauritania
MS MSR Montserrat
MT MLT Malta
MU MUS Mauritius
MV MDV Maldives
MW MWI Malawi
MX MEX Mexico
MY MYS Malaysia
MZ MOZ Mozambique
NA NAM Namibia
NC NCL New Caledonia
NE NER Niger
NF NFK Norfolk Island
NG NGA Nigeria
NI NIC Nicaragua
NL NLD Netherlands;The Netherlands;Holland;Kingdom of the Netherlands
NO NOR Norway
NP NPL Nepal
NR NRU Nauru
NU NIU Niue
NZ NZL New Zealand
OM OMN Oman
PA PAN Panama
PE PER Peru
PF PYF French Polynesia
PG PNG Papua New Guinea
PH PHL Philippines
PK PAK Pakistan
PL POL Poland
PM SPM Saint Pierre and Miquelon
PN PCN Pitcairn
PR PRI Puerto Rico
PS PSE Palestine, State of;Palestine
PT PRT Portugal
PW PLW Palau
PY PRY Paraguay
QA QAT Qatar
RE REU Reunion
RO ROU Romania
RS SRB Serbia
RU RUS Russian Federation;Russia
RW RWA Rwanda
SA SAU Saudi Arabia
SB SLB Solomon Islands
SC SYC Seychelles
SD SDN Sudan
SE SWE Sweden
SG SGP Singapore
SH SHN Saint Helena, Ascension and Tristan da Cunha;Saint Helena
SI SVN Slovenia
SJ SJM Svalbard and Jan Mayen
SK SVK Slovakia
SL SLE Sierra Leone
SM SMR San Marino
SN SEN Senegal
SO SOM Somalia
SR SUR Suriname
SS SSD South Sudan
ST STP Sao Tome and Principe
SV SLV El Salvador
SX SXM Sint Maarten (Dutch part)
SY SYR Syrian Arab Republic;Syria
SZ SWZ Eswatini;Swaziland
TC TCA Turks and Caicos Islands
TD TCD Chad
TF ATF French Southern Territories
TG TGO Togo
TH THA Thailand
TJ TJK Tajikistan
TK TKL Tokelau
TL TLS Timor-Leste;East Timor
TM TKM Turkmenistan
TN TUN Tunisia
TO TON Tonga
TR TUR Turkiye;Turkey
TT TTO Trinidad and Tobago
TV TUV Tuvalu
TW TWN Taiwan;Taiwan, Province of China
TZ TZA Tanzania;Tanzania, United Republic of
UA UKR Ukraine
UG UGA Uganda
UM UMI United States Minor Outlying Islands
US USA United States;United States of America;America
UY URY Uruguay
UZ UZB Uzbekistan
VA VAT Holy See;Vatican City
VC VCT Saint Vincent and the Grenadines
VE VEN Venezuela;Venezuela, Bolivarian Republic of
VG VGB Virgin Islands (British);British Virgin Islands
VI VIR Virgin Islands (U.S.);US Virgin Islands;United States Virgin Islands
VN VNM Viet Nam;Vietnam
VU VUT Vanuatu
WF WLF Wallis and Futuna
WS WSM Samoa
YE YEM Yemen
YT MYT Mayotte
ZA ZAF South Africa
ZM ZMB Zambia
ZW ZWE Zimbabwe
`;

/** Upper-case letters and digits only, accents folded: `Côte d'Ivoire` is `COTEDIVOIRE`, `U.S.A.` is `USA`. */
function countryKey(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .replace(/^THE(?=[A-Z]{4})/, "");
}

/** Every alpha-2 code, with its alpha-3 code and names. */
export const COUNTRIES: { alpha2: string; alpha3: string; names: string[] }[] = TABLE.trim()
  .split("\n")
  .map((line) => {
    const [alpha2 = "", alpha3 = "", ...rest] = line.split(" ");
    return { alpha2, alpha3, names: rest.join(" ").split(";") };
  });

const BY_KEY = new Map<string, string>();
for (const c of COUNTRIES) {
  for (const spelling of [c.alpha2, c.alpha3, ...c.names]) BY_KEY.set(countryKey(spelling), c.alpha2);
}

/**
 * The ISO 3166-1 alpha-2 code of a country written as an alpha-2 or
 * alpha-3 code or an English name, in any case, with or without accents and
 * punctuation (`USA`, `U.S.`, `United States` are `US`; `CAN` is `CA`);
 * null when the text names no country.
 */
export function countryCode(text: string): string | null {
  return BY_KEY.get(countryKey(text)) ?? null;
}

/**
 * Countries whose addresses use US ZIP codes: the United States and the
 * territories ISO lists as countries of their own.
 */
export const ZIP_COUNTRIES: ReadonlySet<string> = new Set(["US", "PR", "GU", "VI", "AS", "MP", "UM"]);
