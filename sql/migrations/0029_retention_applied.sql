-- 0029: how far each retention tier has been carried out, beside how far it was decided.
--
-- The job saves a user's new expiry first (ingest drops records before it from that
-- commit on), then drops months and deletes rows. A job killed in between left the
-- expiry saved and the work undone, and the retry saw nothing to do. Now the retry
-- finishes it: records, analyses, the door's events, marks and notes go by the saved
-- expiry whatever is left of them, and what goes by a span rather than by what is left
-- (conversation turns and digest titles over newly expired time, the text of episodes
-- of newly expired days) runs from these columns, which the user's row deletion moves
-- up to the expiry in its own transaction.
--
-- * `raw_applied_before`: every conversation turn, note and digest title over raw before
--   it is gone (NULL: none is known to be).
-- * `episodes_applied_day`: every episode of a day before it has lost its text.
--
-- Rows saved before this migration start at NULL: their next run goes over their whole
-- expired span once (stripping text already stripped changes nothing), so that a job
-- killed before this migration is finished too.
ALTER TABLE retention
    ADD COLUMN raw_applied_before   timestamptz,
    ADD COLUMN episodes_applied_day date;
