-- 0013: imports started over HTTP (POST /api/v1/import/activitywatch): the worker
-- runs them as jobs and keeps their progress here, where any API process reads it.
CREATE TABLE imports (
    user_id    bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    import_id  bigint GENERATED ALWAYS AS IDENTITY,
    source     text NOT NULL,
    status     text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    stage      text NOT NULL DEFAULT '',
    done       bigint NOT NULL DEFAULT 0,
    total      bigint,
    events     bigint NOT NULL DEFAULT 0,
    new        bigint NOT NULL DEFAULT 0,
    duplicate  bigint NOT NULL DEFAULT 0,
    excluded   bigint NOT NULL DEFAULT 0,
    redacted   bigint NOT NULL DEFAULT 0,
    error      text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, import_id)
);
