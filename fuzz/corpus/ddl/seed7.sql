ALTER TABLE db.events ADD COLUMN regions map<struct<x: int>, struct<a: int, b: int>>;
