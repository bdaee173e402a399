CREATE TABLE `bulk_load` (
	`id` integer PRIMARY KEY NOT NULL,
	`stage` text NOT NULL,
	`indexes` text NOT NULL,
	`source` text NOT NULL,
	`started_at` text NOT NULL
);
