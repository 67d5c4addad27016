"""Digest narratives: a day from its episode summaries, a week or month from its
days' narratives. Numbers come from SQL: every number with a unit (hours,
minutes, times, episodes, percent) in a narrative must match the digest's
metrics; otherwise the model gets one corrected retry (the client's), and then
the sentences with wrong numbers are dropped.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from datetime import date
from typing import Any

from app.enrich.answers import NarrativeAnswer
from app.enrich.client import AnswerRejected, ModelClient, ModelOutputError
from app.enrich.prompts import NARRATIVE_SYSTEM, PERIOD_NAMES
from app.store import Store
from app.text import estimate_tokens, language_of

log = logging.getLogger("timetrace.narratives")
INPUT_BUDGET = 12_000

_NUMBER = re.compile(
    r"(\d+(?:\.\d+)?)\s*"
    r"(个小时|小时|hours?|hrs?|h\b|分钟|minutes?|mins?|次|个 ?episodes?|episodes?|段|%)",
    re.IGNORECASE,
)
# A sentence ends at 。！？!? or at a full stop followed by a space (not inside 5.2).
_SENTENCE = re.compile(r"(?<=[。！？!?])\s*|(?<=\.)\s+")


def metrics_block(metrics: dict[str, Any]) -> str:
    """The numbers a narrative may use, written as it should write them."""
    hours = {c: round(s / 3600, 1) for c, s in metrics.get("seconds_by_category", {}).items() if s}
    lines = [
        f"hours by category: {json.dumps(hours, ensure_ascii=False)}",
        f"active hours: {round(metrics.get('active_seconds', 0) / 3600, 1)}",
        f"episodes: {metrics.get('episode_count', 0)}",
        f"focus minutes: {round(metrics.get('focus_minutes', 0))}",
        f"distraction minutes: {round(metrics.get('distraction_minutes', 0))}",
        f"late-night minutes: {round(metrics.get('late_night_minutes', 0))}",
        f"signals: {json.dumps(metrics.get('signal_counts', {}))}",
    ]
    return "\n".join(lines)


def allowed_numbers(metrics: dict[str, Any]) -> dict[str, set[float]]:
    seconds = [s for s in metrics.get("seconds_by_category", {}).values() if s]
    total = sum(seconds)
    hours = {round(s / 3600, 1) for s in seconds}
    hours |= {round(metrics.get("active_seconds", 0) / 3600, 1), round(total / 3600, 1)}
    minutes = {
        round(metrics.get(k, 0))
        for k in ("focus_minutes", "distraction_minutes", "late_night_minutes")
    }
    minutes |= {round(s / 60) for s in seconds}
    counts = {
        float(metrics.get("episode_count", 0)),
        *map(float, metrics.get("signal_counts", {}).values()),
    }
    percent = {float(round(100 * s / total)) for s in seconds} if total else set()
    return {
        "hours": hours | {float(round(h)) for h in hours},
        "minutes": {float(m) for m in minutes},
        "counts": counts,
        "percent": percent,
    }


def wrong_numbers(text: str, metrics: dict[str, Any]) -> list[str]:
    allowed = allowed_numbers(metrics)
    wrong = []
    for match in _NUMBER.finditer(text):
        value, unit = float(match.group(1)), match.group(2).lower()
        if unit in ("个小时", "小时", "hour", "hours", "hr", "hrs", "h"):
            ok = any(abs(value - a) < 0.051 for a in allowed["hours"])
        elif unit in ("分钟", "minute", "minutes", "min", "mins"):
            ok = any(abs(value - a) < 1.01 for a in allowed["minutes"])
        elif unit == "%":
            ok = any(abs(value - a) <= 1 for a in allowed["percent"])
        else:
            ok = value in allowed["counts"]
        if not ok:
            wrong.append(match.group(0))
    return wrong


def drop_sentences_with(text: str, wrong: Iterable[str]) -> str:
    bad = list(wrong)
    kept = [s for s in _SENTENCE.split(text) if s and not any(w in s for w in bad)]
    return " ".join(kept).strip() if language_of(text) == "en" else "".join(kept).strip()


def _day_sources(store: Store, user_id: int, day: date) -> tuple[str, list[int]]:
    rows = store.day_episode_summaries(user_id=user_id, day=day)
    lines = []
    for r in rows:
        cues = f" [cues: {', '.join(r.cues)}]" if r.cues else ""
        summary = r.summary or ""
        lines.append(
            f"{r.ts_start:%H:%M}–{r.ts_end:%H:%M} UTC [{r.category}] {r.title}: {summary}{cues}"
        )
    return _fit(lines), [r.episode_id for r in rows]


def _fit(lines: list[str]) -> str:
    while lines and sum(estimate_tokens(line) for line in lines) > INPUT_BUDGET:
        lines = [line[: max(80, len(line) * 3 // 4)] for line in lines]
    return "\n".join(lines)


def write_narrative(
    store: Store, models: ModelClient, *, user_id: int, grain: str, scope_key: str
) -> str:
    """Write the narrative of a finalized digest; returns 'done', 'failed' or 'skipped'."""
    digest = store.get_digest(user_id=user_id, grain=grain, scope_key=scope_key)
    if digest is None or digest.narrative_status != "pending" or not digest.finalized:
        return "skipped"
    metrics: dict[str, Any] = dict(digest.metrics)
    if grain == "day":
        sources, source_ids = _day_sources(store, user_id, date.fromisoformat(scope_key))
    else:
        children = store.child_narratives(user_id=user_id, ids=list(digest.source_ids))
        sources = _fit([f"{c.scope_key}: {c.narrative or '(no narrative)'}" for c in children])
        source_ids = [c.digest_id for c in children]
    language = language_of(sources)
    system = NARRATIVE_SYSTEM[language].format(period=PERIOD_NAMES[language][grain])
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": system},
        {
            "role": "user",
            "content": f"{grain} {scope_key}\n\nMETRICS\n{metrics_block(metrics)}"
            f"\n\nSUMMARIES\n{sources}",
        },
    ]

    def numbers_problems(answer: NarrativeAnswer) -> list[str]:
        wrong = wrong_numbers(answer.narrative.strip(), metrics)
        return [f"these numbers are not in METRICS: {wrong}"] if wrong else []

    try:
        text = models.chat_answer(
            messages=messages,
            answer=NarrativeAnswer,
            check=numbers_problems,
            fix="Rewrite using only numbers copied from METRICS.",
            max_tokens=600,
        ).narrative.strip()
    except AnswerRejected as exc:
        if isinstance(exc.answer, NarrativeAnswer):  # wrong numbers twice: drop those sentences
            last = exc.answer.narrative.strip()
            text = drop_sentences_with(last, wrong_numbers(last, metrics))
        else:
            log.warning("%s %s: unusable narrative: %s", grain, scope_key, exc.message)
            text = ""
    except ModelOutputError as exc:
        log.warning("%s %s: unusable narrative: %s", grain, scope_key, exc.message)
        text = ""
    status = "done" if text else "failed"
    store.save_narrative(
        user_id=user_id,
        digest_id=digest.digest_id,
        narrative=text or None,
        status=status,
        source_ids=source_ids,
        metrics=metrics,
    )
    return status
