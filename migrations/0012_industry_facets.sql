-- A state's facets by debtor industry change form (src/db/schema.ts,
-- facetCounts; src/db/records.ts, industryFacets): each filing's exact set
-- of industries (name "e" and its size, as letters: "a" is the first of
-- INDUSTRIES, whose stored code is 0; a code is a number, another label
-- text) and each of its sets of one or two
-- industries ("i1", "i2"), beside "*", which stays. And running totals now
-- sum from the newest day back. Both are derived from stored rows, so they
-- are rebuilt here from filings and debtors: nothing is reloaded. Days
-- before the recency window share the bucket "0000-00-00", as the loaders
-- write them (src/db/load.ts, facetCutoffDay).
DELETE FROM `facet_days` WHERE `scope` = 's' AND NOT (`name` = '' AND `facet` = '*');--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 's' AND NOT (`name` = '' AND `facet` = '*');--> statement-breakpoint
INSERT INTO `facet_days` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `running`)
WITH `letters` AS (
	SELECT DISTINCT `filing_id`, char(97 + cast(`industry` AS integer)) AS `letter`
	FROM `debtor_parties`
	WHERE typeof(`industry`) IN ('integer', 'real')
),
`sets` AS (
	SELECT `filing_id`, group_concat(`letter`, '') AS `facet`
	FROM (SELECT `filing_id`, `letter` FROM `letters` ORDER BY `filing_id`, `letter`)
	GROUP BY `filing_id`
),
`dated` AS (
	SELECT `f`.`id`, `f`.`state`,
		CASE WHEN date(`f`.`filed_at`, 'unixepoch') < date('now', '-90 days') THEN '0000-00-00'
			ELSE date(`f`.`filed_at`, 'unixepoch') END AS `day`,
		coalesce(`s`.`facet`, '') AS `facet`
	FROM `filings` `f` LEFT JOIN `sets` `s` ON `s`.`filing_id` = `f`.`id`
),
`facets` AS (
	SELECT `state`, `day`, 'e' || printf('%x', length(`facet`)) AS `name`, `facet` FROM `dated`
	UNION ALL
	SELECT `d`.`state`, `d`.`day`, 'i1', `a`.`letter`
	FROM `dated` `d` JOIN `letters` `a` ON `a`.`filing_id` = `d`.`id`
	UNION ALL
	SELECT `d`.`state`, `d`.`day`, 'i2', `a`.`letter` || `b`.`letter`
	FROM `dated` `d` JOIN `letters` `a` ON `a`.`filing_id` = `d`.`id`
		JOIN `letters` `b` ON `b`.`filing_id` = `d`.`id` AND `b`.`letter` > `a`.`letter`
)
SELECT 's', `state`, `name`, `facet`, `day`, count(*), NULL
FROM `facets`
GROUP BY `state`, `name`, `facet`, `day`;--> statement-breakpoint
INSERT INTO `facet_counts` (`scope`, `place`, `name`, `facet`, `filings`)
SELECT `scope`, `place`, `name`, `facet`, sum(`filings`)
FROM `facet_days`
WHERE `scope` = 's' AND NOT (`name` = '' AND `facet` = '*')
GROUP BY `scope`, `place`, `name`, `facet`;--> statement-breakpoint
UPDATE `facet_days` SET `running` = `fresh`.`running`
FROM (
	SELECT `scope`, `place`, `name`, `facet`, `day`,
		sum(`filings`) OVER (PARTITION BY `scope`, `place`, `name`, `facet` ORDER BY `day` DESC) AS `running`
	FROM `facet_days`
) AS `fresh`
WHERE `facet_days`.`scope` = `fresh`.`scope` AND `facet_days`.`place` = `fresh`.`place`
	AND `facet_days`.`name` = `fresh`.`name` AND `facet_days`.`facet` = `fresh`.`facet`
	AND `facet_days`.`day` = `fresh`.`day`;
