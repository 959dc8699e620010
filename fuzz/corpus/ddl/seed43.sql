-- Red line 2: `status` meant the user review state until it was dropped. Reusing the name for the
-- shipping state silently changes every report, view and lineage graph that says `status`.
ALTER TABLE lake_prod.dim_users ADD COLUMN status string COMMENT 'shipping state';
