-- The column is removed from the current schema only; its id is sealed forever.
-- fieldgate: allow column-drop -- no reader since 2025 (see the column's comment)
ALTER TABLE lake_prod.fact_orders DROP COLUMN legacy_discount_code;
