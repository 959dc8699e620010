ALTER TABLE db.legacy ADD COLUMN region string;
ALTER TABLE db.legacy RENAME COLUMN name TO full_name;
