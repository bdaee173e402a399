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
