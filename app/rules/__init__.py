"""Category and privacy rules (data in TOML, code beside it), applied at ingest."""
