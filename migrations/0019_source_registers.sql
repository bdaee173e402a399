CREATE TABLE `source_pulls` (
	`source` text PRIMARY KEY NOT NULL,
	`through` text,
	`changed_since` text,
	`pulled_at` text,
	`position` text,
	`summary` text
);
--> statement-breakpoint
CREATE TABLE `source_rows` (
	`id` integer PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`tab` text NOT NULL,
	`row_id` text NOT NULL,
	`filing` text,
	`part` text,
	`data` text NOT NULL,
	`file` text NOT NULL,
	`line` integer NOT NULL,
	`pending` integer DEFAULT true NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_rows_row` ON `source_rows` (`source`,`tab`,`row_id`);--> statement-breakpoint
CREATE INDEX `source_rows_filing` ON `source_rows` (`source`,`filing`);--> statement-breakpoint
CREATE INDEX `source_rows_part` ON `source_rows` (`source`,`part`) WHERE part is not null;--> statement-breakpoint
CREATE INDEX `source_rows_pending` ON `source_rows` (`source`,`filing`) WHERE pending = 1;