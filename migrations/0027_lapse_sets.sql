-- Each row of a state's "x" facet (live filings by lapse day) gains its
-- tally by exact industry set (facet_tallies.sets, src/db/schema.ts): a
-- lapse list's count by any number of industries then reads four rows
-- rather than four per industry and pair asked for. The sets are derived
-- from stored rows (each live filing that lapses, by the letters of its
-- debtors' industries, src/db/records.ts industryLetter), so they are built
-- here: a day's row holds its month's filings through that day, a month's
-- row ("m" and the month) the filings of that month and every earlier one,
-- as the tallies run (src/db/tallies.ts). The "y" facets stay, written as
-- before, for the Worker running until the deploy, which counts from them.
-- Loads between this migration and the deploy would leave the sets behind:
-- deploy with the feed-events queue paused (docs/deploying.md).
CREATE TABLE `lapse_set_changes` (
	`place` text NOT NULL,
	`day` text NOT NULL,
	`letters` text NOT NULL,
	`filings` integer NOT NULL,
	PRIMARY KEY(`place`, `day`, `letters`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `facet_tallies` ADD `sets` text;--> statement-breakpoint
INSERT INTO `facet_tallies` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `through`, `sets`)
WITH `letters` AS (
	SELECT DISTINCT `d`.`filing_id`, char(97 + cast(`d`.`industry` AS integer)) AS `letter`
	FROM `debtor_parties` `d` JOIN `filings` `f` ON `f`.`id` = `d`.`filing_id`
	WHERE typeof(`d`.`industry`) IN ('integer', 'real') AND `f`.`terminated_at` IS NULL AND `f`.`lapse_date` IS NOT NULL
),
`sets` AS (
	SELECT `filing_id`, group_concat(`letter`, '') AS `letters`
	FROM (SELECT `filing_id`, `letter` FROM `letters` ORDER BY `filing_id`, `letter`)
	GROUP BY `filing_id`
),
`own` AS MATERIALIZED (
	SELECT `f`.`state` AS `place`, CAST(date(`f`.`lapse_date` * 86400, 'unixepoch') AS TEXT) AS `day`,
		substr(date(`f`.`lapse_date` * 86400, 'unixepoch'), 1, 7) AS `month`, `s`.`letters`, count(*) AS `n`
	FROM `sets` `s` JOIN `filings` `f` ON `f`.`id` = `s`.`filing_id`
	WHERE length(`s`.`letters`) <= 2
	GROUP BY 1, 2, 3, 4
),
`x_rows` AS MATERIALIZED (
	SELECT `place`, `day`, CASE WHEN `day` LIKE 'm%' THEN substr(`day`, 2) ELSE substr(`day`, 1, 7) END AS `month`
	FROM `facet_tallies` WHERE `scope` = 'x' AND `name` = '' AND `facet` = ''
),
`monthly` AS MATERIALIZED (
	SELECT `place`, `month`, `letters`, sum(`n`) AS `n` FROM `own` GROUP BY 1, 2, 3
),
`month_sets` AS MATERIALIZED (
	SELECT DISTINCT `place`, `letters` FROM `monthly`
),
`cells` AS (
	-- A day's row: its month's filings through the day.
	SELECT `r`.`place`, `r`.`day`, `o`.`letters`, sum(`o`.`n`) AS `n`
	FROM `x_rows` `r` JOIN `own` `o` ON `o`.`place` = `r`.`place` AND `o`.`month` = `r`.`month` AND `o`.`day` <= `r`.`day`
	WHERE `r`.`day` NOT LIKE 'm%'
	GROUP BY 1, 2, 3
	UNION ALL
	-- A month's row: the filings of its month and every earlier one, a running sum over the months of
	-- each set the state holds.
	SELECT `place`, `day`, `letters`, `n` FROM (
		SELECT `r`.`place`, `r`.`day`, `s`.`letters`,
			sum(coalesce(`m`.`n`, 0)) OVER (PARTITION BY `r`.`place`, `s`.`letters` ORDER BY `r`.`day`) AS `n`
		FROM `x_rows` `r`
		JOIN `month_sets` `s` ON `s`.`place` = `r`.`place`
		LEFT JOIN `monthly` `m` ON `m`.`place` = `r`.`place` AND `m`.`month` = `r`.`month` AND `m`.`letters` = `s`.`letters`
		WHERE `r`.`day` LIKE 'm%'
	) WHERE `n` > 0
)
SELECT 'x', `place`, '', '', `day`, 0, 0, json_group_object(`letters`, `n`)
FROM (SELECT * FROM `cells` ORDER BY `place`, `day`, `letters`)
WHERE true
GROUP BY `place`, `day`
ON CONFLICT (`scope`, `place`, `name`, `facet`, `day`) DO UPDATE SET `sets` = excluded.`sets`;--> statement-breakpoint
UPDATE `facet_tallies` SET `sets` = '{}' WHERE `scope` = 'x' AND `sets` IS NULL;
