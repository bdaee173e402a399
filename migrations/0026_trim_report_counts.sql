-- The lien report's digests (debtor_reports, src/db/reports.ts) keep their
-- counts by filing kind and by collateral category without trailing zeros:
-- `[1]` for `[1,0,0,0,0,0,0,0,0,0]`, `[]` for fifteen zero categories. Most
-- digests count one kind and no category, and the zeros were 47 of a
-- digest's 163 bytes (81.7 bytes a filing in one shard of 1,031,517 seeded
-- filings). The digests the code before wrote are rewritten here, in place;
-- the code before reads a missing count as 0, so either Worker reads both.
-- Each pass takes one `,0` off the end of the array.
UPDATE `debtor_reports`
SET `kinds` = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(`kinds`, ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), '[0]', '[]'),
	`categories` = replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(`categories`, ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), ',0]', ']'), '[0]', '[]')
WHERE `kinds` LIKE '%,0]' OR `categories` LIKE '%,0]' OR `kinds` = '[0]' OR `categories` = '[0]';
