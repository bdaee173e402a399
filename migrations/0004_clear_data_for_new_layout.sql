-- Rows loaded before 0003 lack the party copies (filing number, debtor
-- types) and the aggregates that 0003 adds. Filing data is reloadable (seed
-- or import), so it is cleared rather than patched: `npm start` reseeds an
-- empty local database, and a deployment re-imports its feeds.
DELETE FROM `amendments`;--> statement-breakpoint
DELETE FROM `debtor_parties`;--> statement-breakpoint
DELETE FROM `secured_parties`;--> statement-breakpoint
DELETE FROM `filings`;--> statement-breakpoint
DELETE FROM `debtor_names`;--> statement-breakpoint
DELETE FROM `debtor_name_sounds`;--> statement-breakpoint
DELETE FROM `data_loads`;
