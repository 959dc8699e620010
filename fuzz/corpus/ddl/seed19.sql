ALTER TABLE db.events DROP COLUMN point.y;
