-- 0008: real app identities and active time.
--
-- records.app now holds the canonical app (app/rules/apps.toml: `Code.exe`,
-- `com.microsoft.VSCode` and `code` are one `Visual Studio Code`); the name the
-- capture client sent is kept beside it. Records stored before keep their name in
-- both columns.
ALTER TABLE records ADD COLUMN app_raw text NOT NULL DEFAULT '';
UPDATE records SET app_raw = app;

-- Where an episode's category came from: its records (rules, labels), or a model's
-- summary that filled in an `uncategorized` episode (never overriding the records).
ALTER TABLE episodes ADD COLUMN category_source text NOT NULL DEFAULT 'records'
    CHECK (category_source IN ('records', 'model'));

-- Time in an app is active time: idle/locked members no longer count in an
-- episode's per-app seconds (they stay `system` in its per-category seconds).
UPDATE episodes SET app_seconds = '{}';
WITH member AS (
    SELECT r.user_id, r.episode_id, r.app, r.is_idle,
           timetrace_duration_s(r.ts_start, r.ts_end,
               lead(r.ts_start) OVER (PARTITION BY r.user_id, r.device_id
                                      ORDER BY r.ts_start, r.record_id)) AS seconds
    FROM records r
    WHERE r.deleted_at IS NULL
), by_app AS (
    SELECT user_id, episode_id, jsonb_object_agg(app, seconds ORDER BY app) AS app_seconds
    FROM (SELECT user_id, episode_id, COALESCE(NULLIF(app, ''), '(unknown)') AS app,
                 sum(seconds) AS seconds
          FROM member WHERE episode_id IS NOT NULL AND NOT is_idle
          GROUP BY 1, 2, 3) g
    GROUP BY user_id, episode_id
)
UPDATE episodes e SET app_seconds = b.app_seconds
FROM by_app b
WHERE e.user_id = b.user_id AND e.episode_id = b.episode_id;

-- Digests hold seconds by app and top titles: the sweep recomputes them.
UPDATE digests SET stale = true, finalized = false;
