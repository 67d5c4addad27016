"""The write path of L0: batches of records validated, passed through the privacy
and category rules, and stored idempotently. HTTP and the importers share it."""
