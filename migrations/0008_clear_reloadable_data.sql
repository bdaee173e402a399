-- The next migration (0009) changes how filings are stored: timestamps and
-- kinds as integers, address keys as hashes, parties and amendments keyed
-- by filing and position. Rows loaded before hold the old forms, and
-- 0009's table rebuilds could not copy them (amendments have no position
-- yet: 0009 as generated copied it, a secured party's new type and a
-- known address's street2 from columns that do not exist, so those three
-- copies, of empty tables, were taken out of it). Filing data is reloadable (seed or import), so it is cleared here,
-- first, as in 0006: `npm start` reseeds an empty local database, and a
-- deployment re-imports its feeds. Children go before `filings`, whose
-- cascade would otherwise delete them row by row.
DELETE FROM `amendments`;--> statement-breakpoint
DELETE FROM `debtor_parties`;--> statement-breakpoint
DELETE FROM `secured_parties`;--> statement-breakpoint
DELETE FROM `filings`;--> statement-breakpoint
DELETE FROM `pending_amendments`;--> statement-breakpoint
DELETE FROM `debtor_sound_keys`;--> statement-breakpoint
DELETE FROM `debtor_names`;--> statement-breakpoint
DELETE FROM `debtor_addresses`;--> statement-breakpoint
DELETE FROM `debtor_links`;--> statement-breakpoint
DELETE FROM `debtors_to_refresh`;--> statement-breakpoint
DELETE FROM `facet_counts`;--> statement-breakpoint
DELETE FROM `facet_days`;--> statement-breakpoint
DELETE FROM `data_loads`;
