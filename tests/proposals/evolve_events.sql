-- A reviewed migration for db.events: every statement is one schema update, as Spark runs it.

-- A new column: old data files have no field id 25, so readers fill NULL.
ALTER TABLE db.events ADD COLUMN vip_level int COMMENT 'member level 1-5' AFTER event_type;

-- A rename touches metadata only: the field keeps id 5, old files are still found by id.
ALTER TABLE db.events RENAME COLUMN data TO payload;

-- A safe widening: readers decode old INT32 pages as long.
ALTER TABLE db.events ALTER COLUMN cnt TYPE bigint;

-- A nested struct added to every element of a list.
ALTER TABLE db.events ADD COLUMN points.element.label struct<text: string, lang: string>;

-- A drop retires id 24 forever.
ALTER TABLE db.events DROP COLUMN legacy_flag;
