ALTER TABLE db.events ADD COLUMN seq bigint FIRST;
