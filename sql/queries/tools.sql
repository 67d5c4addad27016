-- Tools (query time), and re-labelling.

-- name: get_digest --
SELECT digest_id, grain, scope_key, period_start, period_end, metrics, narrative, narrative_status,
       source_ids, computed_through_ts, finalized, stale
FROM digests WHERE user_id = %(user_id)s AND grain = %(grain)s AND scope_key = %(scope_key)s;

-- name: get_digests --
-- Digests of one grain by key, in one statement: get_digest reads its period's and the
-- previous period's (the narrative by rule compares the two) together. By key.
SELECT digest_id, grain, scope_key, period_start, period_end, metrics, narrative, narrative_status,
       source_ids, computed_through_ts, finalized, stale
FROM digests
WHERE user_id = %(user_id)s AND grain = %(grain)s AND scope_key = ANY(%(scope_keys)s::text[])
ORDER BY scope_key;

-- name: list_signals --
SELECT signal_id, kind, scope, day_local, ts_start, ts_end, severity, metrics, evidence
FROM signals
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
ORDER BY ts_start, kind, signal_id;

-- name: period_settled --
-- True when no record of [day_from, day_to] can be unbuilt (see unbuilt_days): no day
-- of it is marked, and every device's watermark lies past the last instant a record of
-- those days can start at (the bound unbuilt_days reads up to). It reads no record, so
-- a settled period, most of history, is not planned over the months of `records`.
SELECT NOT EXISTS (
           SELECT 1 FROM build_marks
           WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s)
       AND NOT EXISTS (
           SELECT 1 FROM devices d
           LEFT JOIN LATERAL (
               SELECT last_start FROM episodes x
               WHERE x.user_id = d.user_id AND x.device_id = d.device_id
               ORDER BY x.ts_start DESC, x.first_key COLLATE "C" DESC LIMIT 1
           ) w ON true
           WHERE d.user_id = %(user_id)s
             AND COALESCE(w.last_start, '-infinity')
                 < (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC') AS settled;

-- name: covering_digests --
-- The finalized, current digests that cover the caller's periods largest first (its
-- months, weeks and days, each with its first and last day), around the unbuilt days:
-- a month with no unbuilt day; a week with none that shares no day with a month taken;
-- a day not unbuilt and in no month or week taken. Only the digests taken carry their
-- metrics back (a month's answer is one document, not every digest inside it).
WITH c AS (
    SELECT c.* FROM unnest(%(grains)s::text[], %(keys)s::text[], %(firsts)s::date[],
                           %(lasts)s::date[]) AS c(grain, scope_key, first_day, last_day)
    WHERE NOT EXISTS (SELECT 1 FROM unnest(%(unbuilt)s::date[]) AS u(day)
                      WHERE u.day BETWEEN c.first_day AND c.last_day)
), d AS (
    SELECT c.grain, c.first_day, c.last_day, g.digest_id
    FROM c JOIN digests g ON g.user_id = %(user_id)s AND g.grain = c.grain
     AND g.scope_key = c.scope_key
    WHERE g.finalized AND NOT g.stale
), months AS (
    SELECT * FROM d WHERE grain = 'month'
), weeks AS (
    SELECT * FROM d w WHERE grain = 'week' AND NOT EXISTS (
        SELECT 1 FROM months m WHERE m.first_day <= w.last_day AND w.first_day <= m.last_day)
), days AS (
    SELECT * FROM d x WHERE grain = 'day' AND NOT EXISTS (
        SELECT 1 FROM (SELECT first_day, last_day FROM months
                       UNION ALL SELECT first_day, last_day FROM weeks) t
        WHERE x.first_day BETWEEN t.first_day AND t.last_day)
)
SELECT g.grain, g.scope_key, g.metrics, g.computed_through_ts
FROM (SELECT digest_id FROM months UNION ALL SELECT digest_id FROM weeks
      UNION ALL SELECT digest_id FROM days) t
JOIN digests g ON g.user_id = %(user_id)s AND g.digest_id = t.digest_id;

-- name: open_tail_metrics --
-- Records not yet in a closed episode (the open tail), by the duration rule: those
-- after their device's watermark, and those of a marked day.
WITH w AS (
    SELECT d.device_id, COALESCE(e.last_start, '-infinity') AS last_start,
           COALESCE(e.last_key, '') AS last_key
    FROM devices d
    LEFT JOIN LATERAL (
        SELECT last_start, last_key FROM episodes x
        WHERE x.user_id = d.user_id AND x.device_id = d.device_id
        ORDER BY x.ts_start DESC, x.first_key COLLATE "C" DESC LIMIT 1
    ) e ON true
    WHERE d.user_id = %(user_id)s
), m AS (
    SELECT device_id, day_local FROM build_marks
    WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s
), r AS (
    SELECT * FROM timetrace_spans_v1(%(user_id)s, %(ts_from)s, %(ts_to)s)
)
SELECT r.category, r.app, r.is_idle, COALESCE(sum(r.seconds), 0) AS seconds,
       max(r.ts_start) AS last_ts
FROM r JOIN w ON w.device_id = r.device_id
WHERE r.day_local BETWEEN %(day_from)s AND %(day_to)s
  AND ((r.ts_start, r.client_record_id COLLATE "C") > (w.last_start, w.last_key COLLATE "C")
       OR EXISTS (SELECT 1 FROM m WHERE m.device_id = r.device_id AND m.day_local = r.day_local))
GROUP BY r.category, r.app, r.is_idle;

-- name: device_overlap_seconds --
-- Seconds of [ts_from, ts_to) during which two or more devices were active at once.
-- One device's effective spans never overlap, so a sweep over every device's active
-- spans counts devices; at equal instants ends go before starts (touching is not
-- overlapping). Records from read_from on are read: a record before that cannot reach
-- into the period (a record runs at most a day).
WITH spans AS (
    SELECT GREATEST(s.ts_start, %(ts_from)s) AS s, LEAST(s.span_end, %(ts_to)s) AS e
    FROM timetrace_spans_v1(%(user_id)s, %(read_from)s, %(ts_to)s) s
    WHERE NOT s.is_idle
), edges AS (
    SELECT s AS t, 1 AS delta FROM spans WHERE e > s
    UNION ALL
    SELECT e, -1 FROM spans WHERE e > s
), sweep AS (
    SELECT t, sum(delta) OVER w AS active, lead(t) OVER w AS next_t
    FROM edges
    WINDOW w AS (ORDER BY t, delta ROWS UNBOUNDED PRECEDING)
)
SELECT COALESCE(sum(EXTRACT(EPOCH FROM next_t - t)) FILTER (WHERE active >= 2), 0)::double precision
       AS seconds
FROM sweep;

-- name: unbuilt_days --
-- Days of [day_from, day_to] with live records not (or no longer) in a current closed
-- episode: what a digest over them cannot include yet. Those are each device's records
-- after its watermark (the tail: an index range from it, within the UTC days that can
-- hold the period's logical days) and the records of marked days (few); never a scan
-- of the period.
WITH m AS (
    SELECT device_id, day_local FROM build_marks
    WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s
), tail AS (
    SELECT t.day_local FROM devices d
    LEFT JOIN LATERAL (
        SELECT last_start, last_key FROM episodes x
        WHERE x.user_id = d.user_id AND x.device_id = d.device_id
        ORDER BY x.ts_start DESC, x.first_key COLLATE "C" DESC LIMIT 1
    ) w ON true
    CROSS JOIN LATERAL (
        SELECT r.day_local FROM records r
        WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
          -- Constant bounds prune the months when planning (a bound inside GREATEST
          -- with the watermark pruned none); the watermark narrows the index range.
          AND r.ts_start >= (%(day_from)s::date - 1)::timestamp AT TIME ZONE 'UTC'
          AND r.ts_start < (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC'
          AND r.ts_start >= COALESCE(w.last_start, '-infinity')
          AND (r.ts_start, r.client_record_id COLLATE "C")
              > (COALESCE(w.last_start, '-infinity'), COALESCE(w.last_key, '') COLLATE "C")
          AND r.day_local BETWEEN %(day_from)s AND %(day_to)s
          AND NOT EXISTS (SELECT 1 FROM m WHERE m.device_id = r.device_id
                            AND m.day_local = r.day_local)
    ) t
    WHERE d.user_id = %(user_id)s
), marked AS (
    SELECT r.day_local FROM m
    JOIN records r ON r.user_id = %(user_id)s AND r.day_local = m.day_local
     AND r.device_id = m.device_id AND r.deleted_at IS NULL
     AND r.ts_start >= m.day_local - 3 AND r.ts_start < m.day_local + 4  -- the day's range
     -- and the period's, in constants: the months are pruned when planning, not each
     -- month's partition planned for a join that reads none of them
     AND r.ts_start >= (%(day_from)s::date - 1)::timestamp AT TIME ZONE 'UTC'
     AND r.ts_start < (%(day_to)s::date + 3)::timestamp AT TIME ZONE 'UTC'
)
SELECT day_local AS day, count(*)::int AS records
FROM (SELECT day_local FROM tail UNION ALL SELECT day_local FROM marked) x
GROUP BY day_local ORDER BY day_local;

-- name: uncategorized_time --
-- The coverage view: active time no rule categorised, by app and site (by title for a
-- browser record without a URL), by the duration rule (timetrace_spans_v1 over the
-- read window).
SELECT app, domain,
       CASE WHEN domain IS NULL AND app = ANY(%(browsers)s::text[]) THEN window_title ELSE '' END
           AS window_title,
       sum(s.seconds) AS seconds
FROM timetrace_spans_v1(%(user_id)s, %(ts_from)s, %(ts_to)s) s
WHERE category = 'uncategorized' AND NOT is_idle AND day_local BETWEEN %(day_from)s AND %(day_to)s
GROUP BY 1, 2, 3
ORDER BY seconds DESC, 1, 2, 3
LIMIT %(limit)s;

-- name: period_signal_counts --
SELECT kind, count(*) AS n FROM signals
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
GROUP BY kind ORDER BY kind;

-- name: period_signal_kinds --
-- Each kind's count, days and strongest signal (the largest severity, the earliest of
-- ties): what a narrative by rule says of focus and habits, one row a kind.
SELECT kind, count(*)::int AS times, count(DISTINCT day_local)::int AS days,
       (array_agg(severity ORDER BY severity DESC, ts_start))[1] AS top_severity,
       (array_agg(ts_start ORDER BY severity DESC, ts_start))[1] AS top_start
FROM signals
WHERE user_id = %(user_id)s AND day_local BETWEEN %(day_from)s AND %(day_to)s AND NOT stale
GROUP BY kind ORDER BY kind;

-- name: latest_records --
-- A record's episode is the current one whose span holds it (NULL: not built yet).
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle,
       timetrace_episode_of(r.user_id, r.device_id, r.ts_start, r.client_record_id) AS episode_id,
       a.description
FROM (
    -- Per device on the timeline index (records are partitioned by month and have no
    -- index by user and time): each device's newest `limit` starts, with the records
    -- tied at the last one, so the merged order below is exact.
    SELECT x.* FROM devices d
    CROSS JOIN LATERAL (
        SELECT r.* FROM records r
        WHERE r.user_id = d.user_id AND r.device_id = d.device_id AND r.deleted_at IS NULL
          AND r.ts_start <= %(now)s
        ORDER BY r.ts_start DESC FETCH FIRST %(limit)s ROWS WITH TIES
    ) x
    WHERE d.user_id = %(user_id)s
    ORDER BY x.ts_start DESC, x.record_id DESC LIMIT %(limit)s) r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
ORDER BY r.ts_start DESC, r.record_id DESC;

-- name: last_closed_episode --
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s, summary_by
FROM episodes WHERE user_id = %(user_id)s AND closed AND NOT stale AND ts_end <= %(now)s
ORDER BY ts_end DESC, episode_id DESC LIMIT 1;

-- name: open_sitting --
-- What the device has done since its last closed episode (no episode yet): its records
-- after the watermark (an index range from it; a marked day being rebuilt is not a
-- sitting).
WITH w AS (
    SELECT last_start, last_key FROM episodes
    WHERE user_id = %(user_id)s AND device_id = %(device_id)s
    ORDER BY ts_start DESC, first_key COLLATE "C" DESC LIMIT 1
), x AS (
    SELECT r.app, r.ts_start FROM records r
    WHERE r.user_id = %(user_id)s AND r.device_id = %(device_id)s AND r.deleted_at IS NULL
      AND r.ts_start <= %(now)s
      AND r.ts_start >= COALESCE((SELECT last_start FROM w), '-infinity')
      AND (r.ts_start, r.client_record_id COLLATE "C")
          > (COALESCE((SELECT last_start FROM w), '-infinity'),
             COALESCE((SELECT last_key FROM w), '') COLLATE "C")
)
SELECT min(ts_start) AS since, count(*) AS records,
       (SELECT app FROM x GROUP BY app ORDER BY count(*) DESC, app LIMIT 1) AS main_app
FROM x
HAVING count(*) > 0;

-- name: list_episodes --
-- The overlap is asked twice: `&&` finds the period's episodes on their span index
-- (migration 0038), the comparisons keep the exact bounds (an episode that ends at the
-- period's start is not in it; `&&` of closed ranges would keep it).
SELECT episode_id, device_id, ts_start, ts_end, category, category_source, title, summary,
       duration_s, active_s, summary_by
FROM episodes
WHERE user_id = %(user_id)s AND NOT stale AND ts_start < %(ts_to)s AND ts_end > %(ts_from)s
  AND tstzrange(ts_start, ts_end, '[]') && tstzrange(%(ts_from)s, %(ts_to)s, '[)')
  AND (%(category)s::text IS NULL OR category = %(category)s::text)
ORDER BY ts_start DESC, episode_id DESC LIMIT %(limit)s;

-- name: search_episodes --
-- Hybrid search: pgvector cosine and tsvector ranks, each capped, fused with
-- Reciprocal Rank Fusion (k = 60). With no query vector only the text side runs.
-- Semantic side: when the user has few embedded episodes in range (at most
-- exact_below), an exact scan of them (recall 1, and a filtered HNSW scan would have
-- to walk most of the graph to find them); otherwise the HNSW index, with the
-- transaction's iterative scan (store_tools.py) so that the user filter cannot leave
-- it short. Text side: only the newest matches are ranked (lexical_cap, or the
-- candidates asked for if more): ranking every match of a common word is the expensive part.
-- `before`: only episodes that started before it (a paged search keeps its first ranking).
-- `few` leaves `before` out: its count must come from episodes_embedded alone (an
-- index-only scan), and a predicate on ts_start sent it to the table (a scan of the
-- wide rows, the most of a search's time). It only chooses the exact scan or the
-- index: episodes added between pages change that choice only where they carry the
-- count past exact_below (and the index's own answer is approximate anyway).
WITH few AS MATERIALIZED (
    SELECT count(*) <= %(exact_below)s AS exact FROM (
        SELECT 1 FROM episodes e
        WHERE %(embedding)s::vector IS NOT NULL AND e.user_id = %(user_id)s AND NOT e.stale
          AND e.summary_embedding IS NOT NULL
          AND (%(day_from)s::date IS NULL OR e.day_local >= %(day_from)s::date)
          AND (%(day_to)s::date IS NULL OR e.day_local <= %(day_to)s::date)
          AND (%(category)s::text IS NULL OR e.category = %(category)s::text)
        LIMIT %(exact_below)s + 1) x
), near AS MATERIALIZED (
    (SELECT e.episode_id, e.summary_embedding <=> %(embedding)s::vector AS distance
     FROM episodes e
     WHERE %(embedding)s::vector IS NOT NULL AND NOT (SELECT exact FROM few)
       AND e.user_id = %(user_id)s AND NOT e.stale
       AND e.summary_embedding IS NOT NULL
       AND (%(day_from)s::date IS NULL OR e.day_local >= %(day_from)s::date)
       AND (%(day_to)s::date IS NULL OR e.day_local <= %(day_to)s::date)
       AND (%(category)s::text IS NULL OR e.category = %(category)s::text)
       AND (%(before)s::timestamptz IS NULL OR e.ts_start < %(before)s::timestamptz)
     ORDER BY e.summary_embedding <=> %(embedding)s::vector
     LIMIT %(candidates)s)
    UNION ALL
    (SELECT episode_id, distance FROM (
         SELECT e.episode_id, e.summary_embedding <=> %(embedding)s::vector AS distance
         FROM episodes e
         WHERE %(embedding)s::vector IS NOT NULL AND (SELECT exact FROM few)
           AND e.user_id = %(user_id)s AND NOT e.stale AND e.summary_embedding IS NOT NULL
           AND (%(day_from)s::date IS NULL OR e.day_local >= %(day_from)s::date)
           AND (%(day_to)s::date IS NULL OR e.day_local <= %(day_to)s::date)
           AND (%(category)s::text IS NULL OR e.category = %(category)s::text)
           AND (%(before)s::timestamptz IS NULL OR e.ts_start < %(before)s::timestamptz)
         OFFSET 0  -- a fence: every row is compared, the index's order is not used
     ) every
     ORDER BY distance, episode_id
     LIMIT %(candidates)s)
), semantic AS (
    -- relaxed_order returns nearly sorted rows: rank them by their distance here
    SELECT episode_id, row_number() OVER (ORDER BY distance, episode_id) AS rank FROM near
), matches AS MATERIALIZED (
    SELECT e.episode_id, e.ts_start, e.fts
    FROM episodes e
    WHERE %(tsquery)s::text IS NOT NULL AND e.user_id = %(user_id)s AND NOT e.stale
      AND e.fts @@ to_tsquery('simple', %(tsquery)s)
      AND (%(day_from)s::date IS NULL OR e.day_local >= %(day_from)s::date)
      AND (%(day_to)s::date IS NULL OR e.day_local <= %(day_to)s::date)
      AND (%(category)s::text IS NULL OR e.category = %(category)s::text)
      AND (%(before)s::timestamptz IS NULL OR e.ts_start < %(before)s::timestamptz)
    ORDER BY e.ts_start DESC
    LIMIT GREATEST(%(lexical_cap)s, %(candidates)s)
), lexical AS (
    SELECT m.episode_id,
           row_number() OVER (ORDER BY ts_rank_cd(m.fts, q) DESC, m.ts_start DESC) AS rank
    FROM matches m, to_tsquery('simple', %(tsquery)s) AS q
    ORDER BY rank
    LIMIT %(candidates)s
), fused AS (
    SELECT COALESCE(s.episode_id, l.episode_id) AS episode_id,
           COALESCE(1.0 / (60 + s.rank), 0) + COALESCE(1.0 / (60 + l.rank), 0) AS score,
           s.rank AS semantic_rank, l.rank AS lexical_rank
    FROM semantic s FULL OUTER JOIN lexical l ON l.episode_id = s.episode_id
)
SELECT f.score::double precision AS score, f.semantic_rank, f.lexical_rank, e.episode_id,
       e.device_id, e.ts_start, e.ts_end, e.category, e.category_source, e.title, e.summary,
       e.duration_s, e.active_s, e.summary_by
FROM fused f JOIN episodes e ON e.user_id = %(user_id)s AND e.episode_id = f.episode_id
ORDER BY f.score DESC, e.ts_start DESC, e.episode_id DESC
LIMIT %(k)s;

-- name: episode_neighbors --
-- The episode before and after each given one, on the same device.
SELECT g.episode_id AS of_id, n.side, n.episode_id, n.device_id, n.ts_start, n.ts_end,
       n.category, n.category_source, n.title, n.summary, n.duration_s, n.active_s,
       n.summary_by
FROM episodes g
CROSS JOIN LATERAL (
    (SELECT 'before' AS side, p.* FROM episodes p
     WHERE p.user_id = g.user_id AND p.device_id = g.device_id AND NOT p.stale
       AND p.ts_start < g.ts_start ORDER BY p.ts_start DESC LIMIT 1)
    UNION ALL
    (SELECT 'after' AS side, x.* FROM episodes x
     WHERE x.user_id = g.user_id AND x.device_id = g.device_id AND NOT x.stale
       AND x.ts_start > g.ts_start ORDER BY x.ts_start LIMIT 1)
) n
WHERE g.user_id = %(user_id)s AND g.episode_id = ANY(%(ids)s);

-- name: raw_records --
-- Records per device on the timeline index, then merged (no index by user and time).
-- A record's episode is the current one whose span holds it (NULL: not built yet),
-- found by one join against the window's episodes, not a probe per record: per device,
-- the last episode starting before the window and those starting in it, each paired
-- with its successor; a record falls to the one whose start it is at or after and
-- whose successor's start it is before (what timetrace_episode_of's probe finds).
WITH r AS (
    SELECT x.*, a.description
    FROM devices d
    CROSS JOIN LATERAL (
        SELECT * FROM records x
        WHERE x.user_id = d.user_id AND x.device_id = d.device_id AND x.deleted_at IS NULL
          AND x.ts_start >= %(ts_from)s AND x.ts_start < %(ts_to)s
        ORDER BY x.ts_start, x.record_id LIMIT %(limit)s
    ) x
    LEFT JOIN record_analyses a ON a.user_id = x.user_id AND a.record_id = x.record_id
    WHERE d.user_id = %(user_id)s
      AND (%(device_id)s::text IS NULL OR d.device_id = %(device_id)s::text)
    ORDER BY x.ts_start, x.record_id LIMIT %(limit)s
), w AS (
    SELECT e.*, lead(e.ts_start) OVER s AS next_start, lead(e.first_key) OVER s AS next_key
    FROM devices d
    CROSS JOIN LATERAL (
        (SELECT p.device_id, p.episode_id, p.stale, p.ts_start, p.first_key, p.last_start,
                p.last_key
         FROM episodes p
         WHERE p.user_id = d.user_id AND p.device_id = d.device_id AND p.ts_start < %(ts_from)s
         ORDER BY p.ts_start DESC, p.first_key COLLATE "C" DESC LIMIT 1)
        UNION ALL
        SELECT p.device_id, p.episode_id, p.stale, p.ts_start, p.first_key, p.last_start,
               p.last_key
        FROM episodes p
        WHERE p.user_id = d.user_id AND p.device_id = d.device_id
          AND p.ts_start >= %(ts_from)s AND p.ts_start < %(ts_to)s
    ) e
    WHERE d.user_id = %(user_id)s
      AND (%(device_id)s::text IS NULL OR d.device_id = %(device_id)s::text)
    WINDOW s AS (PARTITION BY e.device_id ORDER BY e.ts_start, e.first_key COLLATE "C")
)
SELECT r.record_id, r.device_id, r.ts_start, r.ts_end, r.app, r.window_title, r.domain,
       r.category, r.is_idle,
       CASE WHEN NOT w.stale AND (r.ts_start, r.client_record_id COLLATE "C")
                                 <= (w.last_start, w.last_key COLLATE "C")
            THEN w.episode_id END AS episode_id,
       r.description
FROM r LEFT JOIN w ON w.device_id = r.device_id
 AND (w.ts_start, w.first_key COLLATE "C") <= (r.ts_start, r.client_record_id COLLATE "C")
 AND (w.next_start IS NULL
      OR (r.ts_start, r.client_record_id COLLATE "C") < (w.next_start, w.next_key COLLATE "C"))
ORDER BY r.ts_start, r.record_id;

-- name: relabel_record --
-- The caller marks the record's day (mark_device_days): its episodes go stale.
WITH old AS (
    SELECT record_id, category FROM records
    WHERE user_id = %(user_id)s AND record_id = %(record_id)s AND deleted_at IS NULL
), upd AS (
    UPDATE records r SET category = %(category)s, category_source = 'label'
    FROM old WHERE r.user_id = %(user_id)s AND r.record_id = old.record_id
    RETURNING r.device_id, r.day_local
)
SELECT upd.device_id, upd.day_local, old.category AS old_category FROM upd, old;

-- name: relabel_episode --
-- The episode's members by range on the timeline index; the caller marks their day.
WITH ep AS (
    SELECT device_id, ts_start, first_key, last_start, last_key, category FROM episodes
    WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND NOT stale
), upd AS (
    UPDATE records r SET category = %(category)s, category_source = 'label'
    FROM ep WHERE r.user_id = %(user_id)s AND r.device_id = ep.device_id
      AND r.ts_start BETWEEN ep.ts_start AND ep.last_start
      AND (r.ts_start, r.client_record_id COLLATE "C") >= (ep.ts_start, ep.first_key COLLATE "C")
      AND (r.ts_start, r.client_record_id COLLATE "C") <= (ep.last_start, ep.last_key COLLATE "C")
      AND r.deleted_at IS NULL AND NOT r.is_idle
    RETURNING r.device_id, r.day_local
)
SELECT DISTINCT upd.device_id, upd.day_local, ep.category AS old_category
FROM upd, ep;

-- name: label_target_gone --
-- No row to re-label, but the target was there: a deleted record of this user, or an
-- episode id that is not (or no longer) a live episode of this user (episodes are
-- rebuilt, under new ids, when their records change). A conflict to report as such.
-- Every id that is not the user's live episode reads the same: comparing with the
-- global id sequence would tell how many episodes all users have.
SELECT CASE WHEN %(target_kind)s = 'record' THEN EXISTS (
           SELECT 1 FROM records WHERE user_id = %(user_id)s AND record_id = %(target_id)s
             AND deleted_at IS NOT NULL)
       ELSE NOT EXISTS (
           SELECT 1 FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(target_id)s
             AND NOT stale)
       END AS gone;

-- name: insert_label --
INSERT INTO labels (user_id, target_kind, target_id, field, old_value, new_value, actor, note)
VALUES (%(user_id)s, %(target_kind)s, %(target_id)s, 'category', %(old_value)s, %(new_value)s,
        %(actor)s, %(note)s)
RETURNING label_id;

