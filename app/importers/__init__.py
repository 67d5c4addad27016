"""Importers: history from other trackers (ActivityWatch, screenpipe) into records."""
