-- 0041: timetrace_next_start (0007), a record's successor probed from its own position,
-- is read by nothing: every query that counts seconds reads timetrace_spans_v1 (0032),
-- whose last record's successor is one probe from the window's end, and the few that
-- pair a record with its successor inline do so with a lower bound that prunes months.
DROP FUNCTION IF EXISTS timetrace_next_start(bigint, text, timestamptz, text);
