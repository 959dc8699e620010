-- A safe widening: readers decode the old INT32 pages as BIGINT while reading.
ALTER TABLE lake_prod.fact_orders ALTER COLUMN total_units TYPE BIGINT;
