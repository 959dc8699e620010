-- Typos and changes Iceberg cannot express are caught before they reach a catalog.
ALTER TABLE db.events RENAME COLUMN payload TO body;
ALTER TABLE db.events ADD COLUMN status string;
ALTER TABLE db.events ADD COLUMN attrs.key.region string;
