ALTER TABLE db.events RENAME COLUMN id TO event_id;
