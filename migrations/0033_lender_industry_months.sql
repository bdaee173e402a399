-- A lapse list by lender and one or two industries is counted from each
-- lender name's months by lapse (0030), rather than by reading each of the
-- lender's entries in the window (11,612 rows for one bank and
-- Manufacturing at five million filings): each month row of a lender's "k"
-- facet keeps, in `industries` (0032), its filings whose debtors hold each
-- industry, and each pair of industries, that any of them hold, with their
-- running totals by day as `sets` keeps the month's own
-- (src/db/schema.ts). A count by one industry reads that industry's; by
-- two, both and less their pair's (src/queries/lapsing.ts).
-- They are built here from the stored filings, with the industries of each
-- filing's debtors as its secured-party rows hold them
-- (secured_parties.debtor_industries, 0031), or from its debtors where
-- `npm run db:rekey` has not filled them: read off the table in its own
-- order and grouped by lender, day and set before each set is split into
-- its industries and pairs, under a place of the state and the
-- industries' letters ("CA:k", "CA:ak") in a work table; then each month's
-- running totals, as 0030 makes a lender's; then each month row of the
-- state takes its terms'. Every "k" month row is written, so that running
-- it again (after a rollback) leaves none behind.
-- The Worker running until the deploy neither reads nor writes them: deploy
-- with the feed-events queue paused (docs/deploying.md).
-- Each lender name's live filings that lapse, by day, under each industry and pair of industries
-- their debtors hold.
CREATE TABLE `lender_terms` AS
WITH RECURSIVE `bits` (`i`) AS (SELECT 0 UNION ALL SELECT `i` + 1 FROM `bits` WHERE `i` < 14),
`held` AS (
	SELECT `filing_state` AS `place`, `name_id`, `lapses_on`, coalesce(`debtor_industries`, (
		SELECT sum(DISTINCT 1 << CAST(`d`.`industry` AS INTEGER)) FROM `debtor_parties` `d`
		WHERE `d`.`filing_id` = `s`.`filing_id` AND typeof(`d`.`industry`) IN ('integer', 'real')), 0) AS `m`,
		count(DISTINCT `filing_id`) AS `n`
	FROM `secured_parties` AS `s` NOT INDEXED WHERE `lapses_on` IS NOT NULL
	GROUP BY 1, 2, 3, 4
)
SELECT `h`.`place` || ':' || char(97 + `a`.`i`) || CASE WHEN `b`.`i` > `a`.`i` THEN char(97 + `b`.`i`) ELSE '' END AS `place`,
	`l`.`words` AS `name`, '' AS `facet`, CAST(date(`h`.`lapses_on` * 86400, 'unixepoch') AS TEXT) AS `day`, sum(`h`.`n`) AS `n`
FROM `held` `h` JOIN `bits` `a` ON (`h`.`m` >> `a`.`i`) & 1 JOIN `bits` `b` ON `b`.`i` >= `a`.`i` AND (`h`.`m` >> `b`.`i`) & 1
	JOIN `lender_names` `l` ON `l`.`id` = `h`.`name_id`
WHERE `h`.`m` <> 0
GROUP BY 1, 2, `h`.`lapses_on`;
--> statement-breakpoint
-- The same of the whole-word prefixes two or more of a filing's lender names share (facet "+"), as above.
INSERT INTO `lender_terms` (`place`, `name`, `facet`, `day`, `n`)
WITH RECURSIVE `bits` (`i`) AS (SELECT 0 UNION ALL SELECT `i` + 1 FROM `bits` WHERE `i` < 14),
`parties` AS (
	SELECT `s`.`filing_state` AS `place`, `s`.`filing_id`, `s`.`lapses_on`, `n`.`words`,
		substr(`n`.`words`, 1, instr(`n`.`words` || ' ', ' ') - 1) AS `first`,
		coalesce(`s`.`debtor_industries`, (
			SELECT sum(DISTINCT 1 << CAST(`d`.`industry` AS INTEGER)) FROM `debtor_parties` `d`
			WHERE `d`.`filing_id` = `s`.`filing_id` AND typeof(`d`.`industry`) IN ('integer', 'real')), 0) AS `m`
	FROM `secured_parties` `s` JOIN `lender_names` `n` ON `n`.`id` = `s`.`name_id`
	WHERE `s`.`lapses_on` IS NOT NULL AND `s`.`filing_id` IN (
		SELECT `filing_id` FROM `secured_parties` WHERE `position` > 0 AND `lapses_on` IS NOT NULL)
),
`several` AS (
	SELECT DISTINCT `p`.`place`, `p`.`filing_id`, `p`.`lapses_on`, `p`.`m`, `p`.`words` FROM `parties` `p`
	WHERE `p`.`m` <> 0 AND (`p`.`filing_id`, `p`.`first`) IN (
		SELECT `filing_id`, `first` FROM `parties` GROUP BY `filing_id`, `first` HAVING count(DISTINCT `words`) > 1)
),
`prefixes` (`place`, `filing_id`, `lapses_on`, `m`, `prefix`, `rest`) AS (
	SELECT `place`, `filing_id`, `lapses_on`, `m`, '', `words` || ' ' FROM `several`
	UNION ALL
	SELECT `place`, `filing_id`, `lapses_on`, `m`,
		`prefix` || CASE WHEN `prefix` = '' THEN '' ELSE ' ' END || substr(`rest`, 1, instr(`rest`, ' ') - 1),
		substr(`rest`, instr(`rest`, ' ') + 1)
	FROM `prefixes` WHERE `rest` <> ''
),
`shared` AS (
	SELECT `place`, `prefix` AS `name`, `lapses_on`, `m`, count(*) - 1 AS `n`
	FROM `prefixes` WHERE `prefix` <> ''
	GROUP BY `place`, `filing_id`, `lapses_on`, `m`, `prefix` HAVING count(*) > 1
)
SELECT `s`.`place` || ':' || char(97 + `a`.`i`) || CASE WHEN `b`.`i` > `a`.`i` THEN char(97 + `b`.`i`) ELSE '' END,
	`s`.`name`, '+', CAST(date(`s`.`lapses_on` * 86400, 'unixepoch') AS TEXT), sum(`s`.`n`)
FROM `shared` `s` JOIN `bits` `a` ON (`s`.`m` >> `a`.`i`) & 1 JOIN `bits` `b` ON `b`.`i` >= `a`.`i` AND (`s`.`m` >> `b`.`i`) & 1
GROUP BY 1, 2, `s`.`lapses_on`;
--> statement-breakpoint
CREATE INDEX `lender_terms_day` ON `lender_terms` (`place`, `name`, `facet`, `day`, `n`);
--> statement-breakpoint
-- Each month of each lender name under each industry term: its filings, and its days' running totals (each the month's filings through that day, read off the work table's index) as the
-- loaders keep them (src/db/tallies.ts, keptRunning): the index of its first day with a filing, then the
-- totals from that day to the day before its last.
CREATE TABLE `term_months` AS
SELECT `g`.`place`, `g`.`name`, `g`.`facet`, `g`.`month`, `g`.`n`,
	'[' || (CAST(substr(`g`.`first`, 9, 2) AS INTEGER) - 1) || CASE WHEN `g`.`first` < `g`.`last` THEN coalesce(',' || (
		SELECT group_concat((
			SELECT sum(`l`.`n`) FROM `lender_terms` `l`
			WHERE `l`.`place` = `g`.`place` AND `l`.`name` = `g`.`name` AND `l`.`facet` = `g`.`facet`
				AND `l`.`day` > `g`.`month` AND `l`.`day` <= `g`.`month` || '-' || `d`.`value`
		), ',')
		FROM json_each('["01","02","03","04","05","06","07","08","09","10","11","12","13","14","15","16","17","18","19","20","21","22","23","24","25","26","27","28","29","30","31"]') `d`
		WHERE `g`.`month` || '-' || `d`.`value` >= `g`.`first` AND `g`.`month` || '-' || `d`.`value` < `g`.`last`
	), '') ELSE '' END || ']' AS `sets`
FROM (
	SELECT `place`, `name`, `facet`, substr(`day`, 1, 7) AS `month`, sum(`n`) AS `n`, min(`day`) AS `first`, max(`day`) AS `last`
	FROM `lender_terms` GROUP BY `place`, `name`, `facet`, substr(`day`, 1, 7)
) `g`;
--> statement-breakpoint
CREATE INDEX `term_months_key` ON `term_months` (`name`, `facet`, `month`, `place`);
--> statement-breakpoint
-- Each month row of a state, its months under the terms as one object in term order
-- (src/db/tallies.ts, keptTerm): {"k":[filings, first, ...running]}.
UPDATE `facet_tallies` SET `industries` = (
	SELECT nullif(json_group_object(substr(`i`.`place`, instr(`i`.`place`, ':') + 1), json('[' || `i`.`n` || ',' || substr(`i`.`sets`, 2))), '{}')
	FROM (
		SELECT `place`, `n`, `sets` FROM `term_months`
		WHERE `name` = `facet_tallies`.`name` AND `facet` = `facet_tallies`.`facet` AND `month` = substr(`facet_tallies`.`day`, 2)
			AND `place` > `facet_tallies`.`place` || ':' AND `place` < `facet_tallies`.`place` || ';'
		ORDER BY `place`
	) `i`)
WHERE `scope` = 'k';
--> statement-breakpoint
DROP TABLE `term_months`;
--> statement-breakpoint
DROP TABLE `lender_terms`;