CREATE TABLE `feed_loads` (
	`id` text PRIMARY KEY NOT NULL,
	`key` text NOT NULL,
	`etag` text NOT NULL,
	`bytes` integer NOT NULL,
	`status` text NOT NULL,
	`started_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`done` integer NOT NULL,
	`summary` text NOT NULL,
	`checkpoint` text NOT NULL,
	`error` text
);
--> statement-breakpoint
CREATE INDEX `feed_loads_started` ON `feed_loads` (`started_at`);