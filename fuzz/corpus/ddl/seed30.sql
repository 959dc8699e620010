ALTER TABLE db.events RENAME COLUMN data TO payload;
