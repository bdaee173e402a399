-- Name keys are computed when data is loaded, and the published search logic
-- (accents folded, more ending words, individuals keyed by last, first and
-- middle name) changes them: rows loaded before hold keys that queries no
-- longer produce. Filing data is reloadable (seed or import), so it is
-- cleared rather than rewritten: `npm start` reseeds an empty local database,
-- and a deployment re-imports its feeds.
DELETE FROM `amendments`;--> statement-breakpoint
DELETE FROM `debtor_parties`;--> statement-breakpoint
DELETE FROM `secured_parties`;--> statement-breakpoint
DELETE FROM `filings`;--> statement-breakpoint
DELETE FROM `pending_amendments`;--> statement-breakpoint
DELETE FROM `debtor_names`;--> statement-breakpoint
DELETE FROM `debtor_name_sounds`;--> statement-breakpoint
DELETE FROM `debtor_addresses`;--> statement-breakpoint
DELETE FROM `debtor_links`;--> statement-breakpoint
DELETE FROM `debtors_to_refresh`;--> statement-breakpoint
DELETE FROM `facet_counts`;--> statement-breakpoint
DELETE FROM `facet_days`;--> statement-breakpoint
DELETE FROM `data_loads`;
