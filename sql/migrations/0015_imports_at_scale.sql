-- 0015: bulk imports (a year of ActivityWatch history) without per-row waste.
-- records -> users was checked for every inserted row, yet (user_id, device_id) ->
-- devices already requires the user, and deleting a user still cascades through devices.
ALTER TABLE records DROP CONSTRAINT records_user_id_fkey;
-- A new key is looked up among the deleted records' tombstones only (a replay must not
-- bring a deleted record back): without this index each batch hashed every key of the
-- device, so an import slowed down as it went.
CREATE INDEX records_tombstones ON records (user_id, device_id, client_record_id)
    WHERE deleted_at IS NOT NULL;
