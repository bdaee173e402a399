-- The lien report (docs/api.md, "Lien report"): each debtor's digest per state, and
-- what a filing's text says for it. Rows loaded before this migration get their
-- traits and digests from `npm run db:rekey` (docs/deploying.md); until then a report
-- counts their debtors from their filings.
CREATE TABLE `debtor_reports` (
	`name_key` text NOT NULL,
	`state` text NOT NULL,
	`as_of` integer NOT NULL,
	`filings` integer NOT NULL,
	`terminated` integer NOT NULL,
	`active` integer NOT NULL,
	`kinds` text,
	`categories` text,
	`lenders` text,
	`recent` text,
	`first_active` integer,
	`lapses_next` integer,
	PRIMARY KEY(`name_key`, `state`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `filings` ADD `traits` integer;