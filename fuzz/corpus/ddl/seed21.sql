ALTER TABLE db.events DROP COLUMN status;
ALTER TABLE db.events ADD COLUMN status int;
