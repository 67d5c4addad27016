-- 0018: deletion reaches everything that quotes records.
-- A re-label's note is found by the span of the records it touched (its episode is
-- rebuilt under a new id at once, so the episode id no longer leads to it).
ALTER TABLE labels ADD COLUMN touched tstzrange;
UPDATE labels l SET touched = s.span
FROM (
    SELECT l2.user_id, l2.label_id, tstzrange(min(r.ts_start), max(r.ts_start), '[]') AS span
    FROM labels l2
    JOIN records r ON r.user_id = l2.user_id
     AND ((l2.target_kind = 'record' AND r.record_id = l2.target_id)
          OR (l2.target_kind = 'episode' AND r.episode_id = l2.target_id))
    GROUP BY l2.user_id, l2.label_id
) s
WHERE l.user_id = s.user_id AND l.label_id = s.label_id;

-- The time a conversation turn read (the hull of every time its tool calls and answer
-- name): deleting records in it drops the turn and the turns after it. NULL (turns
-- saved before this migration, or whose reads name no time) reaches everything.
ALTER TABLE conversation_turns ADD COLUMN reach tstzrange;

-- Deletion finds the records it has just tombstoned (deleted_at = now()) among the
-- user's tombstones only.
CREATE INDEX records_deleted_at ON records (user_id, deleted_at) WHERE deleted_at IS NOT NULL;
