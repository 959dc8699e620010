ALTER TABLE db.events ALTER COLUMN measurement COMMENT 'unit is bytes per second';
