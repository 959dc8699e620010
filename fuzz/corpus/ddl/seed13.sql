ALTER TABLE db.events ADD COLUMN attrs.value.b int;
