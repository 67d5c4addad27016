-- 0022: search_episodes at many tenants (bench/tools.py --tenants).
--
-- Summary vectors (384 floats, 1.5 kB) are kept in the row: beside a title, a summary and
-- an FTS document the row passes the 2 kB TOAST threshold, and each vector read (every
-- hit's distance, every row of an exact scan) was three page reads instead of one: the
-- row, the TOAST index, the TOAST page. The other wide columns still move out of line
-- when a row would not fit. Rows written before this keep their place until rewritten.
ALTER TABLE episodes ALTER COLUMN summary_embedding SET STORAGE PLAIN;

-- How many of a user's current episodes in a day range are embedded, read from the index
-- alone: a search takes an exact scan of them when they are few, where a filtered HNSW
-- scan would walk most of the other tenants' graph to find them.
CREATE INDEX episodes_embedded ON episodes (user_id, day_local, category)
    WHERE summary_embedding IS NOT NULL AND NOT stale;
