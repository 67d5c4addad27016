-- 0030: a door event the conversion cannot use (a time outside what records accept, a
-- duration past the bound, data it cannot read) is set aside with its reason instead of
-- stopping its host's conversion: `set_aside` says why (NULL: in use). The conversion's
-- reads skip such events; `timetrace status` and /healthz count them by reason.
ALTER TABLE aw_events ADD COLUMN set_aside text CHECK (length(set_aside) <= 200);
CREATE INDEX aw_events_set_aside ON aw_events (user_id) WHERE set_aside IS NOT NULL;
