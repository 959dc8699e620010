ALTER TABLE db.users ADD COLUMN scratch string;
ALTER TABLE db.users DROP COLUMN scratch;
