-- Named queries of the privacy family: what deletion reaches beyond the layers it
-- rebuilds. The records this transaction tombstoned are those with deleted_at = now()
-- (now() is the transaction's start time), read through the tombstone index.

-- name: label_touched --
-- The span of the records a new re-label touched, kept so that deleting any of them
-- later finds the note although the episode has been rebuilt under a new id.
UPDATE labels l SET touched = CASE
    WHEN l.target_kind = 'record' THEN (
        SELECT tstzrange(r.ts_start, r.ts_start, '[]') FROM records r
        WHERE r.user_id = l.user_id AND r.record_id = l.target_id)
    ELSE (  -- the episode's span, straight from its row
        SELECT tstzrange(e.ts_start, e.last_start, '[]') FROM episodes e
        WHERE e.user_id = l.user_id AND e.episode_id = l.target_id)
    END
WHERE l.user_id = %(user_id)s AND l.label_id = %(label_id)s;

-- name: blank_notes_touching_deleted --
-- Deletion: the notes of re-labels whose touched span holds a record deleted now.
UPDATE labels l SET note = ''
WHERE l.user_id = %(user_id)s AND l.note <> '' AND l.touched IS NOT NULL
  AND EXISTS (
    SELECT 1 FROM records r
    WHERE r.user_id = l.user_id AND r.deleted_at = now() AND l.touched @> r.ts_start);

-- name: drop_turns_reaching_deleted --
-- Deletion: a conversation turn whose reach holds a record deleted now goes, with every
-- later turn of its conversation (their answers saw it in their history); a
-- conversation left with no turn goes whole (its title is its first question).
WITH gone AS (
    SELECT ts_start FROM records WHERE user_id = %(user_id)s AND deleted_at = now()
), hit AS (
    SELECT t.conversation_id, min(t.turn_no) AS first_turn
    FROM conversation_turns t
    WHERE t.user_id = %(user_id)s
      AND (t.reach IS NULL OR EXISTS (SELECT 1 FROM gone g WHERE t.reach @> g.ts_start))
    GROUP BY t.conversation_id
), turns AS (
    DELETE FROM conversation_turns t USING hit
    WHERE t.user_id = %(user_id)s AND t.conversation_id = hit.conversation_id
      AND t.turn_no >= hit.first_turn
    RETURNING t.conversation_id
), emptied AS (
    DELETE FROM conversations c USING hit
    WHERE c.user_id = %(user_id)s AND c.conversation_id = hit.conversation_id
      AND hit.first_turn = 1
    RETURNING c.conversation_id
)
SELECT (SELECT count(*) FROM turns)::int AS turns, (SELECT count(*) FROM emptied)::int AS conversations;

-- name: drop_aw_events_reaching_deleted --
-- Deletion: the ActivityWatch door's own events (window, afk, web: titles and URLs)
-- that overlap a record deleted now on their host's device go too, whole, so neither an
-- aw-client read nor a later conversion brings the deleted time back. Events are looked
-- for from a day before each record (the index's bound): window and web events are
-- short, and only an afk event (a status, no text) can be longer.
WITH gone AS (
    SELECT device_id, ts_start, ts_end FROM records
    WHERE user_id = %(user_id)s AND deleted_at = now()
)
DELETE FROM aw_events e
USING aw_buckets b, gone g
WHERE b.user_id = %(user_id)s AND b.device_id = g.device_id
  AND e.user_id = b.user_id AND e.bucket_id = b.bucket_id
  AND e.ts < g.ts_end AND e.ts >= g.ts_start - interval '1 day'
  AND e.ts + GREATEST(e.duration_us, 1) * interval '1 microsecond' > g.ts_start;
