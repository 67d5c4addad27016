-- 0010: conversations with the agent, continued by id; a user sees only their own.
-- A turn keeps the question, the answer and what was read to give it (tool names,
-- arguments, sizes), never the tool results: captured text stays in the pyramid,
-- where deletion reaches it. Deleting a conversation deletes its turns.

CREATE TABLE conversations (
    user_id         bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    conversation_id bigint GENERATED ALWAYS AS IDENTITY,
    title           text NOT NULL DEFAULT '',
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, conversation_id)
);
CREATE INDEX conversations_recent ON conversations (user_id, updated_at DESC);

CREATE TABLE conversation_turns (
    user_id         bigint NOT NULL,
    conversation_id bigint NOT NULL,
    turn_no         integer NOT NULL CHECK (turn_no >= 1),
    question        text NOT NULL,
    answer          text NOT NULL DEFAULT '',
    status          text NOT NULL CHECK (status IN ('done', 'cancelled')),
    mode            text NOT NULL CHECK (mode IN ('agent', 'offline')),
    steps           jsonb NOT NULL DEFAULT '[]',
    episode_ids     jsonb NOT NULL DEFAULT '[]',
    tool_tokens     integer NOT NULL DEFAULT 0 CHECK (tool_tokens >= 0),
    model_calls     integer NOT NULL DEFAULT 0 CHECK (model_calls >= 0),
    elapsed_ms      integer NOT NULL DEFAULT 0 CHECK (elapsed_ms >= 0),
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, conversation_id, turn_no),
    FOREIGN KEY (user_id, conversation_id) REFERENCES conversations ON DELETE CASCADE
);
