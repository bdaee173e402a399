-- Issue 43: what no Worker since 0027 reads or writes. facet_days held the facets' counts by day
-- before 0024 (facet_tallies since). The "y" facets of one and two industries ("i1", "i2") counted a
-- lapse list by industry before 0027 (the "x" facet's sets since). A ZIP code's facets named "" with
-- a set of labels were its industry facets before 0022 (the "e" and "i" facets since).
DROP TABLE `facet_days`;
--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 'y' AND `name` IN ('i1', 'i2');
--> statement-breakpoint
DELETE FROM `facet_tallies` WHERE `scope` = 'y' AND `name` IN ('i1', 'i2');
--> statement-breakpoint
DELETE FROM `stale_tallies` WHERE `scope` = 'y' AND `name` IN ('i1', 'i2');
--> statement-breakpoint
DELETE FROM `facet_counts` WHERE `scope` = 'z' AND `name` = '' AND `facet` <> '*';
--> statement-breakpoint
DELETE FROM `facet_tallies` WHERE `scope` = 'z' AND `name` = '' AND `facet` <> '*';
--> statement-breakpoint
DELETE FROM `stale_tallies` WHERE `scope` = 'z' AND `name` = '' AND `facet` <> '*';
