-- A scoped caller's view (docs/scopes.md, app/db/scoped.py): on its own connection,
-- temporary tables of the same names shadow the user's records and what is built from
-- them (PostgreSQL looks in the session's temporary schema first), so every named query
-- reads only in-scope time. Run in this order, once per connection.

-- name: scope_pieces --
-- The in-scope pieces of the user's record spans (timetrace_scoped_spans_v1), read over
-- the user's history, or the scope's dates when it has them (a record runs at most a day).
CREATE TEMP TABLE scope_pieces AS
WITH b AS (
    SELECT GREATEST(min(ts_start),
                    (%(date_from)s::date - 2)::timestamp AT TIME ZONE 'UTC') AS lo,
           LEAST(max(ts_start) + interval '2 days',
                 (%(date_to)s::date + 3)::timestamp AT TIME ZONE 'UTC') AS hi
    FROM public.records
    WHERE user_id = %(user_id)s AND deleted_at IS NULL
)
SELECT p.* FROM b
CROSS JOIN LATERAL timetrace_scoped_spans_v1(%(user_id)s, b.lo, b.hi, %(scope)s) p
WHERE b.lo IS NOT NULL AND b.lo < b.hi;

-- name: scope_records --
-- One record a piece: the record's own row, its start and end the piece's, so that the
-- duration rule over the shadow gives each piece its clipped seconds; a second piece of
-- one record gets its own client_record_id.
CREATE TEMP TABLE records AS
SELECT r.*, p.piece AS scope_piece, p.clip_start AS scope_start, p.clip_end AS scope_end
FROM scope_pieces p
JOIN public.records r ON r.user_id = %(user_id)s AND r.ts_start = p.ts_start
 AND r.record_id = p.record_id;

-- name: scope_clip_records --
-- global: the connection's own temporary table, which holds one user's in-scope rows
UPDATE records r SET
    ts_start = r.scope_start, ts_end = r.scope_end,
    client_record_id = r.client_record_id
        || CASE WHEN r.scope_piece > 1 THEN '#' || r.scope_piece ELSE '' END,
    day_local = ((r.scope_start AT TIME ZONE u.time_zone)
                 - make_interval(hours => u.day_cut_hour))::date
FROM users u WHERE u.user_id = r.user_id;

-- name: scope_finish_records --
-- global: the connection's own temporary table, which holds one user's in-scope rows
ALTER TABLE records DROP COLUMN scope_piece, DROP COLUMN scope_start, DROP COLUMN scope_end;

-- name: scope_index_records --
CREATE INDEX ON records (user_id, device_id, ts_start, client_record_id COLLATE "C");

-- name: scope_index_record_ids --
CREATE INDEX ON records (user_id, record_id);

-- name: scope_analyses --
-- What was said about an in-scope record (its description, embedding) stays with it.
CREATE TEMP TABLE record_analyses AS
SELECT a.* FROM public.record_analyses a
WHERE a.user_id = %(user_id)s AND a.record_id IN (SELECT record_id FROM scope_pieces);

-- name: scope_index_analyses --
CREATE INDEX ON record_analyses (user_id, record_id);

-- name: scope_empty_episodes --
-- Built layers cover unscoped time: a scoped caller reads none of them as they are.
CREATE TEMP TABLE episodes (LIKE public.episodes INCLUDING ALL);

-- name: scope_empty_digests --
CREATE TEMP TABLE digests (LIKE public.digests INCLUDING ALL);

-- name: scope_empty_signals --
CREATE TEMP TABLE signals (LIKE public.signals INCLUDING ALL);

-- name: scope_empty_marks --
CREATE TEMP TABLE build_marks (LIKE public.build_marks INCLUDING ALL);

-- name: scope_empty_redirects --
CREATE TEMP TABLE episode_redirects (LIKE public.episode_redirects INCLUDING ALL);

-- name: scope_empty_labels --
CREATE TEMP TABLE labels (LIKE public.labels INCLUDING ALL);

-- name: scope_empty_conversations --
-- Earlier conversations were answered over unscoped time.
CREATE TEMP TABLE conversations (LIKE public.conversations INCLUDING ALL);

-- name: scope_empty_turns --
CREATE TEMP TABLE conversation_turns (LIKE public.conversation_turns INCLUDING ALL);

-- name: scope_analyze --
-- global: the connection's own temporary tables, which hold one user's in-scope rows
ANALYZE records, record_analyses;
