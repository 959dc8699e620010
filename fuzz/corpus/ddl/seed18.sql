ALTER TABLE db.events DROP COLUMN legacy_flag;
ALTER TABLE db.events ADD COLUMN origin_system string;
