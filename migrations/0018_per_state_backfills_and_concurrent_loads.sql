-- load_keys and held_copies are WITHOUT ROWID (src/db/schema.ts, WITHOUT_ROWID), which
-- drizzle-kit cannot declare: added to the generated statements by hand.
CREATE TABLE `held_copies` (
	`load` text NOT NULL,
	`hash` text NOT NULL,
	`position` integer NOT NULL,
	`copy` text NOT NULL,
	PRIMARY KEY(`load`, `hash`, `position`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `load_keys` (
	`load` text NOT NULL,
	`hash` text NOT NULL,
	`first` integer NOT NULL,
	`last` integer NOT NULL,
	PRIMARY KEY(`load`, `hash`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `state_backfills` (
	`state` text PRIMARY KEY NOT NULL,
	`began_at` integer NOT NULL,
	`completed_at` integer,
	`source` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `bulk_load` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `filings` ADD `revision` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `feed_loads` DROP COLUMN `status`;--> statement-breakpoint
ALTER TABLE `feed_loads` DROP COLUMN `done`;--> statement-breakpoint
ALTER TABLE `feed_loads` DROP COLUMN `error`;