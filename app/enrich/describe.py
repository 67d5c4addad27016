"""Frame descriptions (L1) from screenshots, when a vision model is configured.

Screenshots are read only from the screenshot directory (a `screenshot_ref`
that points elsewhere, or at a URL, is never fetched: a capture client must not
be able to make the server read arbitrary files or hosts).
"""

from __future__ import annotations

import mimetypes
from pathlib import Path

from app.enrich.answers import DescriptionAnswer
from app.enrich.client import ModelClient, ModelOutputError
from app.enrich.failures import failure_of
from app.enrich.prompts import DESCRIBE_PROMPT
from app.settings import Settings
from app.store.model import ModelStore
from app.text import fts_document

MAX_IMAGE_BYTES = 8 * 1024 * 1024


def screenshot_path(ref: str, *, settings: Settings) -> Path | None:
    root = (settings.screenshot_dir or settings.data_dir / "screenshots").resolve()
    if "://" in ref:
        return None
    path = (root / ref).resolve()
    return path if path.is_relative_to(root) else None


def describe_record(
    store: ModelStore, models: ModelClient, *, user_id: int, record_id: int, settings: Settings
) -> str:
    """Describe one record's screenshot; 'done', 'unavailable' or 'skipped'."""
    record = store.record_for_description(user_id=user_id, record_id=record_id)
    if record is None:
        return "skipped"
    path = screenshot_path(record.screenshot_ref, settings=settings)
    image = (
        path.read_bytes()
        if path and path.is_file() and path.stat().st_size <= MAX_IMAGE_BYTES
        else None
    )

    def nothing(model: str, *, reason: str | None = None, raw: str | None = None) -> None:
        # An empty analysis marks the record as handled, so no sweep asks again.
        store.save_record_analysis(
            user_id=user_id,
            record_id=record_id,
            description=None,
            category=None,
            confidence=None,
            cues=[],
            model=model,
            fts_text="",
            reason=reason,
            raw=raw,
        )

    if image is None or path is None:
        nothing("unavailable:screenshot")
        return "unavailable"
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    context = f"App: {record.app}. Window title: {record.window_title}."
    try:
        answer = models.describe_image(
            image=image,
            mime=mime,
            prompt=f"{DESCRIBE_PROMPT}\n{context}",
            answer=DescriptionAnswer,
        )
    except ModelOutputError as exc:
        reason, raw = failure_of(exc, what=f"description of record {record_id}")
        nothing("failed:" + settings.vision_model, reason=reason, raw=raw)
        return "failed"
    store.save_record_analysis(
        user_id=user_id,
        record_id=record_id,
        description=answer.description,
        category=answer.category,
        confidence=answer.confidence,
        cues=list(answer.cues),
        model=settings.vision_model,
        fts_text=fts_document(answer.description, " ".join(answer.cues)),
    )
    return "done"
