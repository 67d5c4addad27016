-- Records partitioned by month on ts_start, with two index entries per row.
--
-- * `records` becomes a declaratively partitioned table, one partition a calendar month
--   in UTC (records_YYYY_MM), made on demand by `timetrace_ensure_month` (ingest and
--   import call it for a batch's months; the hourly maintenance job makes the next
--   month ahead). There is no DEFAULT partition: attaching a month later would fail
--   once the default held rows of that range.
-- * Its keys include the partition key: the primary key is (user_id, record_id,
--   ts_start), and the idempotency key is the timeline itself,
--   records_timeline (user_id, device_id, ts_start, client_record_id COLLATE "C"):
--   an exact replay changes nothing, a re-send of a key with another start is a new
--   record. The timeline index already served every device-ordered read.
-- * Gone: records_device_ts (now records_timeline), the key on (device,
--   client_record_id), records_user_ts, records_user_day, records_tombstones, and the
--   foreign key to devices (one check per row on every insert; ingest checks the device
--   once per batch instead, as 0015 did for users).
-- * record_ids come from a plain sequence: identity columns on partitioned tables need
--   PostgreSQL 17.
-- * `devices.has_tombstones`: a replay is checked against tombstones only on a device
--   that has one (a probe of records_timeline at the record's own start).

-- Views over records are bound to the table, not its name: keep their text, drop them,
-- and make them again over the new table (oldest first: a view may read an older one).
CREATE TEMP TABLE migration_views ON COMMIT DROP AS
WITH RECURSIVE over_records(oid) AS (
    SELECT r.ev_class FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
    WHERE d.classid = 'pg_rewrite'::regclass AND d.refobjid = 'records'::regclass
      AND r.ev_class <> 'records'::regclass
    UNION
    SELECT r.ev_class FROM over_records o
    JOIN pg_depend d ON d.refobjid = o.oid AND d.classid = 'pg_rewrite'::regclass
    JOIN pg_rewrite r ON r.oid = d.objid
    WHERE r.ev_class <> o.oid
)
SELECT c.oid, c.relname, pg_get_viewdef(c.oid) AS body
FROM pg_class c WHERE c.oid IN (SELECT oid FROM over_records) AND c.relkind = 'v';

DO $$
DECLARE v record;
BEGIN
    FOR v IN SELECT relname FROM migration_views ORDER BY oid DESC LOOP
        EXECUTE format('DROP VIEW IF EXISTS %I', v.relname);
    END LOOP;
END $$;

-- What links records to episodes, where the schema still has records.episode_id (0019
-- drops it): made again on the new table, as it was.
CREATE TEMP TABLE migration_episode_links ON COMMIT DROP AS
SELECT 1 AS step, pg_get_indexdef(i.indexrelid) AS ddl
FROM pg_index i
WHERE i.indrelid = 'records'::regclass AND pg_get_indexdef(i.indexrelid) LIKE '%episode_id%'
UNION ALL
SELECT 2, format('ALTER TABLE records ADD CONSTRAINT %I %s', conname, pg_get_constraintdef(oid))
FROM pg_constraint
WHERE conrelid = 'records'::regclass AND contype = 'f' AND confrelid = 'episodes'::regclass;

ALTER TABLE record_analyses DROP CONSTRAINT record_analyses_user_id_record_id_fkey;
ALTER TABLE records RENAME TO records_unpartitioned;
ALTER TABLE records_unpartitioned DROP CONSTRAINT records_pkey;
DROP INDEX IF EXISTS records_device_ts, records_user_ts, records_user_day, records_tombstones,
    records_deleted_at, records_episode, records_unassigned, records_unassigned_day;

CREATE SEQUENCE record_ids AS bigint;
CREATE TABLE records (LIKE records_unpartitioned INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
    PARTITION BY RANGE (ts_start);
ALTER TABLE records ALTER record_id SET DEFAULT nextval('record_ids'),
    ADD PRIMARY KEY (user_id, record_id, ts_start);
CREATE UNIQUE INDEX records_timeline
    ON records (user_id, device_id, ts_start, client_record_id COLLATE "C");
CREATE INDEX records_deleted_at ON records (user_id, deleted_at) WHERE deleted_at IS NOT NULL;

-- A month's partition, made when first needed. Created apart and then attached: ATTACH
-- takes a lock that lets concurrent reads and inserts of records go on, where CREATE
-- TABLE ... PARTITION OF would wait for them and stop every later one meanwhile.
CREATE FUNCTION timetrace_ensure_month(p_day date) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
    first date := date_trunc('month', p_day)::date;
    part text := 'records_' || to_char(first, 'YYYY_MM');
    lo timestamptz := first::timestamp AT TIME ZONE 'UTC';
    hi timestamptz := (first + 1 * interval '1 month')::timestamp AT TIME ZONE 'UTC';
BEGIN
    IF to_regclass(part) IS NOT NULL THEN
        RETURN false;
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('timetrace-records-month', 0));
    -- Made meanwhile by another session? Asked of pg_class with this statement's own
    -- snapshot: the name cache need not have heard of that commit yet.
    IF EXISTS (SELECT 1 FROM pg_class c JOIN pg_class r ON r.relnamespace = c.relnamespace
               WHERE c.relname = part AND r.oid = 'records'::regclass) THEN
        RETURN false;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE records INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', part);
    EXECUTE format('ALTER TABLE records ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
                   part, lo, hi);
    -- Insert-only months: let autovacuum freeze and mark them visible as they fill.
    EXECUTE format('ALTER TABLE %I SET (autovacuum_vacuum_insert_scale_factor = 0.05)', part);
    RETURN true;
END $$;

SELECT timetrace_ensure_month(m)
FROM (SELECT DISTINCT date_trunc('month', ts_start AT TIME ZONE 'UTC')::date AS m
      FROM records_unpartitioned) AS months;

-- Timeline order: each partition's indexes are built compact.
INSERT INTO records SELECT * FROM records_unpartitioned
ORDER BY user_id, device_id, ts_start, client_record_id COLLATE "C";
SELECT setval('record_ids', (SELECT COALESCE(max(record_id), 0) + 1 FROM records), false);

DO $$
DECLARE l record;
BEGIN
    FOR l IN SELECT ddl FROM migration_episode_links ORDER BY step LOOP
        EXECUTE l.ddl;
    END LOOP;
END $$;

-- A record's analysis points at its record by the full key.
ALTER TABLE record_analyses ADD COLUMN ts_start timestamptz;
UPDATE record_analyses a SET ts_start = r.ts_start
FROM records_unpartitioned r WHERE r.user_id = a.user_id AND r.record_id = a.record_id;
DELETE FROM record_analyses WHERE ts_start IS NULL;  -- none: the foreign key held
ALTER TABLE record_analyses ALTER ts_start SET NOT NULL,
    ADD FOREIGN KEY (user_id, record_id, ts_start) REFERENCES records ON DELETE CASCADE;
-- An analysis written by record id alone (the model's) takes its record's start.
CREATE FUNCTION timetrace_analysis_start() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.ts_start IS NULL THEN
        SELECT r.ts_start INTO NEW.ts_start FROM records r
        WHERE r.user_id = NEW.user_id AND r.record_id = NEW.record_id;
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER record_analyses_start BEFORE INSERT ON record_analyses
    FOR EACH ROW EXECUTE FUNCTION timetrace_analysis_start();

DROP TABLE records_unpartitioned;
ALTER SEQUENCE record_ids RENAME TO records_record_id_seq;
ALTER SEQUENCE records_record_id_seq OWNED BY records.record_id;

ALTER TABLE devices ADD COLUMN has_tombstones boolean NOT NULL DEFAULT false;
UPDATE devices d SET has_tombstones = true
WHERE EXISTS (SELECT 1 FROM records r WHERE r.user_id = d.user_id AND r.device_id = d.device_id
                AND r.deleted_at IS NOT NULL);

DO $$
DECLARE v record;
BEGIN
    FOR v IN SELECT relname, body FROM migration_views ORDER BY oid LOOP
        EXECUTE format('CREATE VIEW %I AS %s', v.relname, v.body);
    END LOOP;
END $$;
