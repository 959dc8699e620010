ALTER TABLE db.events ALTER COLUMN amount TYPE decimal(18,2);
