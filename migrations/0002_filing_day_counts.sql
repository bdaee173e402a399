CREATE TABLE `filing_day_counts` (
	`state` text NOT NULL,
	`industry` text NOT NULL,
	`day` text NOT NULL,
	`filings` integer NOT NULL,
	PRIMARY KEY(`state`, `industry`, `day`)
);
