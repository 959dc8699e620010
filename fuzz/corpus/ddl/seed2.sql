ALTER TABLE db.events ADD COLUMN seq bigint AFTER ts;
