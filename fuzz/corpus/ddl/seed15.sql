ALTER TABLE db.events ADD COLUMN point.z double;
