-- 0024: the ActivityWatch door (`timetrace aw-door`): buckets, events and settings kept
-- as aw-server keeps them, one user per door. Events are converted into records by the
-- door itself (app/awdoor/live.py); `dirty_from` and `changes` say what is left to do.
CREATE TABLE aw_buckets (
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    bucket_id   text NOT NULL CHECK (length(bucket_id) BETWEEN 1 AND 512),
    name        text,
    type        text NOT NULL,
    client      text NOT NULL,
    hostname    text NOT NULL,
    -- The TimeTrace device its host's records go to: the importer's `device_id_for`,
    -- kept here so that deleting records can reach the events they came from.
    device_id   text NOT NULL GENERATED ALWAYS AS (COALESCE(NULLIF(
        left(btrim(regexp_replace(hostname, '[^A-Za-z0-9._:-]+', '-', 'g'), '-._:'), 64),
        ''), 'activitywatch')) STORED,
    created     timestamptz NOT NULL,
    data        json NOT NULL DEFAULT '{}',
    -- The earliest event start written since the last conversion (NULL: converted), and
    -- a count of writes, so that a conversion clears only what it saw.
    dirty_from  timestamptz,
    changes     bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (user_id, bucket_id)
);

-- An event's id is unique across the door (aw-client deletes and replaces by id); its
-- data is kept as sent (json, not jsonb: key order and numbers come back unchanged).
CREATE SEQUENCE aw_event_ids;

CREATE TABLE aw_events (
    user_id     bigint NOT NULL,
    bucket_id   text NOT NULL,
    event_id    bigint NOT NULL,
    ts          timestamptz NOT NULL,
    duration_us bigint NOT NULL,
    data        json NOT NULL,
    PRIMARY KEY (user_id, bucket_id, event_id),
    FOREIGN KEY (user_id, bucket_id) REFERENCES aw_buckets ON DELETE CASCADE
);
CREATE INDEX aw_events_by_time ON aw_events (user_id, bucket_id, ts);

CREATE TABLE aw_settings (
    user_id bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    key     text NOT NULL CHECK (length(key) BETWEEN 1 AND 512),
    value   json NOT NULL,
    PRIMARY KEY (user_id, key)
);
