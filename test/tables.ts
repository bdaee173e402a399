/**
 * Every table of every shard as rows of text, for tests that compare two
 * ways of loading the same data (test/platform-load.test.ts,
 * test/platform-pull.test.ts): each table by shard, its rows sorted.
 */
import { shards } from "./helpers.ts";

/**
 * What a table is compared by where a row holds what the database assigns
 * as it commits (a change's number, when a load ran), or how many writes it
 * took (a filing's revision: ranges may write a filing in two steps).
 */
const READ: Record<string, string> = {
  filings:
    "select id, state, number, filed_at, kind, lapse_date, lapse_source, office_lapse_date, collateral, filing_office, terminated_at, (select json_group_array(json_array(l.type, l.name, l.category, l.street1, l.street2, l.city, l.state, l.zip, l.country)) from json_each(filings.lenders) j join lenders l on l.id = j.value) as lenders from filings",
  changes:
    "select state, type, filing_id, amendment, amendment_kind, changed_fields, occurred_at, removed_parties from changes",
  // A name-index row's id holds its change's number: compared by the change it files.
  change_names:
    "select c.state, c.type, c.filing_id, c.amendment, n.id % 4096 as slot, n.key from change_names n join changes c on c.seq = n.id / 4096",
  state_loads: "select state, office_through from state_loads",
  state_backfills: "select state, completed_at is not null as completed from state_backfills",
  state_summaries:
    "select state, filings, newest_filed_at, office_through, backfill_began_at is not null as began, backfill_completed_at is not null as completed from state_summaries",
  // Names and lenders by what they hold: ids follow the order a load first met them.
  lender_names: "select words from lender_names",
  facet_counts:
    "select scope, place, name, facet, filings, (select words from lender_names where id = ref) as ref from facet_counts",
  lenders: "select type, name, category, street1, street2, city, state, zip, country from lenders",
  secured_parties:
    "select filing_id, position, (select words from lender_names where id = name_id) as words, filing_state, filed_at, filing_number, lapses_on, debtor_types from secured_parties",
  lender_industry_lapses:
    "select filing_state, (select words from lender_names where id = name_id) as words, industry, lapses_on, filing_number, filing_id, position from lender_industry_lapses",
};

/** Left out everywhere: the migrations, when each load ran (data_loads) and the webhook dispatcher's positions (a Workflow's nudge moves them). */
const SKIP = ["d1_migrations", "data_loads", "webhook_positions"];

/**
 * Every row of every table of every shard but those of SKIP and `skip`,
 * each table read by READ, `reads` or whole.
 */
export async function everyTable(
  options: { skip?: string[]; reads?: Readonly<Record<string, string>> } = {},
): Promise<Record<string, string[]>> {
  const skip = new Set([...SKIP, ...(options.skip ?? [])]);
  const reads = { ...READ, ...options.reads };
  const out: Record<string, string[]> = {};
  for (const [shard, d1] of shards.databases) {
    const { results } = await d1
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like '\\_cf\\_%' escape '\\'",
      )
      .all<{ name: string }>();
    for (const { name } of results) {
      if (skip.has(name)) continue;
      const rows = await d1.prepare(reads[name] ?? `select * from "${name}"`).all();
      out[`${shard}.${name}`] = rows.results.map((r) => JSON.stringify(r)).sort();
    }
  }
  return out;
}
