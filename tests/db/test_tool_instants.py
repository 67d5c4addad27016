"""Relative instants through `dispatch`, in each tool that takes instants (deep_scan too,
with a model server): English and Chinese words answer exactly what the ISO instants they
name in the USER's zone answer (New York across its 2003 spring-forward, and Shanghai),
never the server's zone."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from app.runtime.services import Services
from app.store.accounts import UserContext
from app.timeutil import zone
from app.tools import dispatch_json
from tests.fake_openai import FakeOpenAI
from tests.helpers import with_models
from tests.paged_day import add_records


def _records(start: datetime, prefix: str) -> list[dict[str, Any]]:
    """Two hours of one-minute records from `start` (a local wall time)."""
    return [
        {
            "client_record_id": f"{prefix}-{i}",
            "ts_start": (start + timedelta(minutes=i)).isoformat(),
            "ts_end": (start + timedelta(minutes=i + 1)).isoformat(),
            "app": "Code" if i % 3 else "Slack",
            "window_title": f"{prefix} file {i}.py",
        }
        for i in range(120)
    ]


def _user(services: Services, name: str, time_zone: str, days: list[str]) -> UserContext:
    user = services.store.ensure_user(name=name, time_zone=time_zone, day_cut_hour=4)
    services.store.add_device(user_id=user.user_id, device_id="pc", name="", kind="desktop")
    tz = zone(time_zone)
    records = [
        r
        for day in days
        for r in _records(datetime.fromisoformat(f"{day}T14:00").replace(tzinfo=tz), day)
    ]
    add_records(services, user, records)
    return user


# New York sprang forward at 02:00 on Sunday 2003-04-06. Now: Monday 12:00 EDT.
NY_NOW = "2003-04-07T12:00:00-04:00"
NY_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "get_raw",
        {"ts_from": "yesterday 3pm", "ts_to": "yesterday 4pm"},
        {"ts_from": "2003-04-06T15:00:00-04:00", "ts_to": "2003-04-06T16:00:00-04:00"},
    ),
    (
        "get_raw",
        {"ts_from": "前天下午3点", "ts_to": "前天下午3点半"},
        {"ts_from": "2003-04-05T15:00:00-05:00", "ts_to": "2003-04-05T15:30:00-05:00"},
    ),
    (
        "query_stats",
        {"ts_from": "2 days ago", "ts_to": "1 day ago"},  # the wall clock: 23 hours
        {"ts_from": "2003-04-05T12:00:00-05:00", "ts_to": "2003-04-06T12:00:00-04:00"},
    ),
    (
        "query_stats",
        {"ts_from": "两天前", "ts_to": "20小时前"},
        {"ts_from": "2003-04-05T12:00:00-05:00", "ts_to": "2003-04-06T16:00:00-04:00"},
    ),
    (
        "compare",
        {"things": ["Code", "Slack"], "ts_from": "昨天下午2点", "ts_to": "yesterday 15:30"},
        {
            "things": ["Code", "Slack"],
            "ts_from": "2003-04-06T14:00:00-04:00",
            "ts_to": "2003-04-06T15:30:00-04:00",
        },
    ),
    ("get_moment", {"at": "yesterday 3:30pm"}, {"at": "2003-04-06T15:30:00-04:00"}),
    ("get_moment", {"at": "前天下午3点半"}, {"at": "2003-04-05T15:30:00-05:00"}),
    (
        "last_seen",
        {"thing": "Slack", "before": "yesterday 3pm"},
        {"thing": "Slack", "before": "2003-04-06T15:00:00-04:00"},
    ),
    (
        "last_seen",
        {"thing": "Slack", "before": "21小时前"},
        {"thing": "Slack", "before": "2003-04-06T15:00:00-04:00"},
    ),
]


def _answer(services: Services, user: UserContext, now: str, name: str, args: Any) -> Any:
    ctx = services.tool_context(user=user, now=datetime.fromisoformat(now))
    answer = dispatch_json(ctx, name, args)
    assert "error" not in answer, (name, args, answer)
    return answer


def _has_activity(answer: Any) -> bool:
    """Whether an answer shows a record's title or counts some seconds."""
    if isinstance(answer, dict):
        counted = any(k.endswith("seconds") and v for k, v in answer.items())
        return counted or any(_has_activity(v) for v in answer.values())
    if isinstance(answer, list):
        return any(_has_activity(v) for v in answer)
    return isinstance(answer, str) and " file " in answer


@pytest.mark.parametrize(("name", "relative", "iso"), NY_CASES)
def test_words_answer_as_the_iso_instants_they_name_across_dst(
    services: Services, name: str, relative: dict[str, Any], iso: dict[str, Any]
) -> None:
    user = _user(services, "ny", "America/New_York", ["2003-04-05", "2003-04-06"])
    expected = _answer(services, user, NY_NOW, name, iso)
    assert _has_activity(expected), expected
    assert _answer(services, user, NY_NOW, name, relative) == expected


def test_the_same_words_are_read_in_each_users_own_zone(services: Services) -> None:
    shanghai = _user(services, "sh", "Asia/Shanghai", ["2003-04-06"])
    now = "2003-04-07T12:00:00+08:00"
    for said in ("yesterday 3pm", "昨天下午3点"):
        relative = {"ts_from": said, "ts_to": "昨天下午4点"}
        iso = {"ts_from": "2003-04-06T15:00:00+08:00", "ts_to": "2003-04-06T16:00:00+08:00"}
        expected = _answer(services, shanghai, now, "get_raw", iso)
        assert len(expected["items"]) == 60
        assert _answer(services, shanghai, now, "get_raw", relative) == expected
    # The server's clock is UTC: read there, yesterday 3pm would be 23:00 in Shanghai.
    utc_read = {"ts_from": "2003-04-06T15:00:00+00:00", "ts_to": "2003-04-06T16:00:00+00:00"}
    assert _answer(services, shanghai, now, "get_raw", utc_read)["items"] == []


def test_words_it_cannot_read_are_an_error_that_lists_the_forms(services: Services) -> None:
    user = _user(services, "ny", "America/New_York", ["2003-04-06"])
    ctx = services.tool_context(user=user, now=datetime.fromisoformat(NY_NOW))
    answer = dispatch_json(ctx, "get_moment", {"at": "sometime last spring"})
    assert answer["error"].startswith("invalid arguments for get_moment: at: 'sometime")
    assert "2h ago" in answer["error"] and "昨天下午3点" in answer["error"]


def test_deep_scan_reads_its_window_in_the_users_zone(services: Services) -> None:
    user = _user(services, "ny", "America/New_York", ["2003-04-06"])
    with FakeOpenAI() as fake:
        with_model, _ = with_models(services, fake)
        ctx = with_model.tool_context(user=user, now=datetime.fromisoformat(NY_NOW))
        # Saturday morning, before the spring-forward: no records, so no model call.
        english = ("the day before yesterday 9am", "the day before yesterday at 10am")
        for words in (("前天上午9点", "前天上午10点"), english):
            answer = dispatch_json(
                ctx, "deep_scan", {"ts_from": words[0], "ts_to": words[1], "question": "what"}
            )
            assert answer["from"] == "2003-04-05T09:00:00-05:00"
            assert answer["to"] == "2003-04-05T10:00:00-05:00"
            assert answer["note"] == "no records in that window"
