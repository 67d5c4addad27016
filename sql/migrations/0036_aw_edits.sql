-- 0036: a count, per user, of the changes to the door's events that the door itself did
-- not make as heartbeats and inserts: deletions (a deleted event, retention's expiry, a
-- privacy deletion) and edits that keep the group number (`changed`): redaction, events
-- set aside. The door answers aw-webui's canonical query from results it keeps in memory
-- per day (app/awdoor/canonical.py); it learns of its own writes in memory, and of these
-- from the count, which it reads before each query: a new count drops what it kept.
-- The door's own group commits always stamp a new `changed`, so the row trigger's WHEN
-- is false for them and their commit writes nothing more.
CREATE TABLE aw_edits (
    user_id bigint PRIMARY KEY REFERENCES users ON DELETE CASCADE,
    edits   bigint NOT NULL
);

CREATE FUNCTION aw_count_deletes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO aw_edits (user_id, edits)
    SELECT DISTINCT user_id, 1 FROM aw_gone
    ON CONFLICT (user_id) DO UPDATE SET edits = aw_edits.edits + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER aw_events_deleted AFTER DELETE ON aw_events
    REFERENCING OLD TABLE AS aw_gone FOR EACH STATEMENT EXECUTE FUNCTION aw_count_deletes();

CREATE FUNCTION aw_count_edit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO aw_edits (user_id, edits) VALUES (NEW.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET edits = aw_edits.edits + 1;
    RETURN NULL;
END $$;

CREATE TRIGGER aw_events_edited AFTER UPDATE ON aw_events
    FOR EACH ROW WHEN (OLD.changed IS NOT DISTINCT FROM NEW.changed)
    EXECUTE FUNCTION aw_count_edit();
