ALTER TABLE db.events RENAME COLUMN location.lat TO latitude;
