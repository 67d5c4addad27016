"""The SQL files, installed as package data of `app.sql` (read through app.db.queries)."""
