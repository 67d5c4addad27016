-- A user's data out (`timetrace export`, GET /api/v1/export) and a TimeTrace export back
-- in (`timetrace import timetrace`). docs/export.md describes the formats. The queries
-- written with {table}, {columns}, {window} or {key} are templates: app/db/export.py
-- and app/db/restore.py fill them with identifiers of the kinds they carry (never input).

-- name: export_columns --
-- The columns an export carries of a table, in table order: all but user_id (the user
-- is the file's) and generated columns (the server computes them again).
SELECT a.attname::text AS name
FROM pg_attribute a
WHERE a.attrelid = %(table)s::regclass AND a.attnum > 0 AND NOT a.attisdropped
  AND a.attgenerated = '' AND a.attname <> 'user_id'
ORDER BY a.attnum;

-- name: export_primary_key --
-- A table's primary key columns, the target an import's ON CONFLICT names.
SELECT a.attname::text AS name
FROM pg_index i
JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
WHERE i.indrelid = %(table)s::regclass AND i.indisprimary
ORDER BY array_position(i.indkey::int2[], a.attnum);

-- name: export_schema --
-- What a file says about the server it came from.
SELECT (SELECT max(version) FROM schema_version)::int AS schema_version,
       (SELECT value FROM schema_meta WHERE key = 'embedding_dim')::int AS embedding_dim;

-- name: export_rows --
-- Every row of one kind of the user's as a JSON object, one a line (app/db/export.py
-- wraps each in its line, with the kind).
COPY (
    SELECT row_to_json(x) FROM (SELECT {columns} FROM {table} t WHERE t.user_id = %(user_id)s) x
) TO STDOUT;

-- name: export_rows_in_window --
-- The same, for the rows whose time column lies in [lo, hi).
COPY (
    SELECT row_to_json(x)
    FROM (SELECT {columns} FROM {table} t
          WHERE t.user_id = %(user_id)s AND t.{window} >= %(lo)s AND t.{window} < %(hi)s) x
) TO STDOUT;

-- name: export_record_count --
-- How many records (tombstones included) an export of a window carries: the progress
-- bar's total.
SELECT count(*)::bigint AS n FROM records
WHERE user_id = %(user_id)s AND ts_start >= %(lo)s AND ts_start < %(hi)s;

-- name: export_record_spans --
-- The live records of a window with their effective span (timetrace_spans_v1, as
-- query_stats counts them), per device in timeline order: the ActivityWatch buckets and
-- the records table for spreadsheets.
SELECT s.record_id, s.device_id, s.ts_start, s.ts_end, s.day_local, s.app, s.app_raw,
       s.window_title, s.url, s.domain, s.category, s.category_source, s.is_idle,
       s.seconds AS duration_s
FROM timetrace_spans_v1(%(user_id)s, %(ts_from)s, %(ts_to)s) s
WHERE s.device_id = %(device_id)s
ORDER BY s.ts_start, s.client_record_id COLLATE "C";

-- name: export_devices --
-- The user's devices, for the per-device passes.
SELECT device_id, name, kind, created_at FROM devices
WHERE user_id = %(user_id)s ORDER BY device_id;

-- name: export_records_csv --
-- The records table for spreadsheets: one live record a row, times in the user's zone,
-- its effective span (timetrace_spans_v1) as seconds and end.
COPY (
    SELECT s.record_id, s.device_id AS device, s.day_local AS day,
           to_char(s.ts_start AT TIME ZONE %(tz)s, 'YYYY-MM-DD HH24:MI:SS') AS start,
           to_char(s.span_end AT TIME ZONE %(tz)s, 'YYYY-MM-DD HH24:MI:SS') AS end,
           round(s.seconds::numeric, 3) AS seconds, s.app, s.app_raw, s.window_title AS title,
           s.url, s.domain, s.category, s.is_idle AS idle
    FROM timetrace_spans_v1(%(user_id)s, %(lo)s, %(hi)s) s
    ORDER BY s.device_id, s.ts_start, s.client_record_id COLLATE "C"
) TO STDOUT (FORMAT csv, HEADER);

-- name: export_episodes_csv --
-- The episodes table for spreadsheets: one current episode a row, times in the user's zone.
COPY (
    SELECT e.episode_id, e.device_id AS device, e.day_local AS day,
           to_char(e.ts_start AT TIME ZONE %(tz)s, 'YYYY-MM-DD HH24:MI:SS') AS start,
           to_char(e.ts_end AT TIME ZONE %(tz)s, 'YYYY-MM-DD HH24:MI:SS') AS end,
           round(e.duration_s::numeric, 3) AS seconds, round(e.active_s::numeric, 3) AS active_seconds,
           e.primary_app AS app, e.category, e.title, e.summary, e.frame_count AS records,
           e.switch_count AS switches, round(e.interruption_s::numeric, 3) AS interruption_seconds
    FROM episodes e
    WHERE e.user_id = %(user_id)s AND NOT e.stale
      AND e.ts_start >= %(lo)s AND e.ts_start < %(hi)s
    ORDER BY e.ts_start, e.device_id, e.episode_id
) TO STDOUT (FORMAT csv, HEADER);

-- name: export_snapshot --
-- One snapshot for the whole file: every kind read as of the same moment.
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY;

-- name: import_user_holds --
-- Whether the user holds any row of one kind (an import goes only into a user that
-- holds nothing yet, or a previous import of the same file).
SELECT EXISTS (SELECT 1 FROM {table} t WHERE t.user_id = %(user_id)s) AS holds;

-- name: import_seen --
-- Whether this export was imported into the user before (its mark in `imports`).
SELECT EXISTS (SELECT 1 FROM imports WHERE user_id = %(user_id)s AND source = %(source)s)
    AS seen;

-- name: import_mark --
-- The import's mark on the user, in its transaction: the file's export id and what it
-- added (a later import of the same file adds nothing).
INSERT INTO imports (user_id, source, status, stage, done, total, events, new, duplicate)
VALUES (%(user_id)s, %(source)s, 'done', 'restored', %(rows)s, %(rows)s, %(rows)s,
        %(new)s, %(rows)s - %(new)s);

-- name: import_user_clock --
-- The user's time zone and cut hour, as the file's: logical days depend on them.
UPDATE users SET time_zone = %(time_zone)s, day_cut_hour = %(day_cut_hour)s
WHERE user_id = %(user_id)s;

-- name: import_rows --
-- A batch of one kind's rows into the user, ids kept; a row already there (a second
-- import of the same file) is skipped.
INSERT INTO {table} AS t (user_id, {columns}) OVERRIDING SYSTEM VALUE
SELECT %(user_id)s, {columns} FROM json_populate_recordset(NULL::{table}, %(rows)s::json)
ON CONFLICT ({key}) DO NOTHING;

-- name: import_top_id --
-- The largest id of a kind the user now holds, so that its sequence moves past it.
SELECT max(t.{id})::bigint AS top FROM {table} t WHERE t.user_id = %(user_id)s;

-- name: import_advance_sequence --
-- Move an id column's sequence (its own, or the one named) past the ids an import kept,
-- never back: later rows of any user take ids above them.
WITH s AS (
    SELECT COALESCE(%(sequence)s::text, pg_get_serial_sequence(%(table)s, %(column)s))::regclass
        AS seq
)
SELECT setval(s.seq, %(top)s::bigint) FROM s
WHERE %(top)s::bigint > COALESCE(pg_sequence_last_value(s.seq), 0);

-- name: export_url_apps --
-- The apps of a device's live records with a URL in a window (its browsers).
SELECT DISTINCT app FROM records
WHERE user_id = %(user_id)s AND device_id = %(device_id)s AND deleted_at IS NULL
  AND url IS NOT NULL AND ts_start >= %(ts_from)s AND ts_start < %(ts_to)s
ORDER BY app;

-- name: import_column_types --
-- The type of each column an import may write into a table (as export_columns), for the
-- checks a file's rows go through before they are written.
SELECT a.attname::text AS name, t.typname::text AS type
FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
WHERE a.attrelid = %(table)s::regclass AND a.attnum > 0 AND NOT a.attisdropped
  AND a.attgenerated = '' AND a.attname <> 'user_id'
ORDER BY a.attnum;
