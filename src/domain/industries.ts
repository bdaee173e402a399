/** The debtor industries a client may filter by (/filings/recent-by-state). */
export const INDUSTRIES = [
  "Construction & Trades",
  "Retail & E-commerce",
  "Real Estate",
  "Equipment",
  "Finance & Investments",
  "Food & Beverage",
  "Professional Services",
  "Health & Wellness",
  "Education & Training",
  "Transportation & Logistics",
  "Manufacturing",
  "Arts & Entertainment",
  "Automotive Services & Sales",
  "Energy & Utilities",
  "Agriculture & Farming",
] as const;

export type Industry = (typeof INDUSTRIES)[number];

const BY_LOWERCASE = new Map<string, Industry>(INDUSTRIES.map((i) => [i.toLowerCase(), i]));

/** The canonical industry for a case-insensitive label, if it is one. */
export function canonicalIndustry(label: string): Industry | undefined {
  return BY_LOWERCASE.get(label.trim().toLowerCase());
}
