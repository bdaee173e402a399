CREATE TABLE `debtor_sound_keys` (
	`id` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
DROP TABLE `debtor_name_sounds`;