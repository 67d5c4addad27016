-- Conversations with the agent.

-- name: create_conversation --
INSERT INTO conversations (user_id, title) VALUES (%(user_id)s, %(title)s)
RETURNING conversation_id;

-- name: get_conversation --
SELECT c.conversation_id, c.title, c.created_at, c.updated_at,
       (SELECT count(*) FROM conversation_turns t
        WHERE t.user_id = c.user_id AND t.conversation_id = c.conversation_id)::int AS turns
FROM conversations c
WHERE c.user_id = %(user_id)s AND c.conversation_id = %(conversation_id)s;

-- name: list_conversations --
SELECT c.conversation_id, c.title, c.created_at, c.updated_at,
       (SELECT count(*) FROM conversation_turns t
        WHERE t.user_id = c.user_id AND t.conversation_id = c.conversation_id)::int AS turns
FROM conversations c
WHERE c.user_id = %(user_id)s
ORDER BY c.updated_at DESC, c.conversation_id DESC
LIMIT %(limit)s;

-- name: conversation_turns --
SELECT turn_no, question, answer, status, mode, steps, episode_ids, tool_tokens, model_calls,
       elapsed_ms, created_at
FROM conversation_turns
WHERE user_id = %(user_id)s AND conversation_id = %(conversation_id)s
ORDER BY turn_no;

-- name: add_conversation_turn --
-- Updating the conversation first locks it: turns of one conversation are numbered in order.
-- A turn whose reach holds a record deleted since it started reading is not kept: it may
-- quote what the deletion erased (run under `lock_records_shared`, so a deletion either
-- commits first and is seen here, or comes after and drops the turn itself).
WITH conv AS (
    UPDATE conversations SET updated_at = now()
    WHERE user_id = %(user_id)s AND conversation_id = %(conversation_id)s
    RETURNING user_id, conversation_id
)
INSERT INTO conversation_turns (user_id, conversation_id, turn_no, question, answer, status,
                                mode, steps, episode_ids, tool_tokens, model_calls, elapsed_ms,
                                reach)
SELECT conv.user_id, conv.conversation_id,
       (SELECT coalesce(max(t.turn_no), 0) + 1 FROM conversation_turns t
        WHERE t.user_id = conv.user_id AND t.conversation_id = conv.conversation_id),
       %(question)s, %(answer)s, %(status)s, %(mode)s, %(steps)s, %(episode_ids)s,
       %(tool_tokens)s, %(model_calls)s, %(elapsed_ms)s, %(reach)s::tstzrange
FROM conv
WHERE %(started_at)s::timestamptz IS NULL OR NOT EXISTS (
    SELECT 1 FROM records r
    WHERE r.user_id = conv.user_id AND r.deleted_at >= %(started_at)s::timestamptz
      AND (%(reach)s::tstzrange IS NULL OR %(reach)s::tstzrange @> r.ts_start))
RETURNING turn_no;

-- name: delete_conversation --
DELETE FROM conversations
WHERE user_id = %(user_id)s AND conversation_id = %(conversation_id)s
RETURNING conversation_id;
