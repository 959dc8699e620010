-- Red line 1: BIGINT -> INT cannot hold the values already written.
ALTER TABLE lake_prod.fact_orders ALTER COLUMN customer_id TYPE INT;
