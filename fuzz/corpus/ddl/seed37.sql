ALTER TABLE db.events ALTER COLUMN ratio TYPE double;
