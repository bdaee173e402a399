/**
 * Standard search logic as filing offices publish it (src/domain/names.ts
 * lists the sources): a search for the first name finds, or does not find,
 * a debtor filed under the second. Each row cites the rule it checks; the
 * examples are the rules' own where they give them (TX (H), CO's table).
 */
import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { PartyType } from "../src/domain/kinds.ts";
import {
  debtorKey,
  debtorNameKey,
  debtorQuery,
  findsDebtor,
  findsSecuredParty,
  foldAccents,
  personName,
  securedNameWords,
} from "../src/domain/names.ts";
import { nameSoundKeys } from "../src/domain/soundKeys.ts";

const O = "Organization" as const;
const I = "Individual" as const;

type Row = [query: string, filed: string, type: typeof O | typeof I, finds: boolean, rule: string];

const ORGANIZATIONS: Row[] = [
  ["ABC Company Inc", "abc company inc", O, true, "TX (B): case is ignored"],
  ["ABC COMPANY INC", "A.B.C. Company, Inc.", O, true, "TX (D): punctuation is disregarded"],
  ["A B C Company", "ABC Co", O, true, "TX (G): spaces are disregarded"],
  ["Smith & Sons Trucking", "SMITH AND SONS TRUCKING LLC", O, true, "TX (C): & reads as and"],
  ["The ABC Company", "ABC Co", O, true, "CO: example result of 'The ABC Company'"],
  ["The ABC Company", "ABC Company", O, true, "CO: example result of 'The ABC Company'"],
  ["The ABC Company", "ABC Inc", O, true, "CO: example result of 'The ABC Company'"],
  ["The ABC Company", "ABC LLC", O, true, "CO: example result of 'The ABC Company'"],
  ["The ABC Company", "ABC Partnership", O, true, "CO: example result of 'The ABC Company'"],
  ["The ABC Company", "The ABC Company", O, true, "CO: example result of 'The ABC Company'"],
  ["ABC Company", "ABC COMPANY, THE", O, true, "CO: 'the' at the end is removed"],
  ["US Bank", "US BANK NA", O, true, "TN: NA and Bank are ending noise words"],
  ["US Bank", "U.S. Bank, N.A.", O, true, "TN + TX (D): N.A. is NA"],
  ["US Bank", "U.S. Bank National Association", O, true, "TN: National Association"],
  ["First Farmers Cooperative", "FIRST FARMERS CO-OP", O, true, "MT: cooperative, co-op"],
  ["First Farmers Coop", "First Farmers Cooperative Association", O, true, "MT: coop, cooperative; TN: association"],
  ["Teachers Credit Union", "TEACHERS CU", O, true, "TN, MT: credit union, CU"],
  ["Teachers Federal Credit Union", "Teachers F.C.U.", O, true, "MT: federal credit union, FCU"],
  ["Home Savings FSB", "Home Savings Federal Savings Bank", O, true, "TN, MT: federal savings bank, FSB"],
  ["Smith Jones General Partnership", "SMITH JONES G.P.", O, true, "TN, MT: general partnership, GP"],
  ["Smith Jones Gen Part", "Smith Jones", O, true, "TN: gen part"],
  ["Acme Joint Venture", "ACME JV", O, true, "MT: joint venture, JV"],
  ["Acme Business Trust", "Acme", O, true, "TN, MT: business trust"],
  ["Lakeside Association", "LAKESIDE ASSN", O, true, "TN, MT: association, assn"],
  ["Lakeside Ass'n", "Lakeside Assoc.", O, true, "TN: assn, assoc; TX (D)"],
  ["Smith Associates", "Smith Assc", O, true, "TN: associates, assc"],
  ["Jones Attorneys at Law", "JONES", O, true, "TN: attorneys at law"],
  ["Main Street Medical Doctors Professional Association", "Main Street MDPA", O, true, "TN: MDPA"],
  ["Main Street M.D.P.C.", "Main Street Medical Doctors Professional Corporation", O, true, "TN: MDPC"],
  ["Dupont Ltee", "Dupont Limited", O, true, "TN: ltee, limited"],
  ["Acme Joint Stock Company", "ACME JSC", O, true, "MT: joint stock company, JSC"],
  ["Acme Limited Liability Limited Partnership", "Acme L.L.L.P.", O, true, "MT: LLLP"],
  ["Acme Ltd Co", "Acme Limited Company", O, true, "MT: ltd co, limited company"],
  ["Acme Chartered", "ACME CHTD", O, true, "MT: chartered, chtd"],
  ["Ace Agency", "Ace Charter", O, true, "TN: agency, charter"],
  ["Acme Co., Inc.", "Acme", O, true, "TX (E): endings dropped one after another"],
  ["Cafe Ole", "CAFÉ OLÉ, LLC", O, true, "TX (D): accents are disregarded"],
  ["Pena Construction", "PEÑA CONSTRUCTION INC", O, true, "TX (D): accents are disregarded"],
  ["Strasse Bakery", "Straße Bakery", O, true, "TX (D): ß folds to ss"],
  ["Lodz Imports", "Łódź Imports Corp", O, true, "TX (D): ł folds to l"],
  ["Aero Shipping", "Ærø Shipping", O, true, "TX (D): æ, ø fold to ae, o"],
  ["The Company", "Company", O, true, "TX (E): an ending is never the whole name"],
  ["Acme Industries", "Acme Inc", O, false, "TX (E): only listed endings are dropped"],
  ["Acme Co", "Acmee Co", O, false, "CO: only exact matches of the normalized name"],
  ["Acme", "Acme Widgets Inc", O, false, "CO: only names that are an exact match"],
  ["Theodore Inc", "Odore Inc", O, false, "TX (F): 'The' only as a whole leading word"],
  ["First National Bank of Omaha", "First National Bank", O, false, "TX (E): endings only at the end"],
  ["Smith Jones", "Jones Smith", O, false, "CO: only exact matches of the normalized name"],
  ["Harbor Dental Professional Corporation", "Harbor Dental Prof. Corp.", O, true, "MA (c): prof. corp."],
  ["Harbor Dental", "HARBOR DENTAL P.C.", O, true, "MA (c): P.C."],
  ["Acme Ltd. Partnership", "Acme Limited Partnership", O, true, "MA (f): ltd. partnership"],
  ["Acme Ltd. Part.", "ACME L.P", O, true, "MA (f): ltd. part., L.P"],
  ["Acme Limited Liability Company", "Acme L.L.Co.", O, true, "MA (g): L.L.Co."],
  ["Acme L.L.C'", "ACME LLC", O, true, "MA (g): L.L.C' as the rule prints it"],
  ["Acme Massachusetts Limited Liability Partnership", "ACME L.L.P.", O, true, "MA (h)"],
  ["Acme Massachusetts Business Trust", "Acme Business Trust", O, true, "MA (i)"],
  ["Acme Massachusetts Business Trust", "ACME", O, true, "MA (i): the ending is disregarded"],
  ["Acme Massachusetts", "Acme", O, false, "MA (h), (i): Massachusetts only within those endings"],
  ["Harbor Dental Prof", "Harbor Dental", O, false, "MA (c): prof. only before corp."],
  ["Acme Auto Part", "Acme Auto", O, false, "MA (f): part. only after ltd."],
  ["Acme L.L.Co. Holdings", "Acme Holdings", O, false, "MA (g): L.L.Co. only at the end"],
  ["Harbor Manufacturing Inc", "𝐇𝐀𝐑𝐁𝐎𝐑 Manufacturing Inc", O, true, "TX (B): mathematical capitals are capitals"],
  ["Harbor Manufacturing", "ℌarbor Manufacturing, Inc.", O, true, "TX (B): a black-letter capital is a capital"],
  ["🄷🄰🅁🄱🄾🅁 MANUFACTURING", "Harbor Manufacturing", O, true, "TX (B): enclosed capitals are capitals"],
  ["Harbor Manufacturing", "ＨＡＲＢＯＲ ｍａｎｕｆａｃｔｕｒｉｎｇ", O, true, "TX (B): full-width letters"],
  ["Manufacturing Inc", "𝐇𝐀𝐑𝐁𝐎𝐑 Manufacturing Inc", O, false, "TX (D): letters in another form are not punctuation"],
];

const INDIVIDUALS: Row[] = [
  ["John A. Smith", "John A Smith", I, true, "TX (H): the example itself"],
  ["John A. Smith", "J A Smith", I, true, "TX (H): 'J' as the first name"],
  ["John A. Smith", "John Allen Smith", I, true, "TX (H): any middle name beginning with A"],
  ["John A. Smith", "J. Andrew Smith", I, true, "TX (H): J first, A middle"],
  ["John A. Smith", "John Smith", I, false, "TX (H): a middle initial A needs A in the middle field"],
  ["John A. Smith", "John B. Smith", I, false, "TX (H): other middle names are not found"],
  ["John A. Smith", "James A. Smith", I, false, "TX (H): 'John' or 'J' as the first name only"],
  ["John Smith", "John Smith", I, true, "TX (H): no middle name"],
  ["John Smith", "J Smith", I, true, "TX (H): the initial J as the first name"],
  ["John Smith", "John A Smith", I, true, "TX (H): any middle name or initial"],
  ["John Smith", "J. Robert Smith", I, true, "TX (H): J first, any middle name"],
  ["John Smith", "James Smith", I, false, "TX (H): 'John' or 'J' as the first name only"],
  ["John Smith", "Jon Smith", I, false, "TX (H): first names are not spelled loosely"],
  ["John Smith", "John Smyth", I, false, "CO: only exact last names"],
  ["Smith, J", "Smith, J", I, true, "CO table: Smith, J"],
  ["Smith, J", "John Smith", I, true, "CO table: Smith, J returns Smith, John"],
  ["Smith, J", "Smith, John A", I, true, "CO table: Smith, J returns Smith, John A"],
  ["Smith, J", "Jane Smith", I, true, "TX (H): an initial finds every name that begins with it"],
  ["Smith, J", "Mary Smith", I, false, "TX (H): only names beginning with J"],
  ["Smith", "Smith", I, true, "CO table, IA, IN: last name only"],
  ["Smith", "John Smith", I, false, "CO table: last name only finds no first or middle name"],
  ["Cher", "Cher", I, true, "IA, IN: a single name is a last name"],
  ["Smith, John", "John Smith", I, true, "a comma means last name first"],
  ["SMITH, JOHN ALLEN", "John A. Smith", I, true, "TX (H): a filed initial A stands for Allen"],
  ["John Allen Smith", "John Albert Smith", I, false, "TX (H): Allen is not Albert"],
  ["John Smith Jr", "John Smith", I, true, "CO: only last, first and middle names are used"],
  ["Smith, John, Jr.", "John Smith Sr", I, true, "CO: suffixes are not used"],
  ["John Smith III", "SMITH, JOHN", I, true, "CO: suffixes are not used"],
  ["José Peña", "PENA, JOSE", I, true, "TX (D): accents are disregarded"],
  ["Maria de la Cruz", "DE LA CRUZ, MARIA", I, true, "CO: spaces in the last name are removed"],
  ["Mary Smith-Jones", "SMITH JONES, MARY", I, true, "CO: punctuation becomes a space; spaces removed"],
  ["Patrick O'Brien", "OBRIEN, PATRICK", I, true, "TX (D): punctuation is disregarded"],
  ["Van Buren, Martin", "Martin VanBuren", I, true, "CO: spaces in the last name are removed"],
  ["J Smith", "John Smith", I, true, "TX (H): initials equal names that begin with them"],
  ["J A Smith", "James Arthur Smith", I, true, "TX (H): both initials"],
  ["J A Smith", "James Smith", I, false, "TX (H): a middle initial needs a middle name"],
  ["J A Smith", "James B Smith", I, false, "TX (H): B does not begin with A"],
  ["Mary Ann Smith", "Mary Smith", I, false, "TX (H): a middle name needs a middle name"],
  ["Mary Smith", "Mary Ann Smith", I, true, "TX (H): no middle name finds all middle names"],
  ["Smith, Mary A", "Smith, Mary Ann", I, true, "TX (H): an initial finds the names it begins"],
  ["Smith, Mary Ann", "Smith, Mary A", I, true, "TX (H): a filed initial stands for the name"],
  ["Smith John", "John Smith", I, false, "without a comma the first word is the first name"],
  ["Mary Smith Jones", "Mary Smith-Jones", I, true, "TX (D), (G): the hyphen is punctuation, spaces disregarded"],
  ["Mary Smith Jones", "SMITH-JONES, MARY", I, true, "TX (D), (G): the hyphen is punctuation, spaces disregarded"],
  ["Mary Ann Smith Jones", "Smith-Jones, Mary A.", I, true, "TX (D), (G), (H): with a middle initial"],
  ["M Smith Jones Jr", "Mary Smith-Jones", I, true, "TX (D), (G), (H): an initial, a suffix"],
  ["Smith Jones, Mary", "Mary Smith-Jones", I, true, "TX (D), (G): last name first"],
  ["Mary Smith Jones", "Jones, Mary Smith", I, true, "TX (H): Smith may still be the middle name"],
  ["Mary Smith Jones", "Mary Jones-Smith", I, false, "TX (H): the last name must be equal"],
  ["Mary Smith Jones", "Mary Jones", I, false, "TX (H): a middle name needs a middle name"],
  ["Mary Smith Jones", "Smith, Mary", I, false, "TX (H): the last name must be equal"],
  ["Mary Smith-Jones", "Mary Smith Jones", I, false, "TX (H): filed without a comma, Smith is a middle name"],
  ["𝐉𝐨𝐡𝐧 𝐒𝐦𝐢𝐭𝐡", "SMITH, JOHN", I, true, "TX (B): mathematical letters are letters"],
  ["Smith, John", "𝐉𝐎𝐇𝐍 𝐀 𝐒𝐌𝐈𝐓𝐇", I, true, "TX (B), (H): mathematical capitals are capitals"],
  ["John Smith", "JOHN SMITH", O, true, "an organization-type filing matches as an organization"],
  ["John Smith", "Smith, John", O, false, "organizations are not read as individuals"],
];

describe("a search finds a debtor under standard search logic", () => {
  it("has at least 60 published-rule examples", () => {
    expect(ORGANIZATIONS.length + INDIVIDUALS.length).toBeGreaterThanOrEqual(60);
  });

  it.each(ORGANIZATIONS)("organizations: %s -> %s (%s): %s [%s]", (query, filed, type, finds) => {
    expect(findsDebtor(query, filed, type)).toBe(finds);
  });

  it.each(INDIVIDUALS)("individuals: %s -> %s (%s): %s [%s]", (query, filed, type, finds) => {
    expect(findsDebtor(query, filed, type)).toBe(finds);
  });
});

describe("individual names read into parts", () => {
  it.each([
    ["John Allen Smith", { last: "smith", first: "john", middle: "allen" }],
    ["SMITH, JOHN ALLEN JR", { last: "smith", first: "john", middle: "allen" }],
    ["Smith Jr., John", { last: "smith", first: "john", middle: "" }],
    ["John Smith, III", { last: "smith", first: "john", middle: "" }],
    ["Mary Ann Beth Jones", { last: "jones", first: "mary", middle: "annbeth" }],
    ["Ludwig van Beethoven", { last: "vanbeethoven", first: "ludwig", middle: "" }],
    ["Anna Maria De La Cruz", { last: "delacruz", first: "anna", middle: "maria" }],
    ["Cher", { last: "cher", first: "", middle: "" }],
    ["Zoë Ångström", { last: "angstrom", first: "zoe", middle: "" }],
    ["Smith,", { last: "smith", first: "", middle: "" }],
  ])("%s", (name, parts) => {
    expect(personName(name)).toEqual(parts);
  });

  it("has no individual reading without letters or digits", () => {
    expect(personName("!!!")).toBeNull();
    expect(debtorKey("!!!", "Individual")).toBe("");
  });

  it("keys individuals apart from organizations of the same letters", () => {
    expect(debtorKey("Cher", "Individual")).not.toBe(debtorKey("Cher", "Organization"));
    expect(debtorKey("Smith, John A", "Individual")).toBe(debtorKey("John A. Smith", "Individual"));
  });
});

describe("accent folding", () => {
  it("keeps the base letter of accented and special letters", () => {
    expect(foldAccents("Ñandú Ærø Straße Łódź Ðurđević Þór İstanbul ﬁne")).toBe(
      "nandu aero strasse lodz durdevic thor istanbul fine",
    );
    expect(debtorNameKey("CAFÉ OLÉ")).toBe(debtorNameKey("Cafe Ole"));
  });

  it("reads capitals that have no lower-case form as the letters they are", () => {
    expect(foldAccents("𝐇𝐀𝐑𝐁𝐎𝐑 ℌarbor 🄷🄰🅁🄱🄾🅁 ⒽⒶⓇⒷⓄⓇ ᴴᴬᴿᴮᴼᴿ")).toBe("harbor harbor harbor harbor harbor");
  });
});

describe("properties", () => {
  const word = fc.stringMatching(/^[A-Za-zÀ-ÿ'.-]{1,10}$/);
  const name = fc.array(word, { minLength: 1, maxLength: 5 }).map((ws) => ws.join(" "));

  it("a search for a debtor's filed name finds that debtor, of either type", () => {
    fc.assert(
      fc.property(name, fc.constantFrom(O, I), (filed, type) => {
        fc.pre(debtorKey(filed, type) !== "");
        expect(findsDebtor(filed, filed, type)).toBe(true);
      }),
    );
  });

  it("'First Middle Last' finds what 'Last, First Middle' finds, and 'Middle-Last, First' too", () => {
    const part = fc.stringMatching(/^[A-Za-z]{2,8}$/);
    fc.assert(
      fc.property(part, part, fc.option(part), part, (first, last, middle, other) => {
        fc.pre(![first, middle, last].some((w) => w && /^(jr|sr|ii|iii|iv|md|esq|phd|dds|dvm|cpa)$/i.test(w)));
        const given = middle ? `${first} ${middle}` : first;
        for (const filed of [`${other} ${last}`, `${first} ${other} ${last}`, `${first[0]} ${last}`]) {
          expect(findsDebtor(`${given} ${last}`, filed, I)).toBe(findsDebtor(`${last}, ${given}`, filed, I));
        }
        if (middle) expect(findsDebtor(`${given} ${last}`, `${middle}-${last}, ${first}`, I)).toBe(true);
      }),
    );
  });

  /** Each letter and digit: itself, its other case, and every character whose NFKD is it (𝐇, ℌ, Ⓗ, 🄷, Ｈ, ᴴ, ...). */
  const FORMS = new Map<string, string[]>();
  for (let c = 0; c < 0x110000; c++) {
    if (c >= 0xd800 && c < 0xe000) continue;
    const ch = String.fromCodePoint(c);
    const plain = ch.normalize("NFKD");
    if (/^[A-Za-z0-9]$/.test(plain)) FORMS.set(plain.toLowerCase(), [...(FORMS.get(plain.toLowerCase()) ?? []), ch]);
  }

  it("any compatibility form of a name finds, and is found by, what the plain name does", () => {
    expect(FORMS.get("h")).toEqual(expect.arrayContaining(["H", "h", "𝐇", "ℌ", "Ⓗ", "🄷", "Ｈ", "ᴴ"]));
    const plain = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9&.,' -]{0,40}$/);
    const named = plain.chain((name) =>
      fc.tuple(fc.constant(name), fc.array(fc.nat(), { minLength: name.length, maxLength: name.length })),
    );
    fc.assert(
      fc.property(named, ([name, picks]) => {
        const forms = (ch: string) => FORMS.get(ch.toLowerCase()) ?? [ch];
        const variant = [...name].map((ch, i) => forms(ch)[(picks[i] ?? 0) % forms(ch).length]).join("");
        expect(debtorQuery(variant)).toEqual(debtorQuery(name));
        expect(debtorKey(variant, O)).toBe(debtorKey(name, O));
        expect(debtorKey(variant, I)).toBe(debtorKey(name, I));
        expect(securedNameWords(variant)).toBe(securedNameWords(name));
        expect(nameSoundKeys(variant)).toEqual(nameSoundKeys(name));
      }),
      { numRuns: 500 },
    );
  });
});

describe("secured-party names", () => {
  it("are found by whole leading words, as lender search reads them", () => {
    expect(findsSecuredParty("wells fargo", "WELLS FARGO BANK, N.A.")).toBe(true);
    expect(findsSecuredParty("Wells  Fargo.", "wells fargo")).toBe(true);
    expect(findsSecuredParty("wells far", "WELLS FARGO BANK, N.A.")).toBe(false);
    expect(findsSecuredParty("fargo", "WELLS FARGO BANK, N.A.")).toBe(false);
    expect(findsSecuredParty("...", "WELLS FARGO BANK, N.A.")).toBe(false);
  });

  it("find a name exactly when its words begin with the query's words", () => {
    const word = fc.constantFrom("first", "firsttest", "test", "bank", "na", "N.A.", "Bank,", "&");
    const name = fc.array(word, { maxLength: 5 }).map((ws) => ws.join(" "));
    fc.assert(
      fc.property(name, name, (query, filed) => {
        const [q, f] = [securedNameWords(query), securedNameWords(filed)];
        expect(findsSecuredParty(query, filed)).toBe(q !== "" && (f === q || f.startsWith(`${q} `)));
      }),
    );
  });
});

describe("party kinds", () => {
  // names.ts names its own kinds, to import nothing (the typed client compiles a copy of it): they are the schema's.
  it("are the ones the schema stores (checked when the tests are type-checked)", () => {
    expectTypeOf<Parameters<typeof debtorKey>[1]>().toEqualTypeOf<PartyType>();
    expectTypeOf<Parameters<typeof findsDebtor>[2]>().toEqualTypeOf<PartyType>();
  });
});
