-- Old data files have no field id for vip_level: readers fill NULL for them.
ALTER TABLE lake_prod.dim_users ADD COLUMNS (vip_level INT COMMENT 'member level 1-5');
