ALTER TABLE db.events ALTER COLUMN measurement TYPE double, measurement COMMENT 'unit is bytes per second';
