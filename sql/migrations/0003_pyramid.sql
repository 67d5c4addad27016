-- 0003: what the episode builder and rollups need.

-- The duration rule as a function, and v_record_durations over it, stood here until
-- 0007 and 0019 replaced them; they are made there (docs/architecture.md, "Migrations").

-- Per-episode breakdowns, so that day metrics are sums over episodes and still
-- exact per record category (an interruption counts as entertainment).
ALTER TABLE episodes
    ADD COLUMN category_seconds jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN app_seconds      jsonb NOT NULL DEFAULT '{}',
    ADD COLUMN switch_count     integer NOT NULL DEFAULT 0 CHECK (switch_count >= 0),
    ADD COLUMN interruption_s   double precision NOT NULL DEFAULT 0 CHECK (interruption_s >= 0),
    ADD COLUMN boundary         text NOT NULL DEFAULT '';

-- The builder's work list: live records not yet in an episode.
CREATE INDEX records_unassigned ON records (user_id, device_id, day_local)
    WHERE episode_id IS NULL AND deleted_at IS NULL;
CREATE INDEX episodes_device_day ON episodes (user_id, device_id, day_local);
CREATE INDEX digests_unfinalized ON digests (user_id, grain, period_end) WHERE NOT finalized;
