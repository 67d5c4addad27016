"""Relative instants in tool arguments: English and Chinese words read on the user's
clock (zone and day cut), never the server's, in every tool argument that takes an
instant, and bad words refused with a message that says what is accepted."""

from __future__ import annotations

import typing
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pydantic import AwareDatetime, BaseModel, BeforeValidator, NaiveDatetime, ValidationError

from app.tools import REGISTRY
from app.tools import instants as instants_module
from app.tools.instants import Clock, clock_context, read_instant

SHANGHAI = ZoneInfo("Asia/Shanghai")
NEW_YORK = ZoneInfo("America/New_York")
# Wednesday 2026-06-17 10:30 in Shanghai (02:30 UTC); the day starts at 04:00.
NOW = datetime(2026, 6, 17, 2, 30, tzinfo=UTC)
CLOCK = Clock(now=NOW, tz=SHANGHAI, cut_hour=4)


def at(text: str, tz: ZoneInfo = SHANGHAI) -> datetime:
    """A wall-clock time of the zone, as an aware instant."""
    return datetime.fromisoformat(text).replace(tzinfo=tz)


def elapsed(since: datetime | None, until: datetime) -> timedelta:
    """Real time between two instants (Python subtracts wall clocks within one zone)."""
    assert since is not None
    return until.astimezone(UTC) - since.astimezone(UTC)


@pytest.mark.parametrize(
    ("said", "means"),
    [
        ("now", "2026-06-17T10:30"),
        ("现在", "2026-06-17T10:30"),
        ("2h ago", "2026-06-17T08:30"),
        ("30 min ago", "2026-06-17T10:00"),
        ("an hour ago", "2026-06-17T09:30"),
        ("half an hour ago", "2026-06-17T10:00"),
        ("3小时前", "2026-06-17T07:30"),
        ("半小时前", "2026-06-17T10:00"),
        ("一个半小时前", "2026-06-17T09:00"),
        ("二十五分钟前", "2026-06-17T10:05"),
        ("两天前", "2026-06-15T10:30"),
        ("1 week ago", "2026-06-10T10:30"),
        ("yesterday 3pm", "2026-06-16T15:00"),
        ("Yesterday at 3:30 PM", "2026-06-16T15:30"),
        ("3pm yesterday", "2026-06-16T15:00"),
        ("昨天下午3点", "2026-06-16T15:00"),
        ("昨天 15:00", "2026-06-16T15:00"),
        ("昨晚8点", "2026-06-16T20:00"),
        ("今天上午9点半", "2026-06-17T09:30"),
        ("today 09:00", "2026-06-17T09:00"),
        ("yesterday", "2026-06-16T04:00"),  # a day word alone: the day's start (cut hour)
        ("前天", "2026-06-15T04:00"),
        ("last night 2am", "2026-06-17T02:00"),  # before the cut: the small hours after
        ("15:00", "2026-06-16T15:00"),  # a clock alone: the latest not after now
        ("09:00", "2026-06-17T09:00"),
        ("下午3点", "2026-06-16T15:00"),
    ],
)
def test_relative_words_name_instants_on_the_users_clock(said: str, means: str) -> None:
    assert read_instant(said, clock=CLOCK) == at(means)


def test_the_same_words_mean_another_instant_in_another_zone() -> None:
    utc = Clock(now=NOW, tz=ZoneInfo("UTC"), cut_hour=0)
    assert read_instant("yesterday 3pm", clock=utc) == datetime(2026, 6, 16, 15, tzinfo=UTC)
    # At 02:30 in UTC a day cut at 04:00 has not begun: yesterday is the 15th there.
    early = Clock(now=NOW, tz=ZoneInfo("UTC"), cut_hour=4)
    assert read_instant("yesterday 3pm", clock=early) == datetime(2026, 6, 15, 15, tzinfo=UTC)
    assert read_instant("昨天下午3点", clock=CLOCK) == datetime(2026, 6, 16, 7, tzinfo=UTC)
    # Elapsed time is the same instant in every zone.
    assert read_instant("2h ago", clock=utc) == read_instant("2小时前", clock=CLOCK)


def test_across_a_dst_change_days_keep_the_wall_clock_and_hours_do_not() -> None:
    # New York sprang forward at 02:00 on Sunday 2026-03-08; now is Monday 12:00 EDT.
    clock = Clock(now=at("2026-03-09T12:00", NEW_YORK), tz=NEW_YORK, cut_hour=4)
    day_ago = read_instant("1 day ago", clock=clock)
    assert day_ago == at("2026-03-08T12:00", NEW_YORK)
    assert elapsed(day_ago, clock.now) == timedelta(hours=24)
    two_days = read_instant("两天前", clock=clock)
    assert two_days == at("2026-03-07T12:00", NEW_YORK)
    assert elapsed(two_days, clock.now) == timedelta(hours=47)  # a 23-hour Sunday between
    hours = read_instant("48h ago", clock=clock)
    assert hours is not None and elapsed(hours, clock.now) == timedelta(hours=48)
    assert hours == at("2026-03-07T11:00", NEW_YORK)
    # Yesterday (Sunday) at 3pm is EDT, UTC-4; the Saturday before is EST, UTC-5.
    assert read_instant("yesterday 3pm", clock=clock) == datetime(2026, 3, 8, 19, tzinfo=UTC)
    assert read_instant("前天下午3点", clock=clock) == datetime(2026, 3, 7, 20, tzinfo=UTC)


@pytest.mark.parametrize(
    "said",
    ["blah", "yesterday 25:00", "3 fortnights ago", "昨天下午", "", "99999999999 weeks ago"],
)
def test_words_that_name_no_instant_are_none(said: str) -> None:
    assert read_instant(said, clock=CLOCK) is None


# -- every tool argument that takes an instant --------------------------------------------


def _relative_field(annotation: Any, metadata: list[Any]) -> bool:
    found = [m for m in metadata if isinstance(m, BeforeValidator)]
    for arg in typing.get_args(annotation):
        if isinstance(arg, BeforeValidator):
            found.append(arg)
        elif typing.get_args(arg):
            found.extend(m for m in typing.get_args(arg) if isinstance(m, BeforeValidator))
    return any(m.func is instants_module._relative for m in found)


def _takes_a_datetime(annotation: Any) -> bool:
    if annotation in (AwareDatetime, NaiveDatetime) or (
        isinstance(annotation, type) and issubclass(annotation, datetime)
    ):
        return True
    return any(_takes_a_datetime(a) for a in typing.get_args(annotation))


def instant_fields() -> list[tuple[str, str]]:
    fields = []
    for name, spec in REGISTRY.items():
        for field, info in spec.params.model_fields.items():
            if _relative_field(info.annotation, info.metadata):
                fields.append((name, field))
    return fields


def test_every_tool_argument_that_takes_an_instant_reads_relative_words() -> None:
    taking = {
        (name, field)
        for name, spec in REGISTRY.items()
        for field, info in spec.params.model_fields.items()
        if _takes_a_datetime(info.annotation)
    }
    assert taking == set(instant_fields())
    assert {("get_raw", "ts_from"), ("query_stats", "ts_to"), ("get_moment", "at")} <= taking
    assert ("last_seen", "before") in taking and ("deep_scan", "ts_from") in taking


EXTRA: dict[str, dict[str, Any]] = {
    "deep_scan": {"question": "what"},
    "last_seen": {"thing": "Code"},
    "compare": {"things": ["Code", "Excel"]},
}
# Words for each field, English and Chinese, and the other end of a pair of instants.
WORDS = {
    "ts_from": (("yesterday 3pm", "昨天下午3点"), {"ts_to": "2026-06-16T16:00:00+08:00"}),
    "ts_to": (("30 min ago", "30分钟前"), {"ts_from": "2026-06-17T09:00:00+08:00"}),
}


def _validated(name: str, arguments: dict[str, Any], tz: str = "Asia/Shanghai") -> BaseModel:
    context = clock_context(now=NOW, time_zone=tz, cut_hour=4)
    return REGISTRY[name].params.model_validate(arguments, context=context)


@pytest.mark.parametrize(("name", "field"), instant_fields())
def test_each_instant_argument_resolves_words_in_the_users_zone(name: str, field: str) -> None:
    (english, chinese), other = WORDS.get(field, (("yesterday 3pm", "昨天下午3点"), {}))
    expected = read_instant(english, clock=CLOCK)
    for said in (english, chinese):
        arguments = {**EXTRA.get(name, {}), **other, field: said}
        resolved = getattr(_validated(name, arguments), field)
        assert resolved == expected, (name, field, said)
        assert resolved.utcoffset() == timedelta(hours=8)


def test_bad_words_are_refused_saying_what_is_accepted() -> None:
    with pytest.raises(ValidationError) as refused:
        _validated("get_raw", {"ts_from": "the other day", "ts_to": "now"})
    message = str(refused.value)
    assert "'the other day' is not an instant" in message
    assert "2h ago" in message and "昨天下午3点" in message


def test_iso_instants_are_read_as_before() -> None:
    args = _validated("get_raw", {"ts_from": "2026-06-17T09:00:00+08:00", "ts_to": "now"})
    assert args.ts_from == at("2026-06-17T09:00")
    with pytest.raises(ValidationError, match="timezone"):
        _validated("get_raw", {"ts_from": "2026-06-17T09:00:00", "ts_to": "now"})
    with pytest.raises(ValidationError, match="not a number"):
        _validated("get_raw", {"ts_from": "1781000000", "ts_to": "now"})
    # An instant without a zone is the user's local time where the tool always took it so.
    moment = _validated("get_moment", {"at": "2026-06-17T09:00:00"}, tz="America/New_York")
    assert moment.at == at("2026-06-17T09:00", NEW_YORK)
