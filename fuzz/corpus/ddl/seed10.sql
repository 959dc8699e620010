ALTER TABLE db.events ADD COLUMN s struct<a: struct<x: int, y: int>, b: int>;
