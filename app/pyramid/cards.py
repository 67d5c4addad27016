"""An episode's card without a model: a summary of one or two lines written by rule from
its own records, so that a card says what happened even when no chat model is configured.
Pure; `draft_episode` calls it for each active episode, and a model's summary replaces it
later (`summary_by` says which wrote it).

    rules_summary(members)
    # 'segmenter.py — timetrace · zsh — pytest -q · api.py — timetrace\\nmodels.py · #dev-timetrace'

Line one: the episode's top titles by time (what it was). Line two: what it touched
beyond them, ranked by time — file names, channels (`#name`), sites and other apps —
and its cues (a rollback command seen in a title). Only words the records hold, so the
line is the same in Chinese and English and every word is found by keyword search.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from app.pyramid.signals import text_facts
from app.store.episodes import SegmentInput
from app.text import normalize_title

TOP_TITLES = 3
TITLE_CHARS = 60  # of each title on line one
TOUCHED = 6  # things on line two
SUMMARY_MAX = 300
# A chat channel as titles show it ("#dev-timetrace - Acme"): a `#` that starts a word.
_CHANNEL = re.compile(r"(?<![\w#&])#[^\W\d][\w-]{0,40}+")
SEPARATOR = " · "


@functools.lru_cache(maxsize=8_192)
def _channels(title: str) -> tuple[str, ...]:
    """The chat channels a title names (cached: a title repeats over many records)."""
    return tuple(_CHANNEL.findall(title[:4_096]))


def _add(totals: dict[str, float], key: str, seconds: float) -> None:
    # Dicts keep first-seen order: ties in time go to what came first.
    totals[key] = totals.get(key, 0.0) + seconds


def _ranked(totals: dict[str, float]) -> list[str]:
    return sorted(totals, key=lambda k: -totals[k])


def rules_summary(members: Sequence[SegmentInput], *, primary_app: str = "") -> str:
    """One or two lines from the members' titles, files, channels, sites and apps,
    ranked by time; "" when the members show nothing (idle, no titles)."""
    # One pass over the members (a year's build meets ~1.8 M): seconds by raw title and
    # by place; each distinct title is then read once, through the cached extractors.
    seen: dict[tuple[str, str], float] = {}
    for m in members:
        if not m.is_idle:
            key = (m.title, m.domain or m.app)
            seen[key] = seen.get(key, 0.0) + m.duration
    titles: dict[str, float] = {}
    places: dict[str, float] = {}
    for (title, place), seconds in seen.items():
        if title:
            _add(titles, title, seconds)
        if place:
            _add(places, place, seconds)
    if not titles and not places:
        return ""
    normal: dict[str, float] = {}
    files: dict[str, float] = {}
    channels: dict[str, float] = {}
    rollbacks: dict[str, float] = {}
    for title, seconds in titles.items():
        clean = normalize_title(title)
        if clean:
            _add(normal, clean, seconds)
        facts = text_facts(title)
        for name in facts.files:
            _add(files, name, seconds)
        for channel in _channels(title):
            _add(channels, channel, seconds)
        if facts.rollback:
            _add(rollbacks, facts.rollback, seconds)
    places.pop(primary_app, None)
    top = [t[:TITLE_CHARS].rstrip() for t in _ranked(normal)[:TOP_TITLES]]
    first = SEPARATOR.join(top) or primary_app
    shown = first.casefold()
    touched: list[str] = []
    for thing in [*_ranked(files), *_ranked(channels), *_ranked(places)]:
        if thing.casefold() not in shown and thing not in touched:
            touched.append(thing)
            if len(touched) == TOUCHED:
                break
    second = ", ".join(touched)
    cues = SEPARATOR.join(_ranked(rollbacks)[:2])
    rest = SEPARATOR.join(part for part in (second, cues) if part)
    return (first + ("\n" + rest if rest else ""))[:SUMMARY_MAX]
