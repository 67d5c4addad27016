"""A corpus of real-format activity: (app, title, url) triples in the shapes capture
tools emit on Windows, macOS, Linux and Android (ActivityWatch executables and
WM_CLASS names, screenpipe window names, Dayflow-style bundle ids, Android
packages), Chinese and English, each with the category and privacy action
TimeTrace should give it. The tests and `bench/categories.py` measure the rules on
it; the sample generator takes its app names from it.

    entries = load_corpus()
    entries[0].app, entries[0].title, entries[0].category   # "firefox.exe", "ChatGPT — …", "work"
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Literal, cast

from app.rules.categories import CATEGORIES, Category, Rules

Platform = Literal["windows", "macos", "linux", "android"]
Privacy = Literal["keep", "redact", "drop"]


@dataclass(frozen=True, slots=True)
class CorpusEntry:
    platform: Platform
    tool: str  # activitywatch, screenpipe, dayflow
    app: str
    title: str
    url: str | None
    category: Category  # what the rules should give it
    privacy: Privacy  # what the privacy rules should do with it


@cache
def load_corpus() -> tuple[CorpusEntry, ...]:
    text = resources.files("app").joinpath("demo/corpus.tsv").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    rows = csv.DictReader(io.StringIO("\n".join(lines)), delimiter="\t", quoting=csv.QUOTE_NONE)
    entries = []
    for row in rows:
        if row["category"] not in CATEGORIES or row["privacy"] not in ("keep", "redact", "drop"):
            raise ValueError(f"bad corpus row: {row}")
        entries.append(
            CorpusEntry(
                platform=cast(Platform, row["platform"]),
                tool=row["tool"],
                app=row["app"],
                title=row["title"],
                url=row["url"] or None,
                category=cast(Category, row["category"]),
                privacy=cast(Privacy, row["privacy"]),
            )
        )
    return tuple(entries)


@dataclass(frozen=True, slots=True)
class WindowSpan:
    """Focus on one window for some seconds, as a Windows capture tool reports it."""

    app: str
    title: str
    seconds: int


@cache
def load_windows_day() -> tuple[WindowSpan, ...]:
    """A working day on a Windows PC (`demo/windows_day.tsv`): executables, no URLs."""
    text = resources.files("app").joinpath("demo/windows_day.tsv").read_text("utf-8")
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    rows = csv.DictReader(io.StringIO("\n".join(lines)), delimiter="\t", quoting=csv.QUOTE_NONE)
    return tuple(WindowSpan(r["app"], r["title"], int(r["seconds"])) for r in rows)


def uncategorized_share(rules: Rules, spans: Sequence[WindowSpan]) -> float:
    """The share of active (not idle or system) seconds the rules leave uncategorized."""
    active = uncategorized = 0
    for span in spans:
        category = rules.classify(app=span.app, title=span.title, domain=None).category
        if category == "system":
            continue
        active += span.seconds
        uncategorized += span.seconds if category == "uncategorized" else 0
    return uncategorized / active if active else 0.0
