-- A ZIP5's facets by debtor industry ("z") take the form a state's have
-- (src/db/schema.ts, facetCounts; src/db/records.ts, industryFacets): the
-- exact set of the industries of a filing's debtors in that ZIP5 (name
-- "e" and its size, as letters) and each of its sets of one or two
-- industries ("i1", "i2"), beside "*", which stays. A postal-code list
-- filtered by industry is then counted from a few facets per industry
-- asked for, not from every industry set seen in the ZIP5. The facets are
-- derived from stored rows, so they are rebuilt here from debtors: nothing
-- is reloaded. Days before the recency window share the bucket
-- "0000-00-00", as the loaders write them (src/db/load.ts, facetCutoffDay).
-- The old facets (name "", a set of labels) stay for the Worker still
-- running until the deploy, which counts from them; the new code never
-- reads them, and a later migration deletes them (docs/deploying.md).
DELETE FROM `facet_days` WHERE `scope` = 'z' AND `name` <> '';--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 'z' AND `name` <> '';--> statement-breakpoint
INSERT INTO `facet_days` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `running`)
WITH `places` AS (
	SELECT DISTINCT `filing_id`, `zip5`, `filed_at`
	FROM `debtor_parties`
	WHERE `zip5` IS NOT NULL
),
`letters` AS (
	SELECT DISTINCT `filing_id`, `zip5`, char(97 + cast(`industry` AS integer)) AS `letter`
	FROM `debtor_parties`
	WHERE `zip5` IS NOT NULL AND typeof(`industry`) IN ('integer', 'real')
),
`sets` AS (
	SELECT `filing_id`, `zip5`, group_concat(`letter`, '') AS `facet`
	FROM (SELECT `filing_id`, `zip5`, `letter` FROM `letters` ORDER BY `filing_id`, `zip5`, `letter`)
	GROUP BY `filing_id`, `zip5`
),
`dated` AS (
	SELECT `p`.`filing_id`, `p`.`zip5`,
		CASE WHEN date(`p`.`filed_at`, 'unixepoch') < date('now', '-90 days') THEN '0000-00-00'
			ELSE date(`p`.`filed_at`, 'unixepoch') END AS `day`,
		coalesce(`s`.`facet`, '') AS `facet`
	FROM `places` `p` LEFT JOIN `sets` `s` ON `s`.`filing_id` = `p`.`filing_id` AND `s`.`zip5` = `p`.`zip5`
),
`facets` AS (
	SELECT `zip5`, `day`, 'e' || printf('%x', length(`facet`)) AS `name`, `facet` FROM `dated`
	UNION ALL
	SELECT `d`.`zip5`, `d`.`day`, 'i1', `a`.`letter`
	FROM `dated` `d` JOIN `letters` `a` ON `a`.`filing_id` = `d`.`filing_id` AND `a`.`zip5` = `d`.`zip5`
	UNION ALL
	SELECT `d`.`zip5`, `d`.`day`, 'i2', `a`.`letter` || `b`.`letter`
	FROM `dated` `d` JOIN `letters` `a` ON `a`.`filing_id` = `d`.`filing_id` AND `a`.`zip5` = `d`.`zip5`
		JOIN `letters` `b` ON `b`.`filing_id` = `d`.`filing_id` AND `b`.`zip5` = `d`.`zip5` AND `b`.`letter` > `a`.`letter`
)
SELECT 'z', `zip5`, `name`, `facet`, `day`, count(*), NULL
FROM `facets`
GROUP BY `zip5`, `name`, `facet`, `day`;--> statement-breakpoint
INSERT INTO `facet_counts` (`scope`, `place`, `name`, `facet`, `filings`)
SELECT `scope`, `place`, `name`, `facet`, sum(`filings`)
FROM `facet_days`
WHERE `scope` = 'z' AND `name` <> ''
GROUP BY `scope`, `place`, `name`, `facet`;--> statement-breakpoint
UPDATE `facet_days` SET `running` = `fresh`.`running`
FROM (
	SELECT `scope`, `place`, `name`, `facet`, `day`,
		sum(`filings`) OVER (PARTITION BY `place`, `name`, `facet` ORDER BY `day` DESC) AS `running`
	FROM `facet_days`
	WHERE `scope` = 'z' AND `name` <> ''
) AS `fresh`
WHERE `facet_days`.`scope` = `fresh`.`scope` AND `facet_days`.`place` = `fresh`.`place`
	AND `facet_days`.`name` = `fresh`.`name` AND `facet_days`.`facet` = `fresh`.`facet`
	AND `facet_days`.`day` = `fresh`.`day`;
