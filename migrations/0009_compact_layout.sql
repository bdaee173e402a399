PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_amendments` (
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`number` text NOT NULL,
	`filed_at` integer NOT NULL,
	`kind` integer NOT NULL,
	`description` text NOT NULL,
	`lapse_date` integer,
	`collateral` text,
	PRIMARY KEY(`filing_id`, `position`),
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `amendments`;--> statement-breakpoint
ALTER TABLE `__new_amendments` RENAME TO `amendments`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_debtor_addresses` (
	`name_key` text NOT NULL,
	`address_key` integer NOT NULL,
	`last_used` integer NOT NULL,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	PRIMARY KEY(`name_key`, `address_key`)
);
--> statement-breakpoint
DROP TABLE `debtor_addresses`;--> statement-breakpoint
ALTER TABLE `__new_debtor_addresses` RENAME TO `debtor_addresses`;--> statement-breakpoint
CREATE TABLE `__new_debtor_links` (
	`name_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`other_key` text NOT NULL,
	`other_address_key` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`name` text NOT NULL,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	PRIMARY KEY(`name_key`, `filing_state`, `other_key`, `other_address_key`)
);
--> statement-breakpoint
INSERT INTO `__new_debtor_links`("name_key", "filing_state", "other_key", "other_address_key", "last_seen", "name", "street1", "street2", "city", "state", "zip") SELECT "name_key", "filing_state", "other_key", "other_address_key", "last_seen", "name", "street1", "street2", "city", "state", "zip" FROM `debtor_links`;--> statement-breakpoint
DROP TABLE `debtor_links`;--> statement-breakpoint
ALTER TABLE `__new_debtor_links` RENAME TO `debtor_links`;--> statement-breakpoint
CREATE TABLE `__new_debtor_parties` (
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`type` integer NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`industry` blob,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	`country` text,
	`zip5` text,
	`address_key` integer NOT NULL,
	`filing_state` text NOT NULL,
	`filed_at` integer NOT NULL,
	`filing_number` text NOT NULL,
	PRIMARY KEY(`filing_id`, `position`),
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_debtor_parties`("filing_id", "position", "type", "name", "name_key", "industry", "street1", "street2", "city", "state", "zip", "country", "zip5", "address_key", "filing_state", "filed_at", "filing_number") SELECT "filing_id", "position", "type", "name", "name_key", "industry", "street1", "street2", "city", "state", "zip", "country", "zip5", "address_key", "filing_state", "filed_at", "filing_number" FROM `debtor_parties`;--> statement-breakpoint
DROP TABLE `debtor_parties`;--> statement-breakpoint
ALTER TABLE `__new_debtor_parties` RENAME TO `debtor_parties`;--> statement-breakpoint
CREATE INDEX `debtor_parties_name` ON `debtor_parties` (`name_key`,`filing_state`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_zip` ON `debtor_parties` (`zip5`,`filed_at`,`filing_number`,`filing_id`) WHERE zip5 is not null;--> statement-breakpoint
CREATE INDEX `debtor_parties_zip_industry` ON `debtor_parties` (`zip5`,`industry`,`filed_at`,`filing_number`,`filing_id`) WHERE industry is not null;--> statement-breakpoint
CREATE INDEX `debtor_parties_state_industry` ON `debtor_parties` (`filing_state`,`industry`,`filed_at`,`filing_number`,`filing_id`) WHERE industry is not null;--> statement-breakpoint
CREATE TABLE `__new_filings` (
	`id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`number` text NOT NULL,
	`filed_at` integer NOT NULL,
	`kind` integer NOT NULL,
	`lapse_date` integer,
	`lapse_source` integer NOT NULL,
	`office_lapse_date` integer,
	`collateral` text,
	`filing_office` text,
	`terminated_at` integer
);
--> statement-breakpoint
INSERT INTO `__new_filings`("id", "state", "number", "filed_at", "kind", "lapse_date", "lapse_source", "office_lapse_date", "collateral", "filing_office", "terminated_at") SELECT "id", "state", "number", "filed_at", "kind", "lapse_date", "lapse_source", "office_lapse_date", "collateral", "filing_office", "terminated_at" FROM `filings`;--> statement-breakpoint
DROP TABLE `filings`;--> statement-breakpoint
ALTER TABLE `__new_filings` RENAME TO `filings`;--> statement-breakpoint
CREATE UNIQUE INDEX `filings_number_state` ON `filings` (`number`,`state`);--> statement-breakpoint
CREATE INDEX `filings_state_filed` ON `filings` (`state`,`filed_at`,`number`);--> statement-breakpoint
CREATE INDEX `filings_state_terminated` ON `filings` (`state`,`terminated_at`,`number`) WHERE terminated_at is not null;--> statement-breakpoint
CREATE TABLE `__new_secured_parties` (
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`type` integer NOT NULL,
	`name` text NOT NULL,
	`name_words` text NOT NULL,
	`category` text,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	`country` text,
	`filing_state` text NOT NULL,
	`filed_at` integer NOT NULL,
	`filing_number` text NOT NULL,
	`debtor_types` integer NOT NULL,
	PRIMARY KEY(`filing_id`, `position`),
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP TABLE `secured_parties`;--> statement-breakpoint
ALTER TABLE `__new_secured_parties` RENAME TO `secured_parties`;--> statement-breakpoint
CREATE INDEX `secured_parties_name` ON `secured_parties` (`filing_state`,`name_words`,`debtor_types`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE TABLE `__new_debtor_names` (
	`id` integer PRIMARY KEY NOT NULL,
	`name_key` text NOT NULL,
	`state` text NOT NULL,
	`name` text NOT NULL,
	`last_filed_at` integer NOT NULL,
	`filing_count` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_debtor_names`("id", "name_key", "state", "name", "last_filed_at", "filing_count") SELECT "id", "name_key", "state", "name", "last_filed_at", "filing_count" FROM `debtor_names`;--> statement-breakpoint
DROP TABLE `debtor_names`;--> statement-breakpoint
ALTER TABLE `__new_debtor_names` RENAME TO `debtor_names`;--> statement-breakpoint
CREATE UNIQUE INDEX `debtor_names_key_state` ON `debtor_names` (`name_key`,`state`);--> statement-breakpoint
CREATE INDEX `debtor_names_state_key` ON `debtor_names` (`state`,`name_key`);