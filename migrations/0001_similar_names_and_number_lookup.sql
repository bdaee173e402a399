CREATE TABLE `debtor_name_sounds` (
	`sound` text NOT NULL,
	`state` text NOT NULL,
	`name_key` text NOT NULL,
	PRIMARY KEY(`sound`, `state`, `name_key`)
);
--> statement-breakpoint
CREATE TABLE `debtor_names` (
	`id` integer PRIMARY KEY NOT NULL,
	`name_key` text NOT NULL,
	`state` text NOT NULL,
	`name` text NOT NULL,
	`last_filed_at` text NOT NULL,
	`filing_count` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `debtor_names_key_state` ON `debtor_names` (`name_key`,`state`);--> statement-breakpoint
CREATE INDEX `debtor_names_state_key` ON `debtor_names` (`state`,`name_key`);--> statement-breakpoint
CREATE INDEX `filings_number` ON `filings` (`number`);