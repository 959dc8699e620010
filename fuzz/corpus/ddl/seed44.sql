-- The table is partitioned by region: dropping the partition source breaks the table for readers.
ALTER TABLE lake_prod.fact_orders DROP COLUMN region;
