CREATE TABLE `change_marks` (
	`id` integer PRIMARY KEY NOT NULL,
	`lapses_through` integer,
	`purged_through` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `changes` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`state` text NOT NULL,
	`type` integer NOT NULL,
	`filing_id` integer NOT NULL,
	`amendment` text,
	`amendment_kind` integer,
	`changed_fields` integer,
	`recorded_at` integer NOT NULL,
	`occurred_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `changes_state` ON `changes` (`state`,`seq`);--> statement-breakpoint
CREATE INDEX `changes_type` ON `changes` (`type`,`seq`);--> statement-breakpoint
CREATE INDEX `changes_state_type` ON `changes` (`state`,`type`,`seq`);--> statement-breakpoint
CREATE INDEX `changes_filing` ON `changes` (`filing_id`,`seq`);--> statement-breakpoint
CREATE INDEX `changes_recorded` ON `changes` (`recorded_at`);--> statement-breakpoint
CREATE TABLE `state_loads` (
	`state` text PRIMARY KEY NOT NULL,
	`last_loaded_at` integer NOT NULL,
	`office_through` integer
);
--> statement-breakpoint
ALTER TABLE `debtor_parties` ADD `lapses_on` integer;--> statement-breakpoint
-- Each party row copies its filing's lapse date while the filing is live
-- (src/db/schema.ts, lapseCopy): filled in here for what is stored.
UPDATE `debtor_parties` SET `lapses_on` = (
	SELECT `lapse_date` FROM `filings` WHERE `filings`.`id` = `debtor_parties`.`filing_id` AND `terminated_at` IS NULL
);--> statement-breakpoint
CREATE INDEX `debtor_parties_lapsing` ON `debtor_parties` (`filing_state`,`industry`,`lapses_on`,`filing_number`,`filing_id`) WHERE lapses_on is not null and industry is not null;--> statement-breakpoint
ALTER TABLE `secured_parties` ADD `lapses_on` integer;--> statement-breakpoint
UPDATE `secured_parties` SET `lapses_on` = (
	SELECT `lapse_date` FROM `filings` WHERE `filings`.`id` = `secured_parties`.`filing_id` AND `terminated_at` IS NULL
);--> statement-breakpoint
CREATE INDEX `secured_parties_lapsing` ON `secured_parties` (`filing_state`,`name_words`,`lapses_on`,`filing_number`,`filing_id`) WHERE lapses_on is not null;--> statement-breakpoint
CREATE INDEX `filings_state_lapsing` ON `filings` (`state`,`lapse_date`,`number`) WHERE terminated_at is null and lapse_date is not null;--> statement-breakpoint
-- Live filings by lapse date ("x" facets, src/db/schema.ts facetCounts;
-- src/db/records.ts facetDayRows), with totals and running totals, from
-- what is stored: every day kept, a filing that never lapses on 9999-12-31.
DELETE FROM `facet_days` WHERE `scope` = 'x';--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 'x';--> statement-breakpoint
INSERT INTO `facet_days` (`scope`, `place`, `name`, `facet`, `day`, `filings`, `running`)
SELECT 'x', `state`, '', '', coalesce(date(`lapse_date` * 86400, 'unixepoch'), '9999-12-31'), count(*), NULL
FROM `filings`
WHERE `terminated_at` IS NULL
GROUP BY `state`, `lapse_date`;--> statement-breakpoint
INSERT INTO `facet_counts` (`scope`, `place`, `name`, `facet`, `filings`)
SELECT 'x', `place`, '', '', sum(`filings`)
FROM `facet_days`
WHERE `scope` = 'x'
GROUP BY `place`;--> statement-breakpoint
UPDATE `facet_days` SET `running` = `fresh`.`running`
FROM (
	SELECT `place`, `day`, sum(`filings`) OVER (PARTITION BY `place` ORDER BY `day` DESC) AS `running`
	FROM `facet_days`
	WHERE `scope` = 'x'
) AS `fresh`
WHERE `facet_days`.`scope` = 'x' AND `facet_days`.`place` = `fresh`.`place`
	AND `facet_days`.`name` = '' AND `facet_days`.`facet` = '' AND `facet_days`.`day` = `fresh`.`day`;--> statement-breakpoint
-- Each state held is taken as loaded at the last data load (its office date is not known).
INSERT INTO `state_loads` (`state`, `last_loaded_at`, `office_through`)
SELECT `place`, (SELECT unixepoch(max(`loaded_at`)) FROM `data_loads`), NULL
FROM `facet_counts`
WHERE `scope` = 's' AND `name` = '' AND `facet` = '*' AND (SELECT max(`loaded_at`) FROM `data_loads`) IS NOT NULL;
