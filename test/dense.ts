/**
 * A dense data set: every filing recent, in one state, at two ZIP codes,
 * with one busy debtor and one busy lender, so any query that walked or
 * counted its matches one by one would show it. The busy debtor files at a
 * new street number each time: a third of the filings' worth of known
 * addresses (500 at 1,500 filings).
 */
import type { FilingRecord } from "../src/db/records.ts";
import { daysAgo, filing, party } from "./helpers.ts";

const INDUSTRIES = ["Manufacturing", "Retail & E-commerce", "Equipment"];
/** Filing `i` of the dense data set. */
export function dense(i: number): FilingRecord {
  const zip = i % 2 === 0 ? "94107" : "94110";
  const busy = i % 3 === 0;
  const debtors = [
    party(busy ? "Busy Borrower LLC" : `Borrower ${i} Inc`, {
      zip,
      label: INDUSTRIES[i % INDUSTRIES.length]!,
      street1: `${busy ? i : i % 4} Market St`,
    }),
  ];
  if (i % 5 === 0) debtors.push(party(`Owner ${i % 7}`, { type: "Individual", zip, street1: "9 Home Ln" }));
  // A rare industry: one filing in fifty.
  if (i % 50 === 0) debtors[0]!.label = "Energy & Utilities";
  const terminated = i % 4 === 0;
  return filing({
    number: `D${String(i).padStart(7, "0")}`,
    filedAt: daysAgo(1 + (i % 80) + i / 100_000),
    debtors,
    securedParties: [party(i % 2 === 0 ? "Wells Fargo Bank, N.A." : "Wells Fargo Equipment Finance")],
    amendments: terminated
      ? [{ number: `D${i}-T`, filedAt: daysAgo(i % 60), kind: "termination", description: "Termination" }]
      : [],
  });
}
