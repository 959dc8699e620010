ALTER TABLE db.events ALTER COLUMN location.lat AFTER long;
