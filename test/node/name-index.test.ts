/**
 * The name keys of the change feed's index and of watchlists
 * (src/db/nameIndex.ts) never lose a match: whenever a search finds a
 * party by the name rules, the search's keys and the party's keys share
 * one, so the index lookup brings the party for the rule to check.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  changeKeys,
  debtorNameKeys,
  partyLookupKeys,
  securedNameKey,
  watchedDebtorKeys,
  watchedSecuredKey,
} from "../../src/db/nameIndex.ts";
import { debtorKey, findsDebtor, findsSecuredParty, securedNameWords } from "../../src/domain/names.ts";

// Pairs of spellings of one name (and of two names), so that a search often finds the filing.
const WORDS = ["John", "J", "Jo", "Smith", "de", "Cruz", "A", "Acme", "Inc", "LLC", "The", "&", "Jr", "N.A."];
const words = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 });
const spelled = (ws: string[]) =>
  fc.constantFrom(
    ws.join(" "),
    `${ws.at(-1)}, ${ws.slice(0, -1).join(" ")}`,
    ws.join(" ").toUpperCase(),
    ws.map((w, i) => (i === 0 && ws.length > 2 ? w.charAt(0) : w)).join(" "),
    [...ws, "Jr."].join(" "),
    ws.slice(0, -1).join(" ") || ws.join(" "),
  );
const pair = fc.oneof(
  words.chain((ws) => fc.tuple(spelled(ws), spelled(ws))),
  fc.tuple(words.chain(spelled), words.chain(spelled)),
);
const type = fc.constantFrom("Individual" as const, "Organization" as const);
const shares = (a: number[], b: number[]) => a.some((k) => b.includes(k));

describe("name keys", () => {
  it("a debtor a search finds shares a key with the search, in the change index and in watchlists", () => {
    let found = 0;
    fc.assert(
      fc.property(pair, type, ([query, filed], as) => {
        if (!findsDebtor(query, filed, as)) return;
        found += 1;
        const stored = debtorKey(filed, as);
        expect(shares(debtorNameKeys(query), changeKeys([stored], [])), `${query} / ${filed}`).toBe(true);
        expect(shares(watchedDebtorKeys(query), partyLookupKeys([stored], [])), `${query} / ${filed}`).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    // Enough of the pairs are matches for the property to say something.
    expect(found).toBeGreaterThan(100);
  });

  it("a lender a search finds by whole leading words shares a key with it", () => {
    let found = 0;
    fc.assert(
      fc.property(pair, ([query, filed]) => {
        if (!findsSecuredParty(query, filed)) return;
        found += 1;
        const words = securedNameWords(filed);
        expect(changeKeys([], [words])).toContain(securedNameKey(query));
        expect(partyLookupKeys([], [words])).toContain(watchedSecuredKey(query));
      }),
      { numRuns: 20_000 },
    );
    expect(found).toBeGreaterThan(100);
  });

  it("keeps a watched individual under the exact first name, so a namesake of the same initial is not brought", () => {
    const watched = watchedDebtorKeys("John Smith");
    expect(shares(watched, partyLookupKeys([debtorKey("Smith, John Q", "Individual")], []))).toBe(true);
    expect(shares(watched, partyLookupKeys([debtorKey("Smith, J", "Individual")], []))).toBe(true);
    expect(shares(watched, partyLookupKeys([debtorKey("Smith, Jane", "Individual")], []))).toBe(false);
    // An initial watched brings every first name of that initial.
    expect(shares(watchedDebtorKeys("J Smith"), partyLookupKeys([debtorKey("Smith, Jane", "Individual")], []))).toBe(
      true,
    );
  });
});
