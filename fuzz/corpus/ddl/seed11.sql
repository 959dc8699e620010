ALTER TABLE db.events ADD COLUMN scratch boolean;
ALTER TABLE db.events DROP COLUMN scratch;
