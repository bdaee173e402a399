-- Lender counts take away, per filing, the whole-word lender-name prefixes
-- that two or more of its secured parties' names start with ("o" facets,
-- src/db/schema.ts facetCounts; src/db/records.ts sharedPrefixes): a filing
-- with two matching lenders counts once. Data loaded before the loaders wrote
-- them has none, so such a filing counted once per matching lender. They are
-- derived from stored secured parties, so they are rebuilt here, with their
-- totals and running totals: nothing is reloaded. A facet is the set of
-- debtor kinds on the filing, as the "l" facets; days before the recency
-- window share the bucket "0000-00-00", as the loaders write them
-- (src/db/load.ts, facetCutoffDay).
DELETE FROM `facet_days` WHERE `scope` = 'o';--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 'o';--> statement-breakpoint
INSERT INTO `facet_days` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `running`)
WITH RECURSIVE `lenders` AS (
	SELECT DISTINCT `filing_id`, `filing_state`, `filed_at`, `debtor_types`, `name_words` AS `name`
	FROM `secured_parties`
),
`shared` AS (
	SELECT * FROM `lenders`
	WHERE `filing_id` IN (SELECT `filing_id` FROM `lenders` GROUP BY `filing_id` HAVING count(*) > 1)
),
-- Each name's whole-word prefixes: its first word, then one more word at a time.
`prefixes` (`filing_id`, `filing_state`, `filed_at`, `debtor_types`, `name`, `prefix`) AS (
	SELECT `filing_id`, `filing_state`, `filed_at`, `debtor_types`, `name`,
		substr(`name`, 1, instr(`name` || ' ', ' ') - 1)
	FROM `shared`
	UNION ALL
	SELECT `filing_id`, `filing_state`, `filed_at`, `debtor_types`, `name`,
		substr(`name`, 1, length(`prefix`) + instr(substr(`name` || ' ', length(`prefix`) + 2), ' '))
	FROM `prefixes`
	WHERE length(`prefix`) < length(`name`)
),
-- A prefix that n of a filing's names start with counts the filing n - 1 times too many.
`extra` AS (
	SELECT `filing_state`, `filed_at`, `debtor_types`, `prefix`, count(*) - 1 AS `filings`
	FROM `prefixes`
	GROUP BY `filing_id`, `prefix`
	HAVING count(*) > 1
)
SELECT 'o', `filing_state`, `prefix`,
	CASE `debtor_types` WHEN 1 THEN 'Individual' WHEN 2 THEN 'Organization' WHEN 3 THEN 'Individual|Organization' ELSE '' END,
	CASE WHEN date(`filed_at`, 'unixepoch') < date('now', '-90 days') THEN '0000-00-00'
		ELSE date(`filed_at`, 'unixepoch') END AS `day`,
	sum(`filings`), NULL
FROM `extra`
GROUP BY 1, 2, 3, 4, 5;--> statement-breakpoint
INSERT INTO `facet_counts` (`scope`, `place`, `name`, `facet`, `filings`)
SELECT `scope`, `place`, `name`, `facet`, sum(`filings`)
FROM `facet_days`
WHERE `scope` = 'o'
GROUP BY `scope`, `place`, `name`, `facet`;--> statement-breakpoint
UPDATE `facet_days` SET `running` = `fresh`.`running`
FROM (
	SELECT `place`, `name`, `facet`, `day`,
		sum(`filings`) OVER (PARTITION BY `place`, `name`, `facet` ORDER BY `day` DESC) AS `running`
	FROM `facet_days`
	WHERE `scope` = 'o'
) AS `fresh`
WHERE `facet_days`.`scope` = 'o' AND `facet_days`.`place` = `fresh`.`place`
	AND `facet_days`.`name` = `fresh`.`name` AND `facet_days`.`facet` = `fresh`.`facet`
	AND `facet_days`.`day` = `fresh`.`day`;
