"""The web pages' pure parts: language negotiation and the bilingual messages, the palette's
contrast, and the charts drawn to scale."""

from __future__ import annotations

import re
import string
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from app.rules.categories import CATEGORIES
from app.timeutil import zone
from app.web.charts import DayHours, stacked_bars
from app.web.i18n import MESSAGES, negotiate
from app.web.palette import (
    CATEGORY_SWATCHES,
    DARK_THEME,
    SCHEMES,
    SHAPE_AA,
    TEXT_AA,
    THEME,
    THEME_SHAPE_PAIRS,
    THEME_TEXT_PAIRS,
    contrast,
    css_variables,
)
from app.web.timeline import axis_ticks as hour_ticks

ROOT = Path(__file__).resolve().parents[2]


def test_negotiation_picks_the_highest_quality_of_chinese_or_english() -> None:
    assert negotiate(cookie=None, accept_language="en;q=0.3, zh-TW;q=0.8") == "zh"
    assert negotiate(cookie=None, accept_language="de, en-GB;q=0.9") == "en"
    assert negotiate(cookie=None, accept_language=None) == "en"
    assert negotiate(cookie="zh", accept_language="en") == "zh"
    assert negotiate(cookie="xx", accept_language="zh") == "zh"


def test_every_message_exists_in_both_languages_with_the_same_placeholders() -> None:
    assert MESSAGES["en"].keys() == MESSAGES["zh"].keys()
    fields = string.Formatter()
    for key, text in MESSAGES["en"].items():
        names = {name for _, name, _, _ in fields.parse(text) if name}
        assert names == {name for _, name, _, _ in fields.parse(MESSAGES["zh"][key]) if name}, key


def test_the_palette_meets_wcag_aa_for_text_and_shapes() -> None:
    assert round(contrast("#000000", "#ffffff"), 2) == 21.0
    assert contrast("#777777", "#777777") == 1.0
    assert round(contrast("#767676", "#ffffff"), 2) == 4.54  # the usual AA grey
    # The light scheme and `prefers-color-scheme: dark` meet the same rule.
    assert [name for name, _, _ in SCHEMES] == ["light", "dark"]
    assert SCHEMES[0][1] is THEME and SCHEMES[0][2] is CATEGORY_SWATCHES
    for scheme, theme, swatches in SCHEMES:
        for category, swatch in swatches.items():
            assert contrast(swatch.text, swatch.fill) >= TEXT_AA, (scheme, category)
            for page in ("bg", "panel"):
                assert contrast(swatch.fill, theme[page]) >= SHAPE_AA, (scheme, category, page)
        for text, background in THEME_TEXT_PAIRS:
            assert contrast(theme[text], theme[background]) >= TEXT_AA, (scheme, text, background)
        for shape, background in THEME_SHAPE_PAIRS:
            assert contrast(theme[shape], theme[background]) >= SHAPE_AA, (scheme, shape)
    sheet = css_variables()
    assert "@media (prefers-color-scheme: dark)" in sheet
    assert f"--bg: {DARK_THEME['bg']};" in sheet.split("prefers-color-scheme: dark")[1]
    # The stylesheets name no colour of their own: every colour above is every colour used.
    for sheet in ("app.css", "charts.css"):
        css = (ROOT / "app/web/static" / sheet).read_text(encoding="utf-8")
        assert not re.findall(r"#[0-9a-fA-F]{3,8}\b|rgb\(|hsl\(", css), sheet


def test_stacked_bars_are_drawn_to_scale() -> None:
    days = [
        DayHours(day=date(2003, 3, 3), hours={"work": 3.0, "social": 1.0}),
        DayHours(day=date(2003, 3, 4), hours={"entertainment": 7.5}),
    ]
    chart = stacked_bars(days, width=400, height=200)
    plot = chart.bottom - chart.top
    assert [t.hours for t in chart.ticks] == [0, 2, 4, 6, 8]
    tall = chart.bars[1].segments[0]
    assert tall.height == pytest.approx(plot * 7.5 / 8)
    first = chart.bars[0]
    assert [s.category for s in first.segments] == ["work", "social"]
    assert first.segments[0].y == pytest.approx(chart.bottom - plot * 3 / 8)
    assert first.segments[1].y + first.segments[1].height == pytest.approx(first.segments[0].y)
    assert {c for c in CATEGORIES} >= {s.category for b in chart.bars for s in b.segments}


def test_the_time_axis_counts_real_hours_across_a_clock_change() -> None:
    new_york = zone("America/New_York")
    # 2026-03-08: clocks jump from 02:00 to 03:00; 00:00-09:00 local is eight real hours.
    lo = datetime(2026, 3, 8, 0, 0, tzinfo=new_york).astimezone(UTC)
    hi = datetime(2026, 3, 8, 9, 0, tzinfo=new_york).astimezone(UTC)
    ticks = hour_ticks(lo, hi, tz=new_york)
    assert [t.label for t in ticks] == [f"{h:02d}:00" for h in (0, 1, 3, 4, 5, 6, 7, 8, 9)]
    assert [t.x for t in ticks] == [i * 12.5 for i in range(9)]


def test_zoomed_in_the_axis_steps_in_whole_local_minutes() -> None:
    shanghai = zone("Asia/Shanghai")
    lo = datetime(2003, 3, 5, 10, 7, tzinfo=shanghai).astimezone(UTC)
    hi = datetime(2003, 3, 5, 10, 37, tzinfo=shanghai).astimezone(UTC)
    ticks = hour_ticks(lo, hi, tz=shanghai)
    assert [t.label for t in ticks] == ["10:10", "10:15", "10:20", "10:25", "10:30", "10:35"]
    assert ticks[0].x == pytest.approx(10.0)
