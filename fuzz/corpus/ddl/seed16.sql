CREATE TABLE db.created (id bigint NOT NULL, data string, point struct<x: double, y: double>, tags array<string>, attrs map<string, struct<a: int>>) USING iceberg;
