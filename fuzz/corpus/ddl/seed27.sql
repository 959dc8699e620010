ALTER TABLE db.users DROP COLUMN nickname;
ALTER TABLE db.users ADD COLUMN nickname string;
