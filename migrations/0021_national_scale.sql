CREATE TABLE `lender_names` (
	`id` integer PRIMARY KEY NOT NULL,
	`words` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `lender_names_words` ON `lender_names` (`words`);--> statement-breakpoint
CREATE TABLE `lenders` (
	`id` integer PRIMARY KEY NOT NULL,
	`type` integer NOT NULL,
	`name` text NOT NULL,
	`category` text,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	`country` text
);
--> statement-breakpoint
CREATE INDEX `lenders_name` ON `lenders` (`name`,`street1`);--> statement-breakpoint
CREATE TABLE `state_summaries` (
	`state` text PRIMARY KEY NOT NULL,
	`filings` integer NOT NULL,
	`newest_filed_at` integer,
	`last_loaded_at` integer,
	`office_through` integer,
	`backfill_began_at` integer,
	`backfill_completed_at` integer
);
--> statement-breakpoint
-- Each lender's name and published details once (src/db/schema.ts, lender_names and lenders), from the
-- stored secured parties; each filing lists its lenders, in order (filings.lenders).
INSERT INTO `lender_names` (`words`) SELECT DISTINCT `name_words` FROM `secured_parties` ORDER BY 1;--> statement-breakpoint
-- A lender facet holds its name's id (facet_counts.ref), which a lender search walks from.
ALTER TABLE `facet_counts` ADD `ref` integer;--> statement-breakpoint
UPDATE `facet_counts` SET `ref` = (SELECT `id` FROM `lender_names` WHERE `words` = `facet_counts`.`name`) WHERE `scope` = 'l';--> statement-breakpoint
INSERT INTO `lenders` (`type`, `name`, `category`, `street1`, `street2`, `city`, `state`, `zip`, `country`)
SELECT DISTINCT `type`, `name`, `category`, `street1`, `street2`, `city`, `state`, `zip`, `country` FROM `secured_parties`;--> statement-breakpoint
ALTER TABLE `filings` ADD `lenders` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
UPDATE `filings` SET `lenders` = (
	SELECT json_group_array(`l`.`id` ORDER BY `s`.`position`)
	FROM `secured_parties` `s`
	JOIN `lenders` `l` ON `l`.`name` = `s`.`name` AND `l`.`street1` IS `s`.`street1` AND `l`.`type` = `s`.`type`
		AND `l`.`category` IS `s`.`category` AND `l`.`street2` IS `s`.`street2` AND `l`.`city` IS `s`.`city`
		AND `l`.`state` IS `s`.`state` AND `l`.`zip` IS `s`.`zip` AND `l`.`country` IS `s`.`country`
	WHERE `s`.`filing_id` = `filings`.`id`
);--> statement-breakpoint
-- secured_parties keeps what lender searches read, the name by its id. It is WITHOUT ROWID
-- (src/db/schema.ts, WITHOUT_ROWID), which drizzle-kit cannot declare: rebuilt here by hand.
DROP INDEX `secured_parties_name`;--> statement-breakpoint
DROP INDEX `secured_parties_lapsing`;--> statement-breakpoint
CREATE TABLE `__new_secured_parties` (
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name_id` integer NOT NULL,
	`filing_state` text NOT NULL,
	`filed_at` integer NOT NULL,
	`filing_number` text NOT NULL,
	`lapses_on` integer,
	`debtor_types` integer NOT NULL,
	PRIMARY KEY(`filing_id`, `position`),
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;--> statement-breakpoint
INSERT INTO `__new_secured_parties`
SELECT `s`.`filing_id`, `s`.`position`, `n`.`id`, `s`.`filing_state`, `s`.`filed_at`, `s`.`filing_number`, `s`.`lapses_on`, `s`.`debtor_types`
FROM `secured_parties` `s` JOIN `lender_names` `n` ON `n`.`words` = `s`.`name_words`;--> statement-breakpoint
DROP TABLE `secured_parties`;--> statement-breakpoint
ALTER TABLE `__new_secured_parties` RENAME TO `secured_parties`;--> statement-breakpoint
CREATE INDEX `secured_parties_name` ON `secured_parties` (`filing_state`,`name_id`,`debtor_types`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `secured_parties_lapsing` ON `secured_parties` (`filing_state`,`name_id`,`lapses_on`,`filing_number`,`filing_id`) WHERE lapses_on is not null;--> statement-breakpoint
-- Each state's summary (GET /states), from what is stored, as the loaders keep it
-- (src/db/load.ts, stateSummaryStatement): its total, newest filing, loads and backfill.
INSERT INTO `state_summaries` (`state`, `filings`, `newest_filed_at`, `last_loaded_at`, `office_through`, `backfill_began_at`, `backfill_completed_at`)
SELECT `s`.`state`,
	coalesce((SELECT `filings` FROM `facet_counts` WHERE `scope` = 's' AND `place` = `s`.`state` AND `name` = '' AND `facet` = '*'), 0),
	(SELECT max(`filed_at`) FROM `filings` WHERE `filings`.`state` = `s`.`state`),
	`l`.`last_loaded_at`, `l`.`office_through`, `b`.`began_at`, `b`.`completed_at`
FROM (
	SELECT `place` AS `state` FROM `facet_counts` WHERE `scope` = 's' AND `name` = '' AND `facet` = '*'
	UNION SELECT `state` FROM `state_loads`
	UNION SELECT `state` FROM `state_backfills`
) AS `s`
LEFT JOIN `state_loads` AS `l` ON `l`.`state` = `s`.`state`
LEFT JOIN `state_backfills` AS `b` ON `b`.`state` = `s`.`state`;
--> statement-breakpoint
-- Live filings that lapse, by lapse day and debtor industries ("y" facets, src/db/schema.ts
-- facetCounts; src/db/records.ts facetDayRows): each filing's sets of one or two industries
-- ("i1", "i2", as letters: "a" is the first of INDUSTRIES, whose stored code is 0) and its exact
-- set when larger, with totals and running totals, from what is stored: every day kept.
DELETE FROM `facet_days` WHERE `scope` = 'y';--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 'y';--> statement-breakpoint
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
	SELECT `f`.`id`, `f`.`state`, date(`f`.`lapse_date` * 86400, 'unixepoch') AS `day`, `s`.`facet`
	FROM `filings` `f` JOIN `sets` `s` ON `s`.`filing_id` = `f`.`id`
	WHERE `f`.`terminated_at` IS NULL AND `f`.`lapse_date` IS NOT NULL
),
`facets` AS (
	SELECT `state`, `day`, 'e' || printf('%x', length(`facet`)) AS `name`, `facet` FROM `dated` WHERE length(`facet`) > 2
	UNION ALL
	SELECT `d`.`state`, `d`.`day`, 'i1', `a`.`letter`
	FROM `dated` `d` JOIN `letters` `a` ON `a`.`filing_id` = `d`.`id`
	UNION ALL
	SELECT `d`.`state`, `d`.`day`, 'i2', `a`.`letter` || `b`.`letter`
	FROM `dated` `d` JOIN `letters` `a` ON `a`.`filing_id` = `d`.`id`
		JOIN `letters` `b` ON `b`.`filing_id` = `d`.`id` AND `b`.`letter` > `a`.`letter`
)
SELECT 'y', `state`, `name`, `facet`, `day`, count(*), NULL
FROM `facets`
GROUP BY `state`, `name`, `facet`, `day`;--> statement-breakpoint
INSERT INTO `facet_counts` (`scope`, `place`, `name`, `facet`, `filings`)
SELECT `scope`, `place`, `name`, `facet`, sum(`filings`)
FROM `facet_days`
WHERE `scope` = 'y'
GROUP BY `scope`, `place`, `name`, `facet`;--> statement-breakpoint
UPDATE `facet_days` SET `running` = `fresh`.`running`
FROM (
	SELECT `scope`, `place`, `name`, `facet`, `day`,
		sum(`filings`) OVER (PARTITION BY `place`, `name`, `facet` ORDER BY `day` DESC) AS `running`
	FROM `facet_days`
	WHERE `scope` = 'y'
) AS `fresh`
WHERE `facet_days`.`scope` = `fresh`.`scope` AND `facet_days`.`place` = `fresh`.`place`
	AND `facet_days`.`name` = `fresh`.`name` AND `facet_days`.`facet` = `fresh`.`facet`
	AND `facet_days`.`day` = `fresh`.`day`;
