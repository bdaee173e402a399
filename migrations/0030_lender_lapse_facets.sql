-- A lapse list by lender is counted from each lender name's filings by
-- lapse month, rather than by reading each of its entries in the window
-- (11,538 rows for one bank's list at five million filings). Each lender
-- name of a state gets a "k" facet (src/db/schema.ts, facetCounts): a row
-- a month ("m" and the month) holding the month's live filings that lapse
-- and, in `sets`, the running totals of its days (the month's filings on
-- days 1 to each, kept from its first day with a filing to the day before
-- its last: src/db/tallies.ts, keptRunning), each row its own group,
-- so that a change writes its month's row and never a
-- later one. Each whole-word prefix two or more of a filing's lender names
-- share gets a "k" facet with facet "+", weighted by how many share it less
-- one, so that a count under the prefix takes each filing once (as "o" does
-- by filing day).
-- The facets are derived from stored rows (the lapse day copied onto each
-- live filing's secured parties, src/db/records.ts), so they are built
-- here, gathered once into a work table dropped at the end: each lender
-- name's filings by lapse day read off secured_parties_lapsing in its
-- order, its words looked up once a name and day (2.2 s at five million
-- filings, where looking up each party's words took 30 s); then each
-- month's running totals, a range of the work table's index a day (1.2 s;
-- 3.2 s over the largest shard of 1,031,517 filings of fifty states, where
-- a window over every month's 31 days took 14.7 s).
-- The Worker running until the deploy does not read them; loads it makes
-- in between would leave them behind: deploy with the feed-events queue
-- paused (docs/deploying.md).
CREATE TABLE `lender_lapses` AS
WITH RECURSIVE `own` AS (
	SELECT `filing_state` AS `place`, `name_id`, `lapses_on`, count(DISTINCT `filing_id`) AS `n`
	FROM `secured_parties` WHERE `lapses_on` IS NOT NULL
	GROUP BY `filing_state`, `name_id`, `lapses_on`
),
-- The few filings with two lender names or more that start with the same word: only their names can share
-- a prefix. A filing's own rows are found by its key.
`parties` AS (
	SELECT `s`.`filing_state` AS `place`, `s`.`filing_id`, `s`.`lapses_on`, `n`.`words`,
		substr(`n`.`words`, 1, instr(`n`.`words` || ' ', ' ') - 1) AS `first`
	FROM `secured_parties` `s` JOIN `lender_names` `n` ON `n`.`id` = `s`.`name_id`
	WHERE `s`.`lapses_on` IS NOT NULL AND `s`.`filing_id` IN (
		SELECT `filing_id` FROM `secured_parties` WHERE `position` > 0 AND `lapses_on` IS NOT NULL)
),
`several` AS (
	SELECT DISTINCT `p`.`place`, `p`.`filing_id`, `p`.`lapses_on`, `p`.`words` FROM `parties` `p`
	WHERE (`p`.`filing_id`, `p`.`first`) IN (
		SELECT `filing_id`, `first` FROM `parties` GROUP BY `filing_id`, `first` HAVING count(DISTINCT `words`) > 1)
),
-- Each of their names' whole-word prefixes, itself included.
`prefixes` (`place`, `filing_id`, `lapses_on`, `prefix`, `rest`) AS (
	SELECT `place`, `filing_id`, `lapses_on`, '', `words` || ' ' FROM `several`
	UNION ALL
	SELECT `place`, `filing_id`, `lapses_on`,
		`prefix` || CASE WHEN `prefix` = '' THEN '' ELSE ' ' END || substr(`rest`, 1, instr(`rest`, ' ') - 1),
		substr(`rest`, instr(`rest`, ' ') + 1)
	FROM `prefixes` WHERE `rest` <> ''
),
`shared` AS (
	SELECT `place`, `prefix` AS `name`, `lapses_on`, count(*) - 1 AS `n`
	FROM `prefixes` WHERE `prefix` <> ''
	GROUP BY `place`, `filing_id`, `lapses_on`, `prefix` HAVING count(*) > 1
)
SELECT `place`, `name`, `facet`, CAST(date(`lapses_on` * 86400, 'unixepoch') AS TEXT) AS `day`, sum(`n`) AS `n` FROM (
	SELECT `o`.`place`, `l`.`words` AS `name`, '' AS `facet`, `o`.`lapses_on`, `o`.`n`
	FROM `own` `o` JOIN `lender_names` `l` ON `l`.`id` = `o`.`name_id`
	UNION ALL
	SELECT `place`, `name`, '+', `lapses_on`, `n` FROM `shared`
)
GROUP BY `place`, `name`, `facet`, `lapses_on`;
--> statement-breakpoint
INSERT INTO `facet_counts` (`scope`, `place`, `name`, `facet`, `filings`, `old`, `aged`, `ref`)
SELECT 'k', `place`, `name`, `facet`, sum(`n`), 0, 0, NULL FROM `lender_lapses` GROUP BY `place`, `name`, `facet`;
--> statement-breakpoint
CREATE INDEX `lender_lapses_day` ON `lender_lapses` (`place`, `name`, `facet`, `day`, `n`);
--> statement-breakpoint
-- Each month's row: its filings, and its days' running totals (each the month's filings through that
-- day, read off the work table's index) as the loaders keep them (src/db/tallies.ts, keptRunning): the
-- index of its first day with a filing, then the totals from that day to the day before its last.
INSERT INTO `facet_tallies` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `through`, `sets`)
SELECT 'k', `g`.`place`, `g`.`name`, `g`.`facet`, 'm' || `g`.`month`, `g`.`n`, `g`.`n`,
	'[' || (CAST(substr(`g`.`first`, 9, 2) AS INTEGER) - 1) || coalesce(',' || (
		SELECT group_concat((
			SELECT sum(`l`.`n`) FROM `lender_lapses` `l`
			WHERE `l`.`place` = `g`.`place` AND `l`.`name` = `g`.`name` AND `l`.`facet` = `g`.`facet`
				AND `l`.`day` > `g`.`month` AND `l`.`day` <= `g`.`month` || '-' || `d`.`value`
		), ',')
		FROM json_each('["01","02","03","04","05","06","07","08","09","10","11","12","13","14","15","16","17","18","19","20","21","22","23","24","25","26","27","28","29","30","31"]') `d`
		WHERE `g`.`month` || '-' || `d`.`value` >= `g`.`first` AND `g`.`month` || '-' || `d`.`value` < `g`.`last`
	), '') || ']'
FROM (
	SELECT `place`, `name`, `facet`, substr(`day`, 1, 7) AS `month`, sum(`n`) AS `n`, min(`day`) AS `first`, max(`day`) AS `last`
	FROM `lender_lapses` GROUP BY `place`, `name`, `facet`, substr(`day`, 1, 7)
) `g`;
--> statement-breakpoint
DROP TABLE `lender_lapses`;
