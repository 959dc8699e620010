ALTER TABLE db.events ADD COLUMN origin struct<x: double, y: double>;
