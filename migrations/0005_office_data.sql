CREATE TABLE `pending_amendments` (
	`id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`filing_number` text NOT NULL,
	`number` text NOT NULL,
	`filed_at` text NOT NULL,
	`kind` text NOT NULL,
	`description` text NOT NULL,
	`lapse_date` text,
	`collateral` text,
	`parties` text,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pending_amendments_filing` ON `pending_amendments` (`state`,`filing_number`,`number`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_debtor_addresses` (
	`name_key` text NOT NULL,
	`address_key` text NOT NULL,
	`last_used` text NOT NULL,
	`street1` text,
	`city` text,
	`state` text,
	`zip` text,
	PRIMARY KEY(`name_key`, `address_key`)
);
--> statement-breakpoint
INSERT INTO `__new_debtor_addresses`("name_key", "address_key", "last_used", "street1", "city", "state", "zip") SELECT "name_key", "address_key", "last_used", "street1", "city", "state", "zip" FROM `debtor_addresses`;--> statement-breakpoint
DROP TABLE `debtor_addresses`;--> statement-breakpoint
ALTER TABLE `__new_debtor_addresses` RENAME TO `debtor_addresses`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `debtor_addresses_recent` ON `debtor_addresses` (`name_key`,`last_used`,`address_key`);--> statement-breakpoint
CREATE TABLE `__new_debtor_links` (
	`name_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`other_key` text NOT NULL,
	`other_address_key` text NOT NULL,
	`last_seen` text NOT NULL,
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
CREATE INDEX `debtor_links_recent` ON `debtor_links` (`name_key`,`filing_state`,`last_seen`,`other_key`,`other_address_key`);--> statement-breakpoint
CREATE TABLE `__new_debtor_parties` (
	`id` integer PRIMARY KEY NOT NULL,
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`industry` text,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	`zip5` text,
	`country` text,
	`address_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`filed_at` text NOT NULL,
	`filing_number` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_debtor_parties`("id", "filing_id", "position", "type", "name", "name_key", "industry", "street1", "street2", "city", "state", "zip", "zip5", "country", "address_key", "filing_state", "filed_at", "filing_number") SELECT "id", "filing_id", "position", "type", "name", "name_key", "industry", "street1", "street2", "city", "state", "zip", "zip5", "country", "address_key", "filing_state", "filed_at", "filing_number" FROM `debtor_parties`;--> statement-breakpoint
DROP TABLE `debtor_parties`;--> statement-breakpoint
ALTER TABLE `__new_debtor_parties` RENAME TO `debtor_parties`;--> statement-breakpoint
CREATE INDEX `debtor_parties_filing` ON `debtor_parties` (`filing_id`,`position`);--> statement-breakpoint
CREATE INDEX `debtor_parties_name` ON `debtor_parties` (`name_key`,`filing_state`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_zip` ON `debtor_parties` (`zip5`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_zip_industry` ON `debtor_parties` (`zip5`,`industry`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_state_industry` ON `debtor_parties` (`filing_state`,`industry`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE TABLE `__new_secured_parties` (
	`id` integer PRIMARY KEY NOT NULL,
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`name_words` text NOT NULL,
	`category` text,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	`zip5` text,
	`country` text,
	`address_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`filed_at` text NOT NULL,
	`filing_number` text DEFAULT '' NOT NULL,
	`debtor_types` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_secured_parties`("id", "filing_id", "position", "name", "name_words", "category", "street1", "street2", "city", "state", "zip", "zip5", "country", "address_key", "filing_state", "filed_at", "filing_number", "debtor_types") SELECT "id", "filing_id", "position", "name", "name_words", "category", "street1", "street2", "city", "state", "zip", "zip5", "country", "address_key", "filing_state", "filed_at", "filing_number", "debtor_types" FROM `secured_parties`;--> statement-breakpoint
DROP TABLE `secured_parties`;--> statement-breakpoint
ALTER TABLE `__new_secured_parties` RENAME TO `secured_parties`;--> statement-breakpoint
CREATE INDEX `secured_parties_filing` ON `secured_parties` (`filing_id`,`position`);--> statement-breakpoint
CREATE INDEX `secured_parties_name` ON `secured_parties` (`filing_state`,`name_words`,`debtor_types`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
ALTER TABLE `amendments` ADD `lapse_date` text;--> statement-breakpoint
ALTER TABLE `amendments` ADD `collateral` text;--> statement-breakpoint
ALTER TABLE `filings` ADD `lapse_source` text DEFAULT 'estimated' NOT NULL;--> statement-breakpoint
ALTER TABLE `filings` ADD `office_lapse_date` text;--> statement-breakpoint
ALTER TABLE `filings` ADD `collateral` text;--> statement-breakpoint
ALTER TABLE `filings` ADD `filing_office` text;