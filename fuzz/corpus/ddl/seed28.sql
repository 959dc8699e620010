ALTER TABLE db.users RENAME COLUMN email TO contact_email;
ALTER TABLE db.users ADD COLUMN phone string;
