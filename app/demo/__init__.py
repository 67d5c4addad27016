"""Sample activity with exact ground truth, and `timetrace demo` built on it."""
