CREATE TABLE `change_names` (
	`id` integer PRIMARY KEY NOT NULL,
	`key` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `change_names_key` ON `change_names` (`key`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription` integer NOT NULL,
	`shard` text NOT NULL,
	`seq` integer NOT NULL,
	`change` text NOT NULL,
	`type` integer NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`last_status` integer,
	`last_error` text,
	`next_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_subscription` ON `webhook_deliveries` (`subscription`,`created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_failed` ON `webhook_deliveries` (`subscription`,`created_at`) WHERE status = 'failed';--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_names` (
	`id` integer PRIMARY KEY NOT NULL,
	`subscription` integer NOT NULL,
	`kind` integer NOT NULL,
	`name` text NOT NULL,
	`key` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_names_subscription` ON `webhook_names` (`subscription`,`kind`);--> statement-breakpoint
CREATE INDEX `webhook_names_key` ON `webhook_names` (`key`);--> statement-breakpoint
CREATE TABLE `webhook_positions` (
	`shard` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` integer PRIMARY KEY NOT NULL,
	`public_id` text NOT NULL,
	`key_digest` text NOT NULL,
	`url` text NOT NULL,
	`types` integer,
	`states` text,
	`debtors` integer NOT NULL,
	`secured_parties` integer NOT NULL,
	`secret` text NOT NULL,
	`previous_secret` text,
	`previous_until` integer,
	`status` text NOT NULL,
	`disabled_reason` text,
	`failing_since` integer,
	`starts` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_subscriptions_public` ON `webhook_subscriptions` (`public_id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_broad` ON `webhook_subscriptions` (`status`) WHERE debtors = 0 and secured_parties = 0;