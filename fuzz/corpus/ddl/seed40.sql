-- Metadata only: the field keeps its id, so old files are still found by id.
-- fieldgate: allow column-rename -- the BI views were moved to mobile_phone in the same release
ALTER TABLE lake_prod.dim_users RENAME COLUMN phone TO mobile_phone;
