ALTER TABLE db.events ADD COLUMN path array<struct<x: double, y: double>>;
