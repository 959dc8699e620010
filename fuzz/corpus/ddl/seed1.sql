ALTER TABLE db.events ADD COLUMN priority int COMMENT 'queue priority';
