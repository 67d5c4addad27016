"""Chart geometry for the SVG the templates draw: hours by category, stacked per day.

The same chart serves the week and month pages and the self-contained HTML report,
so it is computed here once and drawn by one template macro (charts.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from app.rules.categories import CATEGORIES

_STEPS_H = (0.5, 1, 2, 3, 4, 6, 8, 12)


@dataclass(frozen=True, slots=True)
class DayHours:
    day: date
    hours: dict[str, float]  # category -> hours

    @property
    def total(self) -> float:
        return sum(self.hours.values())


@dataclass(frozen=True, slots=True)
class Segment:
    category: str
    y: float
    height: float
    hours: float


@dataclass(frozen=True, slots=True)
class Bar:
    day: date | None  # a day's bar, or
    hour: int | None  # an hour-of-day's bar
    x: float
    width: float
    total: float
    segments: list[Segment]


@dataclass(frozen=True, slots=True)
class Tick:
    y: float
    hours: float


@dataclass(frozen=True, slots=True)
class BarChart:
    width: int
    height: int
    left: float
    top: float
    bottom: float
    bars: list[Bar]
    ticks: list[Tick]
    show_labels: bool  # day labels under every bar (weeks), or under some (months)


def _step(top_hours: float) -> float:
    """A tick step that gives at most five ticks."""
    return next((s for s in _STEPS_H if top_hours / s <= 5), 24.0)


def stacked_bars(
    days: Sequence[DayHours],
    *,
    width: int = 720,
    height: int = 260,
) -> BarChart:
    """Hours by category, one stacked bar per day."""
    return _stacked([(d.day, None, d.hours) for d in days], width=width, height=height)


def hour_bars(
    hours: Sequence[tuple[int, dict[str, float]]], *, width: int = 1000, height: int = 220
) -> BarChart:
    """Hours by category, one stacked bar per clock hour (in the order given)."""
    return _stacked([(None, h, by) for h, by in hours], width=width, height=height)


def _stacked(
    rows: Sequence[tuple[date | None, int | None, dict[str, float]]], *, width: int, height: int
) -> BarChart:
    days = [DayHours(day=day or date.min, hours=hours) for day, _, hours in rows]
    left, top, bottom = 44.0, 12.0, height - 36.0
    highest = max((d.total for d in days), default=0.0)
    step = _step(max(highest, 1.0))
    ceiling = step * max(1, -(-highest // step))
    scale = (bottom - top) / ceiling
    slot = (width - left - 8) / max(len(days), 1)
    bars = []
    for index, day in enumerate(days):
        y = bottom
        segments = []
        for category in CATEGORIES:
            hours = day.hours.get(category, 0.0)
            if hours <= 0:
                continue
            y -= hours * scale
            segments.append(Segment(category=category, y=y, height=hours * scale, hours=hours))
        bars.append(
            Bar(
                day=rows[index][0],
                hour=rows[index][1],
                x=left + index * slot + slot * 0.15,
                width=slot * 0.7,
                total=day.total,
                segments=segments,
            )
        )
    ticks = [
        Tick(y=bottom - i * step * scale, hours=i * step) for i in range(int(ceiling / step) + 1)
    ]
    return BarChart(
        width=width,
        height=height,
        left=left,
        top=top,
        bottom=bottom,
        bars=bars,
        ticks=ticks,
        show_labels=len(days) <= 10,
    )
