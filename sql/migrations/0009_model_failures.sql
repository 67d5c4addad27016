-- 0009: the model layer says why. Every failed summary, narrative, description and
-- embedding keeps a short reason and the model's raw answer (truncated) on the row
-- it is about, so deleting or rebuilding the row takes them with it. Embeddings get
-- their own status: a failed embedding never undoes the summary it follows.
ALTER TABLE episodes
    ADD COLUMN summary_reason   text,
    ADD COLUMN summary_raw      text,
    ADD COLUMN embedding_status text NOT NULL DEFAULT 'pending'
                                CHECK (embedding_status IN ('pending', 'done', 'failed')),
    ADD COLUMN embedding_reason text;
UPDATE episodes SET embedding_status = 'done' WHERE summary_embedding IS NOT NULL;

ALTER TABLE digests
    ADD COLUMN narrative_reason text,
    ADD COLUMN narrative_raw    text;

ALTER TABLE record_analyses
    ADD COLUMN reason     text,
    ADD COLUMN raw_answer text;

