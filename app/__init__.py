"""TimeTrace: a self-hosted activity memory built as a write-time pyramid in PostgreSQL."""

from __future__ import annotations

__version__ = "0.1.0"
