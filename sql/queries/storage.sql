-- Named queries of the storage family: the bytes and rows of each layer, for
-- `timetrace status` (every user's) and the privacy page (one user's). A layer's
-- tables are summed over their leaves: the partitions of a partitioned table, or the
-- table itself (pg_partition_tree lists nothing for a table that is not partitioned),
-- each with its indexes and TOAST.

-- name: storage_bytes --
-- global: timetrace status: the bytes of each layer on disk, every user's
-- Rows are the planner's estimate (exact enough for sizes; 0 before the first ANALYZE).
WITH layer(layer, tables) AS (VALUES
    ('records', ARRAY['records']),
    ('record_analyses', ARRAY['record_analyses']),
    ('episodes', ARRAY['episodes']),
    ('digests', ARRAY['digests']),
    ('signals', ARRAY['signals']),
    ('aw_events', ARRAY['aw_events', 'aw_buckets']),
    ('conversations', ARRAY['conversations', 'conversation_turns'])
), leaves AS (
    SELECT l.layer, c.oid, c.reltuples
    FROM layer l, unnest(l.tables) AS t(name),
         LATERAL (SELECT p.relid FROM pg_partition_tree(t.name::regclass) AS p WHERE p.isleaf
                  UNION SELECT t.name::regclass) AS leaf
    JOIN pg_class c ON c.oid = leaf.relid AND c.relkind <> 'p'
)
SELECT layer, COALESCE(sum(pg_total_relation_size(oid)), 0)::bigint AS bytes,
       COALESCE(sum(GREATEST(reltuples, 0)), 0)::bigint AS rows
FROM leaves
GROUP BY layer
ORDER BY min(array_position(ARRAY['records', 'record_analyses', 'episodes', 'digests',
                                  'signals', 'aw_events', 'conversations'], layer));

-- name: embedding_bytes --
-- global: timetrace status: the bytes of the stored embeddings, every user's
SELECT 'embeddings' AS layer,
       ((SELECT COALESCE(sum(pg_column_size(summary_embedding)), 0) FROM episodes)
        + (SELECT COALESCE(sum(pg_column_size(embedding)), 0) FROM record_analyses))::bigint
           AS bytes,
       ((SELECT count(summary_embedding) FROM episodes)
        + (SELECT count(embedding) FROM record_analyses))::bigint AS rows;

-- name: user_storage --
-- One user's rows per layer and their bytes: the table's own bytes when no other user
-- exists (users cascade to every row), else the user's share of the table by the
-- planner's row estimate; NULL (unknown) when no leaf has been analysed yet.
WITH counts(layer, tbl, rows) AS (VALUES
    ('records', 'records',
     (SELECT count(*) FROM records WHERE user_id = %(user_id)s)),
    ('record_analyses', 'record_analyses',
     (SELECT count(*) FROM record_analyses WHERE user_id = %(user_id)s)),
    ('episodes', 'episodes', (SELECT count(*) FROM episodes WHERE user_id = %(user_id)s)),
    ('digests', 'digests', (SELECT count(*) FROM digests WHERE user_id = %(user_id)s)),
    ('signals', 'signals', (SELECT count(*) FROM signals WHERE user_id = %(user_id)s)),
    ('aw_events', 'aw_events', (SELECT count(*) FROM aw_events WHERE user_id = %(user_id)s)),
    ('conversations', 'conversation_turns',
     (SELECT count(*) FROM conversation_turns WHERE user_id = %(user_id)s))
), sizes AS (
    SELECT c.layer, c.rows, sum(pg_total_relation_size(k.oid)) AS table_bytes,
           sum(k.reltuples) FILTER (WHERE k.reltuples >= 0) AS table_rows
    FROM counts c,
         LATERAL (SELECT p.relid FROM pg_partition_tree(c.tbl::regclass) AS p WHERE p.isleaf
                  UNION SELECT c.tbl::regclass) AS leaf
    JOIN pg_class k ON k.oid = leaf.relid AND k.relkind <> 'p'
    GROUP BY c.layer, c.rows
), alone AS (
    SELECT NOT EXISTS (SELECT 1 FROM users WHERE user_id <> %(user_id)s) AS only_user
)
SELECT s.layer,
       CASE WHEN s.rows = 0 THEN 0
            WHEN a.only_user THEN s.table_bytes
            WHEN s.table_rows > 0
                THEN round(s.rows * s.table_bytes / GREATEST(s.table_rows, s.rows))
       END::bigint AS bytes,
       s.rows::bigint AS rows
FROM sizes s, alone a
ORDER BY array_position(ARRAY['records', 'record_analyses', 'episodes', 'digests',
                              'signals', 'aw_events', 'conversations'], s.layer);
