ALTER TABLE db.events ALTER COLUMN cnt TYPE bigint;
