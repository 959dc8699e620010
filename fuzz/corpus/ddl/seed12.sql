ALTER TABLE db.events ADD COLUMN points.element.z double;
