ALTER TABLE db.events ADD COLUMN buckets map<string, array<int>>;
