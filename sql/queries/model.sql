-- The model layer: summaries, embeddings, narratives, frame descriptions.

-- name: episode_for_summary --
-- day_apps: every app of the user that day (code-point order), for the grounding check.
SELECT e.episode_id, e.device_id, e.ts_start, e.ts_end, e.day_local, e.primary_app, e.category,
       e.title, e.summary_status,
       ARRAY(SELECT r.app FROM records r
             WHERE r.user_id = e.user_id AND r.day_local = e.day_local AND r.deleted_at IS NULL
               AND r.ts_start >= e.day_local - 3 AND r.ts_start < e.day_local + 4  -- partitions
               AND r.app <> ''
             GROUP BY r.app ORDER BY r.app COLLATE "C") AS day_apps
FROM episodes e
WHERE e.user_id = %(user_id)s AND e.episode_id = %(episode_id)s AND e.closed AND NOT e.stale;

-- name: episode_members --
-- The records of the episode's span with their durations (timetrace_spans_v1 over the
-- span: each one's successor is the next record, the last one's the first after it).
SELECT s.record_id, s.ts_start, s.app, s.window_title, s.domain, s.category, s.is_idle,
       a.description, s.seconds AS duration_s
FROM episodes e
CROSS JOIN LATERAL (
    SELECT * FROM timetrace_spans_v1(e.user_id, e.ts_start,
                                     e.last_start + interval '1 microsecond') s
    WHERE s.device_id = e.device_id
      AND (s.ts_start, s.client_record_id COLLATE "C") >= (e.ts_start, e.first_key COLLATE "C")
      AND (s.ts_start, s.client_record_id COLLATE "C") <= (e.last_start, e.last_key COLLATE "C")
) s
LEFT JOIN record_analyses a ON a.user_id = s.user_id AND a.record_id = s.record_id
WHERE e.user_id = %(user_id)s AND e.episode_id = %(episode_id)s
ORDER BY s.ts_start, s.client_record_id COLLATE "C";

-- name: save_episode_summary --
-- The model's words are added to the keyword index, never put in place of it: the
-- deterministic title keeps finding its episode whatever the summary says. A model's
-- summary replaces a rule's (summary_by); a failed one leaves the rule's in place.
UPDATE episodes SET
    title = %(title)s, summary = COALESCE(%(summary)s, summary),
    summary_by = CASE WHEN %(summary)s::text IS NULL THEN summary_by ELSE 'model' END,
    tags = %(tags)s, cues = %(cues)s,
    summary_status = %(status)s, summary_reason = %(reason)s, summary_raw = %(raw)s,
    fts = COALESCE(fts, ''::tsvector) || to_tsvector('simple', %(fts_text)s),
    updated_at = now()
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND summary_status = 'pending'
RETURNING day_local;

-- name: fill_episode_category --
-- A summary's category fills in an `uncategorized` episode, never one its records
-- were labelled into by the user. Numbers never read it (see day_episode_facts).
UPDATE episodes e SET category = %(category)s, category_source = 'model'
WHERE e.user_id = %(user_id)s AND e.episode_id = %(episode_id)s AND NOT e.stale
  AND e.category = 'uncategorized' AND e.category_source = 'records'
  AND NOT EXISTS (SELECT 1 FROM records r
                  WHERE r.user_id = e.user_id AND r.device_id = e.device_id
                    AND r.deleted_at IS NULL AND r.ts_start BETWEEN e.ts_start AND e.last_start
                    AND (r.ts_start, r.client_record_id COLLATE "C")
                        >= (e.ts_start, e.first_key COLLATE "C")
                    AND (r.ts_start, r.client_record_id COLLATE "C")
                        <= (e.last_start, e.last_key COLLATE "C")
                    AND r.category_source = 'label')
RETURNING episode_id;

-- name: episode_day --
SELECT day_local FROM episodes WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s;

-- name: episode_for_embedding --
-- The text an embedding is made of: the title, a line break, the summary.
SELECT title || E'\n' || COALESCE(summary, '') AS text FROM episodes
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND summary_status = 'done'
  AND embedding_status = 'pending';

-- name: save_episode_embedding --
UPDATE episodes SET summary_embedding = %(embedding)s::vector, embedding_status = 'done',
       embedding_reason = NULL
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND embedding_status = 'pending';

-- name: fail_episode_embedding --
UPDATE episodes SET embedding_status = 'failed', embedding_reason = %(reason)s
WHERE user_id = %(user_id)s AND episode_id = %(episode_id)s AND embedding_status = 'pending';

-- name: pending_summaries --
-- global: the model sweep: the next episodes to summarise, any user
SELECT user_id, episode_id FROM episodes
WHERE summary_status = 'pending' AND closed AND NOT stale
ORDER BY ts_start DESC LIMIT %(limit)s;

-- name: pending_embeddings --
-- global: the model sweep: the next summaries to embed, any user
SELECT user_id, episode_id FROM episodes
WHERE summary_status = 'done' AND embedding_status = 'pending' AND NOT stale
ORDER BY ts_start DESC LIMIT %(limit)s;

-- name: pending_narratives --
-- global: the model sweep: the next digests to narrate, any user
-- Finalized digests whose narrative is still to write and whose sources are ready:
-- every episode of a day summarised (or failed, or idle); every day of a week or
-- month narrated.
SELECT d.user_id, d.grain, d.scope_key FROM digests d
WHERE d.finalized AND NOT d.stale AND d.narrative_status = 'pending'
  AND CASE WHEN d.grain = 'day' THEN NOT EXISTS (
          SELECT 1 FROM episodes e WHERE e.user_id = d.user_id
            AND e.day_local = d.scope_key::date AND e.summary_status = 'pending' AND NOT e.stale)
      ELSE NOT EXISTS (
          SELECT 1 FROM digests c WHERE c.user_id = d.user_id AND c.grain = 'day'
            AND c.digest_id IN (SELECT jsonb_array_elements_text(d.source_ids)::bigint)
            AND c.narrative_status = 'pending')
      END
ORDER BY d.period_start DESC LIMIT %(limit)s;

-- name: day_episode_summaries --
SELECT episode_id, ts_start, ts_end, category, title, summary, cues, duration_s
FROM episodes
WHERE user_id = %(user_id)s AND day_local = %(day)s AND closed AND NOT stale AND category <> 'system'
ORDER BY ts_start, episode_id;

-- name: child_narratives --
SELECT digest_id, scope_key, narrative FROM digests
WHERE user_id = %(user_id)s AND digest_id IN (SELECT jsonb_array_elements_text(%(ids)s::jsonb)::bigint)
ORDER BY scope_key;

-- name: save_narrative --
UPDATE digests SET narrative = %(narrative)s, narrative_status = %(status)s,
       narrative_reason = %(reason)s, narrative_raw = %(raw)s, updated_at = now(),
       source_ids = CASE WHEN grain = 'day' THEN %(source_ids)s ELSE source_ids END
WHERE user_id = %(user_id)s AND digest_id = %(digest_id)s AND narrative_status = 'pending'
  AND metrics = %(metrics)s
RETURNING digest_id;

-- name: record_for_description --
SELECT r.record_id, r.app, r.window_title, r.url, r.screenshot_ref, r.screenshot_sha256
FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.user_id = %(user_id)s AND r.record_id = %(record_id)s AND r.deleted_at IS NULL
  AND a.record_id IS NULL AND r.screenshot_ref IS NOT NULL;

-- name: pending_descriptions --
-- global: the model sweep: the next screenshots to describe, any user
SELECT r.user_id, r.record_id FROM records r
LEFT JOIN record_analyses a ON a.user_id = r.user_id AND a.record_id = r.record_id
WHERE r.screenshot_ref IS NOT NULL AND r.deleted_at IS NULL AND a.record_id IS NULL
ORDER BY r.ts_start DESC LIMIT %(limit)s;

-- name: save_record_analysis --
INSERT INTO record_analyses (user_id, record_id, description, category, confidence, cues, model,
                             reason, raw_answer, fts)
VALUES (%(user_id)s, %(record_id)s, %(description)s, %(category)s, %(confidence)s, %(cues)s,
        %(model)s, %(reason)s, %(raw)s, to_tsvector('simple', %(fts_text)s))
ON CONFLICT (user_id, record_id) DO NOTHING;

-- name: model_work_counts --
-- global: operator status: the model layer's work over all users
-- The model layer's work, done, open and failed, for `timetrace status`.
SELECT
    count(*) FILTER (WHERE summary_status = 'done') AS summaries_done,
    count(*) FILTER (WHERE summary_status = 'pending') AS summaries_pending,
    count(*) FILTER (WHERE summary_status = 'failed') AS summaries_failed,
    count(*) FILTER (WHERE summary_by = 'rules') AS summaries_by_rules,
    count(*) FILTER (WHERE summary_status = 'done' AND embedding_status = 'done') AS embeddings_done,
    count(*) FILTER (WHERE summary_status = 'done' AND embedding_status = 'pending')
        AS embeddings_pending,
    count(*) FILTER (WHERE embedding_status = 'failed') AS embeddings_failed,
    (SELECT count(*) FROM digests WHERE narrative_status = 'done' AND NOT stale) AS narratives_done,
    (SELECT count(*) FROM digests WHERE narrative_status = 'pending' AND finalized AND NOT stale)
        AS narratives_pending,
    (SELECT count(*) FROM digests WHERE narrative_status = 'failed' AND NOT stale)
        AS narratives_failed,
    (SELECT count(*) FROM record_analyses WHERE reason IS NOT NULL) AS descriptions_failed
FROM episodes WHERE closed AND NOT stale;

-- name: model_failures --
-- global: operator status: the latest model failures over all users
-- The latest failures of every kind, newest first.
SELECT kind, target, reason, at FROM (
    (SELECT 'summary' AS kind, 'episode ' || episode_id AS target, summary_reason AS reason,
            updated_at AS at
     FROM episodes WHERE summary_status = 'failed' AND NOT stale
     ORDER BY updated_at DESC LIMIT %(limit)s)
    UNION ALL
    (SELECT 'embedding', 'episode ' || episode_id, embedding_reason, updated_at
     FROM episodes WHERE embedding_status = 'failed' AND NOT stale
     ORDER BY updated_at DESC LIMIT %(limit)s)
    UNION ALL
    (SELECT 'narrative', grain || ' ' || scope_key, narrative_reason, updated_at
     FROM digests WHERE narrative_status = 'failed' AND NOT stale
     ORDER BY updated_at DESC LIMIT %(limit)s)
    UNION ALL
    (SELECT 'description', 'record ' || record_id, reason, analyzed_at
     FROM record_analyses WHERE reason IS NOT NULL
     ORDER BY analyzed_at DESC LIMIT %(limit)s)
) f
ORDER BY at DESC, kind, target LIMIT %(limit)s;

-- name: model_backlog --
-- get_now's line on the model layer: summaries still owed or failed, on whatever
-- days they are (the first and last day with a failure say which).
SELECT count(*) FILTER (WHERE summary_status = 'pending') AS pending,
       count(*) FILTER (WHERE summary_status = 'failed') AS failed,
       min(day_local) FILTER (WHERE summary_status = 'failed') AS first_failed_day,
       max(day_local) FILTER (WHERE summary_status = 'failed') AS last_failed_day,
       (SELECT summary_reason FROM episodes
        WHERE user_id = %(user_id)s AND summary_status = 'failed' AND NOT stale
        ORDER BY updated_at DESC, episode_id DESC LIMIT 1) AS last_reason
FROM episodes
WHERE user_id = %(user_id)s AND closed AND NOT stale
  AND summary_status IN ('pending', 'failed');
