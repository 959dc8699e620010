ALTER TABLE db.events ALTER COLUMN points.element.y FIRST;
