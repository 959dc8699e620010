ALTER TABLE db.events ADD COLUMNS (retries int, source string COMMENT 'producer system');
