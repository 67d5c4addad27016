-- 0028: stable episode ids, and cards without a model.
--
-- A rebuilt device-day (a re-label, a late record, a deletion) deletes its episodes and
-- saves them again. Each deleted episode leaves its id here with its first position:
-- a new episode starting there takes the id back (the row here goes); an id no new
-- episode takes stays here, and the episode that now covers its first position is
-- where its time went (`episode_moved`). Only positions are kept, never text; the key
-- of a deleted record is not kept either (NULL), so deleted time has no cover.
CREATE TABLE episode_redirects (
    user_id     bigint NOT NULL REFERENCES users ON DELETE CASCADE,
    episode_id  bigint NOT NULL,
    device_id   text NOT NULL,
    day_local   date NOT NULL,
    ts_start    timestamptz NOT NULL,
    first_key   text,
    gone_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, episode_id)
);
CREATE INDEX episode_redirects_day ON episode_redirects (user_id, device_id, day_local);

-- Who wrote an episode's summary: its own records, by rule, while no model has
-- (`rules`), or a model (`model`); NULL: none yet. A model's summary replaces a rule's.
ALTER TABLE episodes ADD COLUMN summary_by text CHECK (summary_by IN ('rules', 'model'));
UPDATE episodes SET summary_by = 'model' WHERE summary IS NOT NULL;

-- Whether a live record holds this position (one probe of the timeline index; the
-- month is pruned at run time from the constant).
CREATE FUNCTION timetrace_record_live(p_user bigint, p_device text, p_ts timestamptz, p_key text)
RETURNS boolean
LANGUAGE sql STABLE PARALLEL SAFE AS $$
    SELECT p_key IS NOT NULL AND EXISTS (
        SELECT 1 FROM records
        WHERE user_id = p_user AND device_id = p_device AND ts_start = p_ts
          AND client_record_id COLLATE "C" = p_key AND deleted_at IS NULL)
$$;
