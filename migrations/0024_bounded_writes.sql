-- Issue 43: loads write a facet's counts in a few rows, and co-borrowers are read by the page.
--
-- A facet's counts by day move to facet_tallies (src/db/tallies.ts), each row with its tally from the
-- first row of its group forward: a facet dated by filing or termination is one group of days, its
-- bucket of days before the recency window ("0000-00-00") moving to facet_counts.old, and its days that
-- left the window since to facet_counts.aged; a facet dated by lapse ("x", "y") groups its days by
-- month and has a row per month ("m" and the month) whose tally runs over the months. A new filing
-- writes its days' rows, a change to an old filing its facet_counts rows; stale_tallies holds what a
-- load leaves for its refresh. Built here from facet_days' counts by day, which are the same, for the
-- facets that still have filings (a facet_counts row): one taken back to nothing can keep the day of a
-- filing counted there when loaded and taken back in the old bucket. facet_days (running totals
-- from the newest day back) stays for the Worker running until the deploy, which counts from it; the
-- new code never reads or writes it, and a later migration drops it. Loads between the migration and
-- the deploy write only facet_days: deploy it with the feed-events queue paused (docs/deploying.md).
-- The tables keyed by a composite primary key are WITHOUT ROWID (src/db/schema.ts, WITHOUT_ROWID),
-- which drizzle-kit cannot declare: written here by hand.
CREATE TABLE `facet_tallies` (
	`scope` text NOT NULL,
	`place` text NOT NULL,
	`name` text NOT NULL,
	`facet` text NOT NULL,
	`day` text NOT NULL,
	`filings` integer NOT NULL,
	`through` integer NOT NULL,
	PRIMARY KEY(`scope`, `place`, `name`, `facet`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `stale_tallies` (
	`scope` text NOT NULL,
	`place` text NOT NULL,
	`name` text NOT NULL,
	`facet` text NOT NULL,
	`part` text NOT NULL,
	`day` text NOT NULL,
	PRIMARY KEY(`scope`, `place`, `name`, `facet`, `part`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `facet_tallies` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `through`)
SELECT `scope`, `place`, `name`, `facet`, `day`, `filings`,
	sum(`filings`) OVER (
		PARTITION BY `scope`, `place`, `name`, `facet`, CASE WHEN `scope` IN ('x', 'y') THEN substr(`day`, 1, 7) ELSE '' END
		ORDER BY `day`
	)
FROM `facet_days`
WHERE `day` <> '0000-00-00' AND `filings` <> 0 AND EXISTS (
	SELECT 1 FROM `facet_counts` `c`
	WHERE `c`.`scope` = `facet_days`.`scope` AND `c`.`place` = `facet_days`.`place`
		AND `c`.`name` = `facet_days`.`name` AND `c`.`facet` = `facet_days`.`facet`
);--> statement-breakpoint
INSERT INTO `facet_tallies` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `through`)
SELECT `scope`, `place`, `name`, `facet`, 'm' || `month`, `filings`,
	sum(`filings`) OVER (PARTITION BY `scope`, `place`, `name`, `facet` ORDER BY `month`)
FROM (
	SELECT `scope`, `place`, `name`, `facet`, substr(`day`, 1, 7) AS `month`, sum(`filings`) AS `filings`
	FROM `facet_days`
	WHERE `scope` IN ('x', 'y') AND EXISTS (
		SELECT 1 FROM `facet_counts` `c`
		WHERE `c`.`scope` = `facet_days`.`scope` AND `c`.`place` = `facet_days`.`place`
			AND `c`.`name` = `facet_days`.`name` AND `c`.`facet` = `facet_days`.`facet`
	)
	GROUP BY `scope`, `place`, `name`, `facet`, substr(`day`, 1, 7)
	HAVING sum(`filings`) <> 0
);--> statement-breakpoint
ALTER TABLE `facet_counts` ADD `old` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `facet_counts` ADD `aged` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `facet_counts` SET `old` = (
	SELECT `d`.`filings` FROM `facet_days` `d`
	WHERE `d`.`scope` = `facet_counts`.`scope` AND `d`.`place` = `facet_counts`.`place`
		AND `d`.`name` = `facet_counts`.`name` AND `d`.`facet` = `facet_counts`.`facet` AND `d`.`day` = '0000-00-00'
)
WHERE EXISTS (
	SELECT 1 FROM `facet_days` `d`
	WHERE `d`.`scope` = `facet_counts`.`scope` AND `d`.`place` = `facet_counts`.`place`
		AND `d`.`name` = `facet_counts`.`name` AND `d`.`facet` = `facet_counts`.`facet` AND `d`.`day` = '0000-00-00'
		AND `d`.`filings` <> 0
);--> statement-breakpoint
-- A count since the recency window's start reads a facet's total less its old bucket and its days
-- before the window (facet_counts.aged), which the daily job keeps as the window moves
-- (src/db/tallies.ts, windowStatements): as of today's window here, in a database that holds filings.
CREATE TABLE `tally_marks` (
	`id` integer PRIMARY KEY NOT NULL,
	`window_from` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `tally_marks` (`id`, `window_from`)
SELECT 1, date('now', '-90 days') WHERE EXISTS (SELECT 1 FROM `facet_counts`);--> statement-breakpoint
UPDATE `facet_counts` SET `aged` = (
	SELECT sum(`d`.`filings`) FROM `facet_days` `d`
	WHERE `d`.`scope` = `facet_counts`.`scope` AND `d`.`place` = `facet_counts`.`place`
		AND `d`.`name` = `facet_counts`.`name` AND `d`.`facet` = `facet_counts`.`facet`
		AND `d`.`day` <> '0000-00-00' AND `d`.`day` < date('now', '-90 days')
)
WHERE `scope` NOT IN ('x', 'y') AND EXISTS (
	SELECT 1 FROM `facet_days` `d`
	WHERE `d`.`scope` = `facet_counts`.`scope` AND `d`.`place` = `facet_counts`.`place`
		AND `d`.`name` = `facet_counts`.`name` AND `d`.`facet` = `facet_counts`.`facet`
		AND `d`.`day` <> '0000-00-00' AND `d`.`day` < date('now', '-90 days') AND `d`.`filings` <> 0
);--> statement-breakpoint
-- Each state's live filings (its "x" facet total) and those of them lapsed by today, which GET /states
-- counts those live today from (src/queries/states.ts).
ALTER TABLE `state_summaries` ADD `live` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `state_summaries` ADD `lapsed` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `state_summaries` ADD `lapsed_on` text;--> statement-breakpoint
UPDATE `state_summaries` SET
	`live` = coalesce((
		SELECT `filings` FROM `facet_counts`
		WHERE `scope` = 'x' AND `place` = `state_summaries`.`state` AND `name` = '' AND `facet` = ''
	), 0),
	`lapsed` = coalesce((
		SELECT sum(`filings`) FROM `facet_days`
		WHERE `scope` = 'x' AND `place` = `state_summaries`.`state` AND `name` = '' AND `facet` = ''
			AND `day` <= date('now')
	), 0),
	`lapsed_on` = date('now');--> statement-breakpoint
-- A debtor's co-debtor links in list order (src/db/schema.ts, debtorLinks): a page reads each found
-- debtor's newest.
CREATE INDEX `debtor_links_recent` ON `debtor_links` (`name_key`,`filing_state`,`last_seen`);--> statement-breakpoint
-- Each debtor's co-debtor count and keys in each state, from its links (src/db/load.ts, LINK_SET_MAX).
CREATE TABLE `debtor_link_sets` (
	`name_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`links` integer NOT NULL,
	`entries` text,
	PRIMARY KEY(`name_key`, `filing_state`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `debtor_link_sets` (`name_key`, `filing_state`, `links`, `entries`)
SELECT `name_key`, `filing_state`, count(*),
	CASE WHEN count(*) <= 20000
		THEN json_group_array(`other_key` || '|' || `other_address_key` ORDER BY `other_key` || '|' || `other_address_key`) END
FROM `debtor_links`
GROUP BY `name_key`, `filing_state`;
