-- Tables keyed by a composite primary key become WITHOUT ROWID: the key is
-- the table's own B-tree, instead of a rowid table plus an index holding a
-- second copy of every key (bench/STORAGE.md has the bytes). Drizzle cannot
-- declare WITHOUT ROWID (src/db/schema.ts lists these tables in
-- WITHOUT_ROWID, and test/node/schema-layout.test.ts checks them), so the
-- tables, empty since 0008, are created again as 0009 defined them, WITHOUT
-- ROWID. A generated migration that rebuilds one of them must keep it.
DROP TABLE `amendments`;--> statement-breakpoint
CREATE TABLE `amendments` (
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
) WITHOUT ROWID;--> statement-breakpoint
DROP TABLE `debtor_parties`;--> statement-breakpoint
CREATE TABLE `debtor_parties` (
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
) WITHOUT ROWID;--> statement-breakpoint
CREATE INDEX `debtor_parties_name` ON `debtor_parties` (`name_key`,`filing_state`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
CREATE INDEX `debtor_parties_zip` ON `debtor_parties` (`zip5`,`filed_at`,`filing_number`,`filing_id`) WHERE zip5 is not null;--> statement-breakpoint
CREATE INDEX `debtor_parties_zip_industry` ON `debtor_parties` (`zip5`,`industry`,`filed_at`,`filing_number`,`filing_id`) WHERE industry is not null;--> statement-breakpoint
CREATE INDEX `debtor_parties_state_industry` ON `debtor_parties` (`filing_state`,`industry`,`filed_at`,`filing_number`,`filing_id`) WHERE industry is not null;--> statement-breakpoint
DROP TABLE `secured_parties`;--> statement-breakpoint
CREATE TABLE `secured_parties` (
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
) WITHOUT ROWID;--> statement-breakpoint
CREATE INDEX `secured_parties_name` ON `secured_parties` (`filing_state`,`name_words`,`debtor_types`,`filed_at`,`filing_number`,`filing_id`);--> statement-breakpoint
DROP TABLE `debtor_addresses`;--> statement-breakpoint
CREATE TABLE `debtor_addresses` (
	`name_key` text NOT NULL,
	`address_key` integer NOT NULL,
	`last_used` integer NOT NULL,
	`street1` text,
	`street2` text,
	`city` text,
	`state` text,
	`zip` text,
	PRIMARY KEY(`name_key`, `address_key`)
) WITHOUT ROWID;--> statement-breakpoint
DROP TABLE `debtor_links`;--> statement-breakpoint
CREATE TABLE `debtor_links` (
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
) WITHOUT ROWID;--> statement-breakpoint
DROP TABLE `facet_counts`;--> statement-breakpoint
CREATE TABLE `facet_counts` (
	`scope` text NOT NULL,
	`place` text NOT NULL,
	`name` text NOT NULL,
	`facet` text NOT NULL,
	`filings` integer NOT NULL,
	PRIMARY KEY(`scope`, `place`, `name`, `facet`)
) WITHOUT ROWID;--> statement-breakpoint
DROP TABLE `facet_days`;--> statement-breakpoint
CREATE TABLE `facet_days` (
	`scope` text NOT NULL,
	`place` text NOT NULL,
	`name` text NOT NULL,
	`facet` text NOT NULL,
	`day` text NOT NULL,
	`filings` integer NOT NULL,
	`running` integer,
	PRIMARY KEY(`scope`, `place`, `name`, `facet`, `day`)
) WITHOUT ROWID;--> statement-breakpoint
CREATE INDEX `facet_days_stale` ON `facet_days` (`scope`,`place`,`name`,`facet`) WHERE running is null;
