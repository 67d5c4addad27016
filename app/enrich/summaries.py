"""Episode summaries: one model call per non-idle episode, grounded in its members.

    outcome = summarize_episode(store, models, user_id=1, episode_id=42, settings=settings)

An episode is summarised once: the call happens only while its status is
`pending`, and the row is written only if it still is. The model's answer is
checked against the members: the category it names must be one of theirs, and
no app of the same day that is not in the episode may appear in its title or
summary. One corrected retry (the client's, for any problem: shape or
grounding); after that the deterministic title stays and the episode is marked
`failed`. Cues are kept only when the members' text shows them, so a
hallucinated `git reset --hard` cannot become a signal. An episode no rule
categorised takes the summary's category (source `model`; numbers never read it).
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.enrich.answers import SummaryAnswer
from app.enrich.client import ModelClient, ModelOutputError, ModelUnavailable
from app.enrich.prompts import SUMMARY_SYSTEM, TITLE_MAX
from app.settings import Settings
from app.store import EpisodeForSummary, Store, SummaryMember
from app.text import estimate_tokens, fts_document, language_of

log = logging.getLogger("timetrace.summaries")
DESCRIPTION_MAX = 300
# Categories a summary may give an uncategorized episode ("system" would move numbers).
MODEL_FILLS = frozenset({"work", "study", "social", "entertainment"})
TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Line:
    ts: datetime
    seconds: float
    app: str
    text: str
    repeats: int = 1


def member_lines(members: Sequence[SummaryMember]) -> list[Line]:
    """One line per change on screen: consecutive identical titles collapse into one."""
    lines: list[Line] = []
    for m in members:
        if m.is_idle:
            text = "(idle / locked)"
        else:
            # Raw titles: "— 2 failed" is noise for grouping but evidence for cues.
            title = m.window_title[:TITLE_CHARS] or "(no title)"
            site = f" ({m.domain})" if m.domain else ""
            text = f"{title}{site}"
            if m.description:
                text += f" ⟶ {m.description[:DESCRIPTION_MAX]}"
        seconds = m.duration_s
        if lines and lines[-1].app == m.app and lines[-1].text == text:
            last = lines[-1]
            lines[-1] = Line(last.ts, last.seconds + seconds, last.app, last.text, last.repeats + 1)
        else:
            lines.append(Line(m.ts_start, seconds, m.app, text))
    return lines


def render_lines(lines: Sequence[Line], *, budget: int) -> str:
    """The activity log, cut to `budget` tokens by keeping evenly spread lines."""
    rendered = [
        f"{line.ts:%H:%M:%S} {line.seconds:>5.0f}s {line.app} — {line.text}"
        + (f" (×{line.repeats})" if line.repeats > 1 else "")
        for line in lines
    ]
    total = sum(estimate_tokens(r) for r in rendered)
    if total <= budget or len(rendered) < 3:
        return "\n".join(rendered)
    keep = max(2, int(len(rendered) * budget / total))
    step = (len(rendered) - 1) / (keep - 1)
    picked = sorted({round(i * step) for i in range(keep)})
    return (
        "\n".join(rendered[i] for i in picked)
        + f"\n(… {len(rendered) - len(picked)} lines left out)"
    )


def episode_prompt(ep: EpisodeForSummary, *, budget: int) -> tuple[list[dict[str, Any]], str]:
    lines = member_lines(ep.members)
    log_text = render_lines(lines, budget=budget)
    language = language_of(log_text)
    minutes = round((ep.ts_end - ep.ts_start).total_seconds() / 60)
    apps = ", ".join(sorted({m.app for m in ep.members if m.app}))
    header = (
        f"Episode {ep.ts_start:%Y-%m-%d %H:%M}–{ep.ts_end:%H:%M} UTC ({minutes} min) on "
        f"{ep.device_id}. Category by time: {ep.category}. Apps: {apps}."
    )
    messages = [
        {"role": "system", "content": SUMMARY_SYSTEM[language]},
        {"role": "user", "content": f"{header}\n\nACTIVITY LOG\n{log_text}"},
    ]
    return messages, language


def grounding_problems(answer: SummaryAnswer, ep: EpisodeForSummary) -> list[str]:
    """What in the answer the episode's own log does not support (empty: grounded)."""
    categories = {m.category for m in ep.members if not m.is_idle} | {ep.category}
    problems = []
    # What no rule categorised, the model may name.
    if answer.category not in categories and ep.category != "uncategorized":
        problems.append(f"category {answer.category!r} is not among {sorted(categories)}")
    own = {m.app.lower() for m in ep.members}
    text = f"{answer.title} {answer.summary}".lower()
    strangers = sorted(
        a
        for a in ep.day_apps
        if len(a) >= 3
        and a.lower() not in own
        # "Visual Studio" is named whenever its own "Visual Studio Code" is.
        and not any(a.lower() in mine for mine in own)
        and re.search(rf"(?<!\w){re.escape(a.lower())}(?!\w)", text)
    )
    if strangers:
        problems.append(f"it names apps that are not in this episode: {strangers}")
    return problems


def literal_cues(cues: Sequence[str], ep: EpisodeForSummary) -> list[str]:
    """Cues the members' own text shows (case-insensitive); the rest are dropped."""
    seen = " ".join(f"{m.window_title} {m.description or ''}" for m in ep.members).lower()
    out: list[str] = []
    for cue in cues:
        cue = cue.strip()
        if cue and cue.lower() in seen and cue not in out:
            out.append(cue)
    return out


def summarize_episode(
    store: Store, models: ModelClient, *, user_id: int, episode_id: int, settings: Settings
) -> str:
    """Summarise a pending episode; returns what happened ('done', 'failed', 'skipped')."""
    ep = store.episode_for_summary(user_id=user_id, episode_id=episode_id)
    if ep is None or ep.summary_status != "pending":
        return "skipped"  # already summarised, idle, or rebuilt since the job was queued
    messages, _ = episode_prompt(ep, budget=settings.summary_input_tokens)
    answer: SummaryAnswer | None = None
    try:
        answer = models.chat_answer(
            messages=messages,
            answer=SummaryAnswer,
            check=lambda candidate: grounding_problems(candidate, ep),
            fix="Use only the apps and categories of this episode's log.",
            max_tokens=700,
        )
    except ModelOutputError as exc:
        log.warning("episode %s: unusable model output: %s", episode_id, exc.message)
    if answer is None:
        store.save_episode_summary(
            user_id=user_id,
            episode_id=episode_id,
            title=ep.title,
            summary=None,
            tags=[],
            cues=[],
            status="failed",
            embedding=None,
            fts_text=fts_document(ep.title),
        )
        return "failed"
    title = answer.title.strip()[:TITLE_MAX] or ep.title
    summary = answer.summary.strip()
    embedding = None
    if models.available("embedding"):
        with contextlib.suppress(ModelUnavailable):  # the sweep embeds it later
            embedding = models.embed([f"{title}\n{summary}"])[0]
    store.save_episode_summary(
        user_id=user_id,
        episode_id=episode_id,
        title=title,
        summary=summary,
        tags=[t.strip() for t in answer.tags if t.strip()][:8],
        cues=literal_cues(answer.cues, ep),
        status="done",
        embedding=embedding,
        fts_text=fts_document(title, summary, ep.primary_app),
    )
    if ep.category == "uncategorized" and answer.category in MODEL_FILLS:
        store.fill_episode_category(
            user_id=user_id, episode_id=episode_id, category=answer.category
        )
    return "done"


def embed_episode(store: Store, models: ModelClient, *, user_id: int, episode_id: int) -> bool:
    text = store.episode_text_for_embedding(user_id=user_id, episode_id=episode_id)
    if text is None:
        return False
    store.save_episode_embedding(
        user_id=user_id, episode_id=episode_id, embedding=models.embed([text])[0]
    )
    return True
