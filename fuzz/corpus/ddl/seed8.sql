ALTER TABLE db.events ADD COLUMN point.seq bigint FIRST;
