ALTER TABLE db.events ALTER COLUMN measurement TYPE double COMMENT 'unit is bytes per second';
