CREATE TABLE `debtor_addresses` (
	`name_key` text NOT NULL,
	`address_key` text NOT NULL,
	`last_used` text NOT NULL,
	`street1` text NOT NULL,
	`city` text NOT NULL,
	`state` text NOT NULL,
	`zip` text NOT NULL,
	PRIMARY KEY(`name_key`, `address_key`)
);
--> statement-breakpoint
CREATE INDEX `debtor_addresses_recent` ON `debtor_addresses` (`name_key`,`last_used`,`address_key`);--> statement-breakpoint
CREATE TABLE `debtor_links` (
	`name_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`other_key` text NOT NULL,
	`other_address_key` text NOT NULL,
	`last_seen` text NOT NULL,
	`name` text NOT NULL,
	`street1` text NOT NULL,
	`street2` text,
	`city` text NOT NULL,
	`state` text NOT NULL,
	`zip` text NOT NULL,
	PRIMARY KEY(`name_key`, `filing_state`, `other_key`, `other_address_key`)
);
--> statement-breakpoint
CREATE INDEX `debtor_links_recent` ON `debtor_links` (`name_key`,`filing_state`,`last_seen`,`other_key`,`other_address_key`);--> statement-breakpoint
CREATE TABLE `debtors_to_refresh` (
	`name_key` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `facet_counts` (
	`scope` text NOT NULL,
	`place` text NOT NULL,
	`name` text NOT NULL,
	`facet` text NOT NULL,
	`filings` integer NOT NULL,
	PRIMARY KEY(`scope`, `place`, `name`, `facet`)
);
--> statement-breakpoint
CREATE TABLE `facet_days` (
	`scope` text NOT NULL,
	`place` text NOT NULL,
	`name` text NOT NULL,
	`facet` text NOT NULL,
	`day` text NOT NULL,
	`filings` integer NOT NULL,
	`running` integer,
	PRIMARY KEY(`scope`, `place`, `name`, `facet`, `day`)
);
--> statement-breakpoint
CREATE INDEX `facet_days_stale` ON `facet_days` (`scope`,`place`,`name`,`facet`) WHERE running is null;--> statement-breakpoint
DROP TABLE `filing_day_counts`;--> statement-breakpoint
DROP INDEX `debtor_parties_name`;--> statement-breakpoint
DROP INDEX `debtor_parties_zip`;--> statement-breakpoint
ALTER TABLE `debtor_parties` ADD `filing_number` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `debtor_parties_zip_industry` ON `debtor_parties` (`zip5`,`industry`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_state_industry` ON `debtor_parties` (`filing_state`,`industry`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_name` ON `debtor_parties` (`name_key`,`filing_state`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_zip` ON `debtor_parties` (`zip5`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
DROP INDEX `secured_parties_name`;--> statement-breakpoint
ALTER TABLE `secured_parties` ADD `filing_number` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `secured_parties` ADD `debtor_types` text DEFAULT '' NOT NULL;--> statement-breakpoint
CREATE INDEX `secured_parties_name` ON `secured_parties` (`filing_state`,`name_words`,`debtor_types`,`filed_at`,`filing_number`,`filing_id`);