"""Saying why model work failed: a short reason and the raw answer (truncated) are
stored with every failed summary, narrative, description and embedding; the log
gets one INFO line per failure with the reason's kind only (captured text never
goes to the log); `timetrace status` reads it all back.

    reason = reason_of(["wrong language: the episode's text is Chinese, the answer English"])
    reason_kind(reason)      # 'wrong language'
    model_status_lines(store, settings=settings)
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence

from app.enrich.client import AnswerRejected, ModelClient
from app.enrich.parsing import ModelOutputError
from app.settings import Settings
from app.store.model import ModelStore

log = logging.getLogger("timetrace.models")
REASON_MAX = 400
RAW_MAX = 2_000
_KIND_END = re.compile(r"[:;(\[]")


def reason_of(problems: Sequence[str]) -> str:
    """One stored reason from a list of problems."""
    return "; ".join(p.strip() for p in problems if p.strip())[:REASON_MAX] or "no reason given"


def reason_kind(reason: str) -> str:
    """The reason without its details (which may quote captured text): what is
    counted and logged."""
    return _KIND_END.split(reason, maxsplit=1)[0].strip() or reason[:60]


def clip(text: str | None, limit: int = RAW_MAX) -> str | None:
    """A raw answer as stored: at most `limit` characters."""
    if text is None:
        return None
    return text if len(text) <= limit else text[: limit - 1] + "…"


def log_failure(what: str, reason: str) -> None:
    log.info("%s failed: %s", what, reason_kind(reason))


def failure_of(exc: ModelOutputError, *, what: str) -> tuple[str, str | None]:
    """The reason and the raw answer (clipped) to store for a failed call; logged once."""
    rejected = exc if isinstance(exc, AnswerRejected) else None
    reason = reason_of(rejected.problems if rejected else [exc.message])
    log_failure(what, reason)
    return reason, clip(rejected.raw) if rejected else None


def model_status_lines(
    store: ModelStore, *, settings: Settings, models: ModelClient | None = None, failures: int = 5
) -> list[str]:
    """The model layer's part of `timetrace status`: endpoints and the models they
    report serving (or the configured ids, marked as such), work counts, the last
    failures with their reasons."""
    client = models or ModelClient(settings)
    counts = store.model_work_counts()
    lines = [
        f"chat: {client.served_model('chat').describe()}",
        f"embeddings: {client.served_model('embedding').describe()}",
        f"vision: {client.served_model('vision').describe()}",
        f"summaries: {counts.summaries_done} done, {counts.summaries_pending} pending, "
        f"{counts.summaries_failed} failed"
        if client.chat_enabled
        # Without a chat model nothing is pending: every card has its rule-written summary.
        else f"summaries: no model configured ({counts.summaries_by_rules} written by rule)",
        f"embeddings: {counts.embeddings_done} done, {counts.embeddings_pending} pending, "
        f"{counts.embeddings_failed} failed",
        f"narratives: {counts.narratives_done} done, {counts.narratives_pending} pending, "
        f"{counts.narratives_failed} failed",
        f"frame descriptions: {counts.descriptions_failed} failed",
    ]
    last = store.model_failures(limit=failures)
    if last:
        lines.append("last failures:")
        lines += [
            f"  {f.at:%Y-%m-%d %H:%M} {f.kind} {f.target}: {f.reason or 'no reason stored'}"
            for f in last
        ]
    return lines
