"""Episode summaries: one model call per non-idle episode, grounded in its members.

    outcome = summarize_episode(store, models, user_id=1, episode_id=42, settings=settings)

An episode is summarised once: the call happens only while its status is
`pending`, and the row is written only if it still is. Before a summary
replaces anything it passes the gates: the category it names must be one of
the members' (an episode no rule categorised takes the summary's category,
source `model`; numbers never read it), no app of the same day outside the
episode may appear in it, its title must not echo the prompt's example or
header, it must be in the language of the episode's text, share a content word
with its window titles, and state no number the log or the episode's duration
does not show (`app.enrich.quality`). One corrected retry (the client's, for
any problem: shape or gates); after that the deterministic title stays, the
episode is marked `failed` and the reason and raw answer are stored. Cues are
kept only when the members' text shows them, so a hallucinated `git reset
--hard` cannot become a signal. Embeddings are a separate step
(`embed_episode`) with their own status: a failed embedding never undoes a
summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.enrich import quality
from app.enrich.answers import SummaryAnswer
from app.enrich.client import EmbeddingDimensionError, ModelClient, ModelOutputError
from app.enrich.failures import failure_of, log_failure, reason_of
from app.enrich.negotiation import schema_instruction
from app.enrich.prompts import SUMMARY_SYSTEM, TITLE_MAX
from app.settings import Settings
from app.store.model import EpisodeForSummary, ModelStore, SummaryMember
from app.text import Language, estimate_tokens, fts_document, language_of

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


@dataclass(frozen=True, slots=True)
class EpisodePrompt:
    messages: list[dict[str, Any]]
    language: Language
    log: str  # the activity log as the model reads it
    fixed: str  # everything else: instructions, example, header (what a title must not echo)


def episode_prompt(ep: EpisodeForSummary, *, budget: int) -> EpisodePrompt:
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
    # What a title must not echo: the instructions, their example, the header, and the
    # schema (its description is written into the prompt where the server ignores it).
    fixed = f"{SUMMARY_SYSTEM[language]}\n{header}\n{schema_instruction(SummaryAnswer)}"
    return EpisodePrompt(messages, language, log_text, fixed)


def grounding_problems(answer: SummaryAnswer, ep: EpisodeForSummary) -> list[str]:
    """What in the answer the episode's own log does not support (empty: grounded)."""
    categories = {m.category for m in ep.members if not m.is_idle} | {ep.category}
    problems = []
    # What no rule categorised, the model may name.
    if answer.category not in categories and ep.category != "uncategorized":
        problems.append(
            f"category not in this episode: {answer.category!r} is not among {sorted(categories)}"
        )
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


def screen_text(ep: EpisodeForSummary) -> str:
    """What was on screen: window titles, sites and frame descriptions; the app names
    only when those hold no content word (an episode of untitled windows)."""
    shown = " ".join(
        f"{m.window_title} {m.domain or ''} {m.description or ''}"
        for m in ep.members
        if not m.is_idle
    )
    if quality.content_words(shown):
        return shown
    return " ".join(m.app for m in ep.members if not m.is_idle)


def summary_problems(
    answer: SummaryAnswer, ep: EpisodeForSummary, prompt: EpisodePrompt
) -> list[str]:
    """Every gate a summary must pass before it replaces the deterministic title."""
    text = f"{answer.title} {answer.summary}"
    seconds = (ep.ts_end - ep.ts_start).total_seconds()
    allowed = quality.allowed_for_span({"duration": seconds})
    numbers = quality.wrong_numbers(text, allowed, literal=prompt.log)
    return [
        *quality.language_problems(text, expected=prompt.language, source=prompt.log),
        *quality.scrap_problems(answer.title, what="title", language=prompt.language),
        *quality.scrap_problems(answer.summary, what="summary", language=prompt.language),
        *grounding_problems(answer, ep),
        *quality.echo_problems(answer.title, fixed=prompt.fixed, log=prompt.log),
        *quality.overlap_problems(text, source=screen_text(ep), what="the episode's window titles"),
        *([f"numbers not in the log or the episode's duration: {numbers}"] if numbers else []),
    ]


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
    store: ModelStore, models: ModelClient, *, user_id: int, episode_id: int, settings: Settings
) -> str:
    """Summarise a pending episode; returns what happened ('done', 'failed', 'skipped').
    `ModelUnavailable` leaves it pending for a later try."""
    ep = store.episode_for_summary(user_id=user_id, episode_id=episode_id)
    if ep is None or ep.summary_status != "pending":
        return "skipped"  # already summarised, idle, or rebuilt since the job was queued
    prompt = episode_prompt(ep, budget=settings.summary_input_tokens)
    try:
        answer = models.chat_answer(
            messages=prompt.messages,
            answer=SummaryAnswer,
            check=lambda candidate: summary_problems(candidate, ep, prompt),
            fix="Summarise only this episode's log, in the language asked for, with its "
            "own words, apps and categories.",
            max_tokens=700,
        )
    except ModelOutputError as exc:
        reason, raw = failure_of(exc, what=f"summary of episode {episode_id}")
        store.save_episode_summary(
            user_id=user_id,
            episode_id=episode_id,
            title=ep.title,
            summary=None,
            tags=[],
            cues=[],
            status="failed",
            fts_text="",
            reason=reason,
            raw=raw,
        )
        return "failed"
    title = answer.title.strip()[:TITLE_MAX] or ep.title
    summary = answer.summary.strip()
    store.save_episode_summary(
        user_id=user_id,
        episode_id=episode_id,
        title=title,
        summary=summary,
        tags=[t.strip() for t in answer.tags if t.strip()][:8],
        cues=literal_cues(answer.cues, ep),
        status="done",
        fts_text=fts_document(title, summary),
    )
    if ep.category == "uncategorized" and answer.category in MODEL_FILLS:
        store.fill_episode_category(
            user_id=user_id, episode_id=episode_id, category=answer.category
        )
    return "done"


def embed_episode(store: ModelStore, models: ModelClient, *, user_id: int, episode_id: int) -> bool:
    """Embed a summarised episode. An answer that cannot be used (the wrong size, a
    refusal) marks the embedding failed with why; the summary stays. `ModelUnavailable`
    leaves it pending."""
    text = store.episode_text_for_embedding(user_id=user_id, episode_id=episode_id)
    if text is None:
        return False
    try:
        vector = models.embed([text])[0]
    except (ModelOutputError, EmbeddingDimensionError) as exc:
        reason = reason_of([exc.message])
        log_failure(f"embedding of episode {episode_id}", reason)
        store.fail_episode_embedding(user_id=user_id, episode_id=episode_id, reason=reason)
        return False
    store.save_episode_embedding(user_id=user_id, episode_id=episode_id, embedding=vector)
    return True
