"""Period and clock phrases read from questions: every case of the date corpus
(English and Chinese, seen from Wednesday 2026-06-17) gives its exact days."""

from __future__ import annotations

from datetime import date

import pytest

from app.agent.dates import find_clocks, find_period
from bench.date_corpus import CORPUS, TODAY, DateCase


@pytest.mark.parametrize("case", CORPUS, ids=[c.question for c in CORPUS])
def test_every_phrase_of_the_corpus_gives_its_days(case: DateCase) -> None:
    period = find_period(case.question, today=TODAY)
    assert period is not None
    assert (period.date_from, period.date_to) == (case.first, case.last)
    if case.clock is not None:
        assert find_clocks(case.question)[0] == case.clock


def test_a_bare_weekday_later_in_the_week_is_last_weeks_and_this_names_this_weeks() -> None:
    friday = find_period("周五干了啥", today=TODAY)
    this_friday = find_period("这周五有什么安排", today=TODAY)
    assert friday is not None and this_friday is not None
    assert friday.date_from == date(2026, 6, 12) and this_friday.date_from == date(2026, 6, 19)


def test_a_month_without_a_year_is_the_latest_one_not_in_the_future() -> None:
    period = find_period("how much entertainment in December", today=TODAY)
    assert period is not None
    assert (period.date_from, period.date_to) == (date(2025, 12, 1), date(2025, 12, 31))


def test_evening_words_move_the_clock_past_noon() -> None:
    assert find_clocks("昨晚8点在干嘛") == [(20, 0)]
    assert find_clocks("yesterday at 8 in the evening") == [(20, 0)]
    assert find_clocks("下午三点半") == [(15, 30)]
