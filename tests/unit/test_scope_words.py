"""`--scope` words: read into a TokenScope and written back the same (docs/scopes.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from app.errors import InvalidInputError
from app.store.scope import describe_scope, parse_expiry, parse_scope

NOW = datetime(2003, 3, 1, tzinfo=UTC)


def test_the_acceptance_scope_reads_and_writes_back() -> None:
    scope = parse_scope("read-only kinds=work hours=09:00-18:00 days=mon-fri sites=-bilibili.com")
    assert (
        scope.read_only and scope.kinds_allow == ["work"] and scope.sites_deny == ["bilibili.com"]
    )
    assert scope.weekdays == [1, 2, 3, 4, 5] and (scope.hour_from, scope.hour_to) == (
        "09:00",
        "18:00",
    )
    assert parse_scope(describe_scope(scope)) == scope
    assert scope.limits_data and not scope.can_write


def test_a_tools_only_scope_hides_no_time_and_may_write() -> None:
    scope = parse_scope("tools=query_stats,apply_label")
    assert not scope.limits_data and scope.can_write
    assert scope.may_call("apply_label") and not scope.may_call("get_raw")


def test_days_wrap_over_the_week_and_hours_over_midnight() -> None:
    assert parse_scope("days=sat-mon").weekdays == [1, 6, 7]
    assert describe_scope(parse_scope("hours=22:00-24:00")) == "hours=22:00-24:00"


@pytest.mark.parametrize(
    "words",
    ["hours=9-18", "hours=25:00-26:00", "days=someday", "colour=red", "dates=2003-03-09", "kinds="],
)
def test_bad_words_are_one_clear_error(words: str) -> None:
    with pytest.raises(InvalidInputError, match=r"scope|hours|days|dates"):
        parse_scope(words)


def test_expiry_after_a_while_or_at_a_date() -> None:
    assert parse_expiry("30d", now=NOW) == NOW + timedelta(days=30)
    assert parse_expiry("2003-03-02", now=NOW) == NOW + timedelta(days=1)
    with pytest.raises(InvalidInputError, match="past"):
        parse_expiry("2003-02-01", now=NOW)
