-- 0001: the whole memory pyramid (docs/architecture.md).
-- Every table carries user_id and every key starts with it, so the schema can be
-- distributed by tenant. Time order is ts_start, never an id.

CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE schema_meta (
    key   text PRIMARY KEY,
    value text NOT NULL
);
INSERT INTO schema_meta (key, value) VALUES ('embedding_dim', '@EMBEDDING_DIM@');

CREATE TABLE users (
    user_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    time_zone    text NOT NULL,
    day_cut_hour smallint NOT NULL DEFAULT 4 CHECK (day_cut_hour BETWEEN 0 AND 23),
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE devices (
    user_id    bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    device_id  text NOT NULL CHECK (device_id ~ '^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$'),
    name       text NOT NULL DEFAULT '',
    kind       text NOT NULL DEFAULT 'desktop' CHECK (kind IN ('desktop', 'laptop', 'phone', 'tablet', 'other')),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, device_id)
);

-- Tokens are stored as SHA-256 digests; the clear token is shown once at creation.
CREATE TABLE api_tokens (
    user_id    bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    token_id   bigint GENERATED ALWAYS AS IDENTITY,
    token_hash bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
    name       text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    PRIMARY KEY (user_id, token_id)
);

-- L2 comes before L0 only because records reference it.
CREATE TABLE episodes (
    user_id           bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    episode_id        bigint GENERATED ALWAYS AS IDENTITY,
    episode_key       text NOT NULL,               -- device + first member record
    device_id         text NOT NULL,
    ts_start          timestamptz NOT NULL,
    ts_end            timestamptz NOT NULL,
    day_local         date NOT NULL,
    primary_app       text NOT NULL DEFAULT '',
    cluster_key       text NOT NULL DEFAULT '',
    category          text NOT NULL DEFAULT 'uncategorized'
                      CHECK (category IN ('work', 'study', 'social', 'entertainment', 'system', 'uncategorized')),
    title             text NOT NULL DEFAULT '',
    summary           text,
    summary_status    text NOT NULL DEFAULT 'pending'
                      CHECK (summary_status IN ('pending', 'done', 'failed', 'idle')),
    cues              jsonb NOT NULL DEFAULT '[]',
    tags              jsonb NOT NULL DEFAULT '[]',
    interruptions     jsonb NOT NULL DEFAULT '[]',
    frame_count       integer NOT NULL DEFAULT 0 CHECK (frame_count >= 0),
    duration_s        double precision NOT NULL DEFAULT 0 CHECK (duration_s >= 0),
    active_s          double precision NOT NULL DEFAULT 0 CHECK (active_s >= 0),
    closed            boolean NOT NULL DEFAULT false,
    stale             boolean NOT NULL DEFAULT false,
    summary_embedding vector(@EMBEDDING_DIM@),
    fts               tsvector,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, episode_id),
    UNIQUE (user_id, episode_key),
    FOREIGN KEY (user_id, device_id) REFERENCES devices ON DELETE CASCADE,
    CHECK (ts_end >= ts_start)
);
CREATE INDEX episodes_user_ts ON episodes (user_id, ts_start);
CREATE INDEX episodes_user_day ON episodes (user_id, day_local, category);
CREATE INDEX episodes_stale ON episodes (user_id) WHERE stale;
CREATE INDEX episodes_fts ON episodes USING gin (fts);
CREATE INDEX episodes_embedding ON episodes USING hnsw (summary_embedding vector_cosine_ops);

-- L0: one timeline unit. client_record_id makes ingest idempotent per device.
CREATE TABLE records (
    user_id           bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    record_id         bigint GENERATED ALWAYS AS IDENTITY,
    device_id         text NOT NULL,
    client_record_id  text NOT NULL,
    ts_start          timestamptz NOT NULL,
    ts_end            timestamptz,
    day_local         date NOT NULL,
    app               text NOT NULL DEFAULT '',
    window_title      text NOT NULL DEFAULT '',
    url               text,
    domain            text,
    is_idle           boolean NOT NULL DEFAULT false,
    capture_reason    text,
    screenshot_ref    text,
    screenshot_sha256 text CHECK (screenshot_sha256 ~ '^[0-9a-f]{64}$'),
    category          text NOT NULL
                      CHECK (category IN ('work', 'study', 'social', 'entertainment', 'system', 'uncategorized')),
    category_source   text NOT NULL,
    redacted          boolean NOT NULL DEFAULT false,
    episode_id        bigint,
    deleted_at        timestamptz,
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, record_id),
    UNIQUE (user_id, device_id, client_record_id),
    FOREIGN KEY (user_id, device_id) REFERENCES devices ON DELETE CASCADE,
    FOREIGN KEY (user_id, episode_id) REFERENCES episodes ON DELETE SET NULL (episode_id),
    CHECK (ts_end IS NULL OR ts_end >= ts_start)
);
CREATE INDEX records_device_ts ON records (user_id, device_id, ts_start);
CREATE INDEX records_user_ts ON records (user_id, ts_start);
CREATE INDEX records_user_day ON records (user_id, day_local);
CREATE INDEX records_episode ON records (user_id, episode_id) WHERE episode_id IS NOT NULL;

-- L1: what a frame means (VLM description, category, embedding). 1:1 with records.
-- No HNSW here: ~5,000 inserts a day into an HNSW index cost seconds per batch,
-- and episodes are the semantic search surface.
CREATE TABLE record_analyses (
    user_id     bigint NOT NULL,
    record_id   bigint NOT NULL,
    description text,
    category    text CHECK (category IN ('work', 'study', 'social', 'entertainment', 'system', 'uncategorized')),
    confidence  real CHECK (confidence BETWEEN 0 AND 1),
    cues        jsonb NOT NULL DEFAULT '[]',
    model       text,
    embedding   vector(@EMBEDDING_DIM@),
    fts         tsvector,
    analyzed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, record_id),
    FOREIGN KEY (user_id, record_id) REFERENCES records ON DELETE CASCADE
);
CREATE INDEX record_analyses_fts ON record_analyses USING gin (fts);

-- L3/L4: one digest per (grain, scope). Metrics come from SQL, narratives from an LLM.
CREATE TABLE digests (
    user_id             bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    digest_id           bigint GENERATED ALWAYS AS IDENTITY,
    grain               text NOT NULL CHECK (grain IN ('day', 'week', 'month')),
    scope_key           text NOT NULL CHECK (scope_key ~ '^\d{4}-(\d{2}-\d{2}|W\d{2}|\d{2})$'),
    period_start        timestamptz NOT NULL,
    period_end          timestamptz NOT NULL,
    metrics             jsonb NOT NULL DEFAULT '{}',
    narrative           text,
    narrative_status    text NOT NULL DEFAULT 'pending'
                        CHECK (narrative_status IN ('pending', 'done', 'failed', 'skipped')),
    source_ids          jsonb NOT NULL DEFAULT '[]',
    computed_through_ts timestamptz,
    finalized           boolean NOT NULL DEFAULT false,
    stale               boolean NOT NULL DEFAULT false,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, digest_id),
    UNIQUE (user_id, grain, scope_key),
    CHECK (period_end > period_start)
);

-- Detected behaviours, each with the episodes that show it.
CREATE TABLE signals (
    user_id    bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    signal_id  bigint GENERATED ALWAYS AS IDENTITY,
    kind       text NOT NULL CHECK (kind IN ('rework', 'forced_rollback', 'context_switch_storm',
                                             'focus_block', 'distraction', 'late_night', 'idle_gap')),
    scope      text NOT NULL,                       -- the logical day, e.g. 2026-06-02
    signal_key text NOT NULL,                       -- unique within (kind, scope): idempotent upserts
    ts_start   timestamptz NOT NULL,
    ts_end     timestamptz NOT NULL,
    day_local  date NOT NULL,
    severity   real NOT NULL DEFAULT 0 CHECK (severity >= 0),
    metrics    jsonb NOT NULL DEFAULT '{}',
    evidence   jsonb NOT NULL DEFAULT '{}',         -- {"episode_ids": [...], "cues": [...]}
    stale      boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, signal_id),
    UNIQUE (user_id, kind, scope, signal_key),
    CHECK (ts_end >= ts_start)
);
CREATE INDEX signals_user_day ON signals (user_id, day_local, kind);

-- The audit of every re-label (the only write the tools make).
CREATE TABLE labels (
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    label_id    bigint GENERATED ALWAYS AS IDENTITY,
    target_kind text NOT NULL CHECK (target_kind IN ('record', 'episode')),
    target_id   bigint NOT NULL,
    field       text NOT NULL DEFAULT 'category',
    old_value   text,
    new_value   text NOT NULL,
    actor       text NOT NULL DEFAULT '',
    note        text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, label_id)
);
CREATE INDEX labels_target ON labels (user_id, target_kind, target_id);
