-- Issue 43: a filing whose change the feed keeps carries what a list and the change feed show of its
-- parties and amendments (src/db/listed.ts), so a page reads one row a filing. Filings stored before
-- this migration have none until a load records a change of theirs; pages read them from the tables.
ALTER TABLE `filings` ADD `listed` text;
