"""Digest narratives: a day from its episode summaries, a week or month from its
days' narratives. Numbers come from SQL: every number with a unit (hours,
minutes, times, episodes, percent; "20.5-hour" and "20.5小时" alike) in a
narrative must match the digest's metrics, and every date it names must fall
inside its period; otherwise the model gets one corrected retry (the
client's), and then the sentences with wrong numbers or dates are dropped. A
narrative is gated like a summary: a scrap (too few words in its language,
mostly punctuation, JSON or template debris, an echoed header) or one that
shares no content word with its sources fails, with the reason and the raw
answer stored.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterable
from datetime import date
from typing import Any, Protocol

from app.enrich import quality
from app.enrich.answers import NarrativeAnswer
from app.enrich.client import AnswerRejected, ModelClient, ModelOutputError
from app.enrich.failures import clip, log_failure, reason_of
from app.enrich.prompts import NARRATIVE_SYSTEM, PERIOD_NAMES
from app.store.model import ModelStore
from app.store.tools import ToolStore
from app.text import estimate_tokens, language_of
from app.timeutil import period_days

log = logging.getLogger("timetrace.models")
INPUT_BUDGET = 12_000
# A sentence ends at 。！？!? or at a full stop followed by a space (not inside 5.2).
_SENTENCE = re.compile(r"(?<=[。！？!?])\s*|(?<=\.)\s+")


class NarrativeStore(ModelStore, ToolStore, Protocol):
    """A narrative reads its digest as the tools do, and writes through the model role."""


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


def allowed_numbers(metrics: dict[str, Any]) -> quality.AllowedNumbers:
    """The numbers a narrative may state: the digest's metrics as METRICS writes them."""
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
    return quality.AllowedNumbers(
        hours=frozenset(hours | {float(round(h)) for h in hours}),
        minutes=frozenset(float(m) for m in minutes),
        counts=frozenset(counts),
        percent=frozenset(percent),
    )


def wrong_facts(text: str, metrics: dict[str, Any], *, grain: str, scope_key: str) -> list[str]:
    """Numbers not in the metrics and dates outside the period, as they are written."""
    first, last = period_days(grain, scope_key)
    return quality.wrong_numbers(text, allowed_numbers(metrics)) + quality.dates_outside(
        text, first=first, last=last
    )


def drop_sentences_with(text: str, wrong: Iterable[str]) -> str:
    bad = list(wrong)
    kept = [s for s in _SENTENCE.split(text) if s and not any(w in s for w in bad)]
    return " ".join(kept).strip() if language_of(text) == "en" else "".join(kept).strip()


def _day_sources(store: ModelStore, user_id: int, day: date) -> tuple[str, list[int], str]:
    """The SUMMARIES block, the episode ids, and what the day was about (its titles
    and summaries, without times and labels) for the overlap gate."""
    rows = store.day_episode_summaries(user_id=user_id, day=day)
    lines = []
    for r in rows:
        cues = f" [cues: {', '.join(r.cues)}]" if r.cues else ""
        summary = r.summary or ""
        lines.append(
            f"{r.ts_start:%H:%M}–{r.ts_end:%H:%M} UTC [{r.category}] {r.title}: {summary}{cues}"
        )
    about = " ".join(f"{r.title} {r.summary or ''}" for r in rows)
    return _fit(lines), [r.episode_id for r in rows], about


def _fit(lines: list[str]) -> str:
    while lines and sum(estimate_tokens(line) for line in lines) > INPUT_BUDGET:
        lines = [line[: max(80, len(line) * 3 // 4)] for line in lines]
    return "\n".join(lines)


def write_narrative(
    store: NarrativeStore, models: ModelClient, *, user_id: int, grain: str, scope_key: str
) -> str:
    """Write the narrative of a finalized digest; returns 'done', 'failed' or 'skipped'."""
    digest = store.get_digest(user_id=user_id, grain=grain, scope_key=scope_key)
    if digest is None or digest.narrative_status != "pending" or not digest.finalized:
        return "skipped"
    metrics: dict[str, Any] = dict(digest.metrics)
    if grain == "day":
        sources, source_ids, about = _day_sources(store, user_id, date.fromisoformat(scope_key))
    else:
        children = store.child_narratives(user_id=user_id, ids=list(digest.source_ids))
        sources = _fit([f"{c.scope_key}: {c.narrative or '(no narrative)'}" for c in children])
        source_ids = [c.digest_id for c in children]
        about = " ".join(c.narrative or "" for c in children)
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

    def unusable(text: str) -> list[str]:
        """What no dropping of sentences can mend."""
        scrap = quality.scrap_problems(text, what="narrative", language=language)
        return scrap or quality.overlap_problems(text, source=about, what="the summaries")

    def problems(answer: NarrativeAnswer) -> list[str]:
        text = answer.narrative.strip()
        wrong = wrong_facts(text, metrics, grain=grain, scope_key=scope_key)
        return [
            *unusable(text),
            *([f"numbers or dates not in METRICS or the period: {wrong}"] if wrong else []),
        ]

    text, reason, raw = "", None, None
    try:
        text = models.chat_answer(
            messages=messages,
            answer=NarrativeAnswer,
            check=problems,
            fix=f"Rewrite about these summaries only, using only numbers copied from METRICS "
            f"and no date outside {grain} {scope_key}.",
            max_tokens=600,
        ).narrative.strip()
    except AnswerRejected as exc:
        last = exc.answer.narrative.strip() if isinstance(exc.answer, NarrativeAnswer) else ""
        if last and not unusable(last):  # only wrong numbers or dates, twice: drop those
            text = drop_sentences_with(
                last, wrong_facts(last, metrics, grain=grain, scope_key=scope_key)
            )
            text = "" if unusable(text) else text  # what is left must still be a narrative
            log.info(
                "narrative of %s %s: sentences with wrong numbers or dates dropped",
                grain,
                scope_key,
            )
        reason, raw = reason_of(exc.problems), exc.raw
    except ModelOutputError as exc:
        reason = reason_of([exc.message])
    status = "done" if text else "failed"
    if status == "failed":
        reason = reason or "the narrative was empty"
        log_failure(f"narrative of {grain} {scope_key}", reason)
    store.save_narrative(
        user_id=user_id,
        digest_id=digest.digest_id,
        narrative=text or None,
        status=status,
        source_ids=source_ids,
        metrics=digest.metrics,
        reason=None if text else reason,
        raw=None if text else clip(raw),
    )
    return status
