-- 0025: the door's heartbeats no longer mark their buckets in the database. The door
-- keeps "written since" marks in memory and its conversion pass takes them; what a
-- crash leaves unconverted is found from `aw_events.changed` (the number of the group
-- commit that last wrote the event, increasing) above `aw_converted.through` (up to
-- which every write has been converted). A heartbeat's commit thus writes aw_events
-- alone and never a row the conversion writes (their row locks used to deadlock).
ALTER TABLE aw_events ADD COLUMN changed bigint NOT NULL DEFAULT 0;
-- Read once, at a door's start: the recent pages. BRIN keeps updates HOT (a summarizing
-- index), which a b-tree on a column every heartbeat changes would not.
CREATE INDEX aw_events_by_change ON aw_events USING brin (changed);

CREATE TABLE aw_converted (
    user_id bigint PRIMARY KEY REFERENCES users ON DELETE CASCADE,
    through bigint NOT NULL
);
