-- 0004: the deterministic title stays beside the model's. Digest metrics group by
-- it, so a summary arriving later never changes a number (top titles included).
ALTER TABLE episodes ADD COLUMN auto_title text NOT NULL DEFAULT '';
UPDATE episodes SET auto_title = title;
