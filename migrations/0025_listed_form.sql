-- Issue 43: each filing keeps what a list and the change feed show of its parties and amendments
-- (src/db/listed.ts), so a page reads one row a filing. Rows loaded before this migration have none
-- until `npm run db:rekey` writes it; pages make it up from the tables meanwhile.
ALTER TABLE `filings` ADD `listed` text;
