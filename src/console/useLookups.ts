/**
 * Status and lapse date of each filing on an envelope-A page (the exact-name
 * search, a state's recent filings), which carries neither: from the public
 * lookup, all at once. Each answer fills its row; one that fails says why in
 * its row.
 */
import { useEffect, useState } from "hono/jsx/dom";
import { call, type LienA } from "./api.ts";
import { filingKey, type Lookup } from "./LienTable.tsx";

export function useLookups(liens: LienA[] | undefined): Map<string, Lookup> {
  const [lookups, setLookups] = useState(new Map<string, Lookup>());
  const page = liens?.map(filingKey).join(" ") ?? "";
  useEffect(() => {
    if (!liens || liens.length === 0) return;
    const controller = new AbortController();
    setLookups(new Map(liens.map((l) => [filingKey(l), { phase: "loading" }])));
    for (const lien of liens) {
      const params = { initial_financing_number: lien.initial_financing_number, state: lien.jurisdiction_state };
      call("/filings", params, controller.signal).then((outcome) => {
        if (controller.signal.aborted) return;
        const lookup: Lookup = outcome.ok
          ? { phase: "done", lien: outcome.body.ucc_liens[0] }
          : { phase: "failed", problem: outcome.problem };
        setLookups((before) => new Map(before).set(filingKey(lien), lookup));
      });
    }
    return () => controller.abort();
  }, [page]);
  return lookups;
}
