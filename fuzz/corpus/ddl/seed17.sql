ALTER TABLE db.events DROP COLUMN data;
