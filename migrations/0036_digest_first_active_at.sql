ALTER TABLE `debtor_reports` ADD `first_active_at` integer;--> statement-breakpoint
-- The filing time of each stored digest's oldest live filing, from that filing (a row read and written a
-- digest with a live filing). A digest left without it (one an older Worker builds) is read as before.
UPDATE `debtor_reports` SET `first_active_at` = (SELECT `filed_at` FROM `filings` WHERE `filings`.`id` = `debtor_reports`.`first_active`) WHERE `first_active` IS NOT NULL;
