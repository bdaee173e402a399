CREATE TABLE `amendments` (
	`id` integer PRIMARY KEY NOT NULL,
	`filing_id` integer NOT NULL,
	`number` text NOT NULL,
	`filed_at` text NOT NULL,
	`kind` text NOT NULL,
	`description` text NOT NULL,
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `amendments_filing` ON `amendments` (`filing_id`,`filed_at`,`number`);--> statement-breakpoint
CREATE TABLE `data_loads` (
	`id` integer PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`loaded_at` text NOT NULL,
	`filings` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `data_loads_loaded` ON `data_loads` (`loaded_at`);--> statement-breakpoint
CREATE TABLE `debtor_parties` (
	`id` integer PRIMARY KEY NOT NULL,
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`industry` text,
	`street1` text NOT NULL,
	`street2` text,
	`city` text NOT NULL,
	`state` text NOT NULL,
	`zip` text NOT NULL,
	`zip5` text NOT NULL,
	`country` text,
	`address_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`filed_at` text NOT NULL,
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `debtor_parties_filing` ON `debtor_parties` (`filing_id`,`position`);--> statement-breakpoint
CREATE INDEX `debtor_parties_name` ON `debtor_parties` (`name_key`,`filing_state`,`filed_at`);--> statement-breakpoint
CREATE INDEX `debtor_parties_zip` ON `debtor_parties` (`zip5`,`filed_at`);--> statement-breakpoint
CREATE TABLE `filings` (
	`id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`number` text NOT NULL,
	`filed_at` text NOT NULL,
	`kind` text DEFAULT 'standard' NOT NULL,
	`lapse_date` text,
	`terminated_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `filings_state_number` ON `filings` (`state`,`number`);--> statement-breakpoint
CREATE INDEX `filings_state_filed` ON `filings` (`state`,`filed_at`,`number`);--> statement-breakpoint
CREATE INDEX `filings_state_terminated` ON `filings` (`state`,`terminated_at`,`number`) WHERE terminated_at is not null;--> statement-breakpoint
CREATE TABLE `secured_parties` (
	`id` integer PRIMARY KEY NOT NULL,
	`filing_id` integer NOT NULL,
	`position` integer NOT NULL,
	`name` text NOT NULL,
	`name_words` text NOT NULL,
	`category` text,
	`street1` text NOT NULL,
	`street2` text,
	`city` text NOT NULL,
	`state` text NOT NULL,
	`zip` text NOT NULL,
	`zip5` text NOT NULL,
	`country` text,
	`address_key` text NOT NULL,
	`filing_state` text NOT NULL,
	`filed_at` text NOT NULL,
	FOREIGN KEY (`filing_id`) REFERENCES `filings`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `secured_parties_filing` ON `secured_parties` (`filing_id`,`position`);--> statement-breakpoint
CREATE INDEX `secured_parties_name` ON `secured_parties` (`filing_state`,`name_words`,`filed_at`);