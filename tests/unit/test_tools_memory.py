"""The tools over the in-memory store: what the tool layer itself decides (stitching
the layers, periods in the user's clock, ordering, grouping, caps, the write's
rebuild) — fast, with no database. The same tools on PostgreSQL are in
tests/db/test_tools.py."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from app.settings import Settings
from app.store.accounts import UserContext
from app.store.digests import DigestRow, SignalRow
from app.store.documents import DigestMetrics
from app.store.episodes import EpisodeLine
from app.store.memory import MemoryEpisode, MemoryRecord, MemoryStore
from app.store.records import RecordLine
from app.tools import ToolContext, dispatch_json
from app.tools.registry import REGISTRY, output_tokens

USER = UserContext(user_id=1, name="mem", time_zone="UTC", day_cut_hour=4)
OTHER = UserContext(user_id=2, name="other", time_zone="UTC", day_cut_hour=4)
NOW = datetime(2003, 3, 6, 12, 0, tzinfo=UTC)  # logical day 2003-03-06 (a Thursday)


def at(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2003, 3, day, hour, minute, tzinfo=UTC)


class Rebuilds:
    """Records what a write asked to rebuild."""

    def __init__(self) -> None:
        self.calls: list[list[tuple[str, date]]] = []

    def __call__(
        self, *, user: UserContext, device_days: Sequence[tuple[str, date]], now: datetime
    ) -> None:
        self.calls.append(list(device_days))


def ctx(store: MemoryStore, *, user: UserContext = USER, now: datetime = NOW) -> ToolContext:
    return ToolContext(
        store=store,
        models=None,
        settings=Settings(_env_file=None),
        user=user,
        now=now,
        rebuild=Rebuilds(),
    )


_ids = iter(range(1, 100_000))


def episode(
    start: datetime,
    minutes: float,
    *,
    category: str = "work",
    title: str = "Code · main.py",
    app: str = "Code",
    user: UserContext = USER,
    device: str = "laptop",
    summary: str | None = None,
    idle_s: float = 0.0,
) -> MemoryEpisode:
    seconds = minutes * 60
    active = 0.0 if category == "system" else seconds - idle_s
    line = EpisodeLine(
        episode_id=next(_ids),
        device_id=device,
        ts_start=start,
        ts_end=start + timedelta(seconds=seconds),
        category=category,
        category_source="records",
        title=title,
        summary=summary,
        duration_s=seconds,
        active_s=active,
    )
    by_category = {category: seconds - idle_s}
    if idle_s:
        by_category["system"] = by_category.get("system", 0.0) + idle_s
    return MemoryEpisode(
        user_id=user.user_id,
        line=line,
        day_local=(start - timedelta(hours=4)).date(),
        category_seconds=by_category,
        app_seconds={app: active} if active else {},
        active_s=active,
        auto_title=title,
    )


def record(
    start: datetime,
    seconds: float,
    *,
    app: str = "Slack",
    category: str = "social",
    title: str = "general",
    episode_id: int | None = None,
    device: str = "laptop",
    idle: bool = False,
) -> MemoryRecord:
    line = RecordLine(
        record_id=next(_ids),
        device_id=device,
        ts_start=start,
        ts_end=start + timedelta(seconds=seconds),
        app=app,
        window_title=title,
        domain=None,
        category=category,
        is_idle=idle,
        episode_id=episode_id,
        description=None,
    )
    return MemoryRecord(
        user_id=USER.user_id,
        line=line,
        day_local=(start - timedelta(hours=4)).date(),
        duration_s=seconds,
    )


def digest(
    grain: str, key: str, start: datetime, end: datetime, metrics: DigestMetrics, **extra: Any
) -> tuple[int, DigestRow]:
    row = DigestRow(
        digest_id=next(_ids),
        grain=grain,
        scope_key=key,
        period_start=start,
        period_end=end,
        metrics=metrics,
        narrative=extra.get("narrative"),
        narrative_status=extra.get("narrative_status", "pending"),
        source_ids=extra.get("source_ids", []),
        computed_through_ts=extra.get("computed_through_ts", end),
        finalized=extra.get("finalized", True),
        stale=extra.get("stale", False),
    )
    return USER.user_id, row


def custom(first: str, last: str, **more: Any) -> dict[str, Any]:
    return {"period": "custom", "date_from": first, "date_to": last, **more}


def seconds_of(result: dict[str, Any]) -> dict[str, int]:
    return {i["category"]: i["seconds"] for i in result["items"]}


@pytest.fixture
def layered() -> MemoryStore:
    """Monday 03-03 has a finalized day digest, Tuesday 03-04 only closed episodes,
    Wednesday 03-05 only records not yet in an episode (the open tail)."""
    store = MemoryStore()
    store.digests.append(
        digest(
            "day",
            "2003-03-03",
            at(3, 4),
            at(4, 4),
            DigestMetrics(
                seconds_by_category={"work": 3600.0},
                seconds_by_app={"Code": 3600.0},
                episode_count=1,
                active_seconds=3600.0,
            ),
            computed_through_ts=at(3, 10),
        )
    )
    # The digest's episode is still there; it must not be counted twice.
    store.episodes.append(episode(at(3, 9), 60))
    store.episodes += [
        episode(at(4, 9), 30),
        episode(at(4, 10), 10, category="entertainment", title="YouTube", app="Firefox"),
    ]
    store.records += [record(at(5, 9), 200), record(at(5, 9, 5), 100)]
    return store


def test_query_stats_stitches_a_final_digest_live_episodes_and_the_open_tail(
    layered: MemoryStore,
) -> None:
    c = ctx(layered)
    both = dispatch_json(c, "query_stats", custom("2003-03-03", "2003-03-05"))
    assert seconds_of(both) == {"work": 5400, "entertainment": 600, "social": 300}
    assert both["total_seconds"] == 6300
    assert both["source"] == "mixed"
    # The watermark is the newest thing any layer saw: the open tail's last record.
    assert both["computed_through_ts"] == "2003-03-05T09:05:00+00:00"
    assert dispatch_json(c, "query_stats", custom("2003-03-03", "2003-03-03"))["source"] == "digest"
    live = dispatch_json(c, "query_stats", custom("2003-03-04", "2003-03-05"))
    assert live["source"] == "live" and seconds_of(live)["work"] == 1800
    active = dispatch_json(
        c, "query_stats", custom("2003-03-03", "2003-03-05", metric="active_seconds")
    )
    assert active["value"] == 3600 + 2400 + 300


def test_device_overlap_adds_the_digests_and_the_live_days_time_on_two_devices(
    layered: MemoryStore,
) -> None:
    layered.digests[0][1].metrics["device_overlap_seconds"] = 120.0
    # 03-05: the phone is active 09:01-09:03:30 beside the laptop's 09:00-09:03:20 (140 s);
    # its idle record beside the laptop's second one is not activity.
    layered.records += [
        record(at(5, 9, 1), 150, device="phone", app="微信"),
        record(at(5, 9, 5), 60, device="phone", app="锁屏", idle=True),
    ]
    c = ctx(layered)
    apps = dispatch_json(
        c, "query_stats", custom("2003-03-03", "2003-03-05", metric="seconds_by_app")
    )
    assert apps["device_overlap_s"] == 120 + 140
    assert (
        dispatch_json(c, "query_stats", custom("2003-03-04", "2003-03-04"))["device_overlap_s"] == 0
    )


def test_a_finalized_week_digest_is_used_whole_and_never_beside_its_days(
    layered: MemoryStore,
) -> None:
    week = DigestMetrics(seconds_by_category={"work": 7777.0}, active_seconds=7777.0)
    layered.digests.append(digest("week", "2003-W10", at(3, 4), at(10, 4), week))
    c = ctx(layered)
    # Wednesday's records are not in episodes yet: the week digest leaves them out.
    unsettled = dispatch_json(c, "query_stats", custom("2003-03-03", "2003-03-09"))
    assert seconds_of(unsettled) == {"work": 5400, "entertainment": 600, "social": 300}
    layered.records.clear()
    whole = dispatch_json(c, "query_stats", custom("2003-03-03", "2003-03-09"))
    assert seconds_of(whole) == {"work": 7777} and whole["source"] == "digest"
    # A range that only partly covers the week cannot use it.
    part = dispatch_json(c, "query_stats", custom("2003-03-03", "2003-03-04"))
    assert seconds_of(part) == {"work": 5400, "entertainment": 600}


def test_periods_resolve_in_the_users_clock_and_cut_hour(layered: MemoryStore) -> None:
    # 03:30 UTC on Wednesday is still Tuesday's logical day (cut hour 04:00).
    c = ctx(layered, now=at(5, 3, 30))
    today = dispatch_json(c, "query_stats", {"period": "today"})
    assert (today["from"], today["to"]) == ("2003-03-04", "2003-03-04")
    assert seconds_of(today) == {"work": 1800, "entertainment": 600}
    week = dispatch_json(c, "query_stats", {"period": "this_week"})
    assert (week["from"], week["to"]) == ("2003-03-03", "2003-03-04")
    last_week = dispatch_json(c, "query_stats", {"period": "last_week"})
    assert (last_week["from"], last_week["to"]) == ("2003-02-24", "2003-03-02")
    assert last_week["items"] == [] and last_week["total_seconds"] == 0


def test_query_stats_one_category_and_apps(layered: MemoryStore) -> None:
    c = ctx(layered)
    fun = dispatch_json(
        c, "query_stats", custom("2003-03-03", "2003-03-05", category="entertainment")
    )
    assert fun["items"] == [{"category": "entertainment", "seconds": 600, "hours": 0.17}]
    assert output_tokens(fun) <= 200
    apps = dispatch_json(
        c, "query_stats", custom("2003-03-03", "2003-03-05", metric="seconds_by_app")
    )
    assert [(i["app"], i["seconds"]) for i in apps["items"]] == [
        ("Code", 5400),
        ("Firefox", 600),
        ("Slack", 300),
    ]
    wrong = dispatch_json(
        c,
        "query_stats",
        custom("2003-03-03", "2003-03-05", category="work", metric="seconds_by_app"),
    )
    assert "category works only with" in wrong["error"]


def test_query_stats_lists_uncategorized_apps_and_sites_with_a_rule_each() -> None:
    wiki = "Docs - Acme Wiki — Mozilla Firefox"
    store = MemoryStore(
        records=[
            record(at(3, 10), 1200, app="hades2", category="uncategorized", title="Hades II"),
            record(at(3, 10, 20), 600, app="Firefox", category="uncategorized", title=wiki),
            record(at(3, 10, 30), 300, app="Firefox", category="uncategorized", title=""),
            record(at(3, 10, 35), 900, app="Code", category="work"),
            record(at(3, 10, 50), 900, app="hades2", category="system", idle=True),
        ]
    )
    result = dispatch_json(
        ctx(store), "query_stats", custom("2003-03-03", "2003-03-03", metric="uncategorized")
    )
    assert result["items"] == [
        {"app": "hades2", "seconds": 1200, "hours": 0.33, "rule": "app = '^hades2$'"},
        {
            "app": "Firefox",
            "site": "Acme Wiki",
            "seconds": 600,
            "hours": 0.17,
            "rule": "title = 'Acme Wiki'",
        },
        {"app": "Firefox", "seconds": 300, "hours": 0.08},  # untitled: nothing to match on
    ]
    assert (result["uncategorized_seconds"], result["active_seconds"]) == (2100, 3000)


def test_get_digest_when_built_and_when_not(layered: MemoryStore) -> None:
    c = ctx(layered)
    built = dispatch_json(c, "get_digest", {"grain": "day", "date": "2003-03-03"})
    assert built["available"] and built["finalized"]
    assert built["metrics"]["hours_by_category"] == {"work": 1.0}
    assert built["complete"] is True and "missing" not in built
    missing = dispatch_json(c, "get_digest", {"grain": "day", "date": "2003-03-04"})
    assert missing["available"] is False and missing["source"] == "live"
    assert missing["metrics"]["hours_by_category"] == {"work": 0.5, "entertainment": 0.17}
    assert missing["metrics"]["episodes"] == 2
    # Wednesday's two records are not in an episode yet: the week says so.
    week = dispatch_json(c, "get_digest", {"grain": "week", "date": "2003-03-05"})
    assert week["complete"] is False
    assert week["missing"]["records_not_in_episodes"] == 2
    assert week["missing"]["days"] == ["2003-03-05"]
    bad = dispatch_json(c, "get_digest", {"grain": "week", "date": "3 March"})
    assert "is not YYYY-MM-DD" in bad["error"]


def test_get_episodes_lists_newest_first_and_says_when_more_exist(layered: MemoryStore) -> None:
    c = ctx(layered)
    result = dispatch_json(c, "get_episodes", custom("2003-03-03", "2003-03-05"))
    assert [i["title"] for i in result["items"]] == ["YouTube", "Code · main.py", "Code · main.py"]
    assert result["items"][0]["when"] == "03-04 10:00–10:10" and result["items"][0]["minutes"] == 10
    only = dispatch_json(
        c, "get_episodes", custom("2003-03-03", "2003-03-05", category="entertainment")
    )
    assert [i["category"] for i in only["items"]] == ["entertainment"]
    capped = dispatch_json(c, "get_episodes", custom("2003-03-03", "2003-03-05", limit=2))
    assert len(capped["items"]) == 2 and "more episodes exist" in capped["note"]


def test_get_signals_puts_rework_first_and_groups_by_pattern() -> None:
    store = MemoryStore()
    for i, (kind, pattern, severity) in enumerate(
        [
            ("focus_block", None, 90.0),
            ("rework", "error_retry", 2.0),
            ("rework", "error_retry", 3.0),
            ("forced_rollback", None, 1.0),
            ("late_night", None, 40.0),
        ]
    ):
        metrics: dict[str, str | float] = {"pattern": pattern} if pattern else {}
        store.signals.append(
            (
                USER.user_id,
                SignalRow(
                    signal_id=i + 1,
                    kind=kind,
                    scope=f"2003-03-0{3 + i % 2}",
                    day_local=date(2003, 3, 3 + i % 2),
                    ts_start=at(3 + i % 2, 10 + i),
                    ts_end=at(3 + i % 2, 11 + i),
                    severity=severity,
                    metrics=metrics,
                    evidence={"episode_ids": [100 + i], "cues": [f"cue {i}"]},
                ),
            )
        )
    result = dispatch_json(ctx(store), "get_signals", custom("2003-03-01", "2003-03-06"))
    assert list(result["patterns"])[:2] == ["rework:error_retry", "forced_rollback"]
    assert result["patterns"]["rework:error_retry"] == {
        "count": 2,
        "days": 2,
        "cues": ["cue 2", "cue 1"],  # in time order
    }
    assert [i["kind"] for i in result["items"]][:3] == ["rework", "rework", "forced_rollback"]
    assert result["items"][0]["severity"] == 3.0
    only = dispatch_json(
        ctx(store), "get_signals", custom("2003-03-01", "2003-03-06", kinds=["late_night"])
    )
    assert list(only["patterns"]) == ["late_night"]


def test_get_now_shows_the_open_sitting_and_the_last_closed_episode(layered: MemoryStore) -> None:
    c = ctx(layered, now=at(5, 9, 30))
    now = dispatch_json(c, "get_now", {})
    assert [i["app"] for i in now["items"]] == ["Slack", "Slack"]
    assert now["items"][0]["at"] == "2003-03-05 09:05"
    assert now["current_sitting"] == {
        "since": "2003-03-05 09:00",
        "minutes": 30,
        "main_app": "Slack",
        "note": "not closed into an episode yet",
    }
    assert now["last_episode"]["title"] == "YouTube"
    assert output_tokens(now) <= 300
    # No chat model configured: nothing waits, the summaries are written by rule.
    assert now["summaries"] == "no model configured"
    empty = dispatch_json(ctx(MemoryStore()), "get_now", {})
    assert empty["items"] == [] and empty["note"] == "no activity recorded yet"


def test_get_now_says_in_one_line_what_the_summaries_owe_on_the_days_that_failed() -> None:
    from dataclasses import replace

    from app.enrich.client import ModelClient

    store = MemoryStore()
    old, pending, failed, done = (
        episode(at(1, 9), 30),  # four days before the others: never out of view
        episode(at(5, 9), 30),
        episode(at(5, 10), 30),
        episode(at(5, 11), 30),
    )
    old.summary_status = "failed"
    old.updated_at = at(2, 0)
    failed.summary_status = "failed"
    failed.summary_reason = "wrong language: the episode's text is Chinese, the answer English"
    failed.updated_at = at(6, 0)
    done.summary_status = "done"
    store.episodes += [old, pending, failed, done]
    models = ModelClient(Settings(_env_file=None, llm_base_url="http://127.0.0.1:9/v1"))
    c = replace(ctx(store), models=models)
    now = dispatch_json(c, "get_now", {})
    days = f"{old.day_local}…{failed.day_local}"
    assert now["summaries"] == f"1 pending, 2 failed on {days} (last: wrong language)"
    assert output_tokens(now) <= 300
    # A month later the failures are still there to see: no window hides them.
    month_later = dispatch_json(replace(c, now=NOW + timedelta(days=30)), "get_now", {})
    assert month_later["summaries"] == now["summaries"]
    assert now["models"] == "chat qwen3-8b (configured, not reported)"
    for ep in (old, pending, failed):
        ep.summary_status = "done"
    assert "summaries" not in dispatch_json(c, "get_now", {})


def test_get_raw_is_narrow_by_construction(layered: MemoryStore) -> None:
    c = ctx(layered)
    wide = dispatch_json(
        c, "get_raw", {"ts_from": "2003-03-05T08:00:00Z", "ts_to": "2003-03-05T10:30:00Z"}
    )
    assert "at most a 2-hour window" in wide["error"]
    rows = dispatch_json(
        c, "get_raw", {"ts_from": "2003-03-05T08:00:00Z", "ts_to": "2003-03-05T10:00:00Z"}
    )
    assert [i["at"] for i in rows["items"]] == ["09:00:00", "09:05:00"]
    nobody = dispatch_json(
        c,
        "get_raw",
        {"ts_from": "2003-03-05T08:00:00Z", "ts_to": "2003-03-05T10:00:00Z", "device_id": "tv"},
    )
    assert "no records of device 'tv'" in nobody["error"]


def test_keyword_search_in_chinese_and_english_with_neighbours() -> None:
    store = MemoryStore()
    store.episodes += [
        episode(at(4, 9), 30, title="调试支付回调超时"),
        episode(at(4, 10), 20, title="Reading the payment callback docs"),
        episode(at(4, 11), 20, title="午饭", category="system"),
    ]
    c = ctx(store)
    zh = dispatch_json(c, "search_episodes", {"query": "支付回调"})
    assert zh["mode"] == "keyword" and [i["title"] for i in zh["items"]] == ["调试支付回调超时"]
    both = dispatch_json(
        c, "search_episodes", {"query": "callback 支付", "include_neighbors": True}
    )
    assert {i["title"] for i in both["items"]} == {
        "调试支付回调超时",
        "Reading the payment callback docs",
    }
    english = next(i for i in both["items"] if i["title"].startswith("Reading"))
    assert english["before"]["title"] == "调试支付回调超时"
    assert english["after"]["title"] == "午饭"
    assert "summary" not in english["after"]
    nothing = dispatch_json(c, "search_episodes", {"query": "!!!"})
    assert nothing["items"] == [] and "no searchable words" in nothing["note"]


def test_apply_label_asks_to_rebuild_exactly_the_days_it_touched() -> None:
    store = MemoryStore()
    ep = episode(at(4, 9), 30, category="entertainment", title="YouTube")
    store.episodes.append(ep)
    store.records += [
        record(
            at(4, 9), 600, app="Firefox", category="entertainment", episode_id=ep.line.episode_id
        ),
        record(
            at(4, 9, 10),
            600,
            app="Firefox",
            category="entertainment",
            episode_id=ep.line.episode_id,
        ),
        record(
            at(4, 9, 20),
            600,
            app="LockApp",
            category="system",
            idle=True,
            episode_id=ep.line.episode_id,
        ),
    ]
    c = ctx(store)
    done = dispatch_json(
        c,
        "apply_label",
        {"target": "episode", "id": ep.line.episode_id, "category": "study", "note": "a lecture"},
    )
    assert done == {"label_id": 1, "recomputed_days": ["2003-03-04"], "truncated": False}
    assert isinstance(c.rebuild, Rebuilds)
    assert c.rebuild.calls == [[("laptop", date(2003, 3, 4))]]
    assert [r.line.category for r in store.records] == ["study", "study", "system"]
    assert store.labels[0].old_value == "entertainment" and store.labels[0].note == "a lecture"
    missing = dispatch_json(
        c, "apply_label", {"target": "record", "id": 999_999, "category": "work"}
    )
    assert missing["error"] == "no record 999999"
    assert len(c.rebuild.calls) == 1


def test_tools_never_see_another_users_rows(layered: MemoryStore) -> None:
    c = ctx(layered, user=OTHER)
    assert dispatch_json(c, "query_stats", custom("2003-03-03", "2003-03-05"))["items"] == []
    assert dispatch_json(c, "get_episodes", custom("2003-03-03", "2003-03-05"))["items"] == []
    assert dispatch_json(c, "get_now", {})["items"] == []


def test_a_result_over_its_cap_is_cut_and_says_how_much() -> None:
    store = MemoryStore()
    long_title = "一个很长的标题 " * 12
    store.episodes += [
        episode(at(4, 5) + timedelta(minutes=i), 1, title=long_title) for i in range(400)
    ]
    result = dispatch_json(
        ctx(store), "get_episodes", custom("2003-03-04", "2003-03-04", limit=1000)
    )
    cap = REGISTRY["get_episodes"].cap_tokens
    assert result["truncated"] is True and output_tokens(result) <= cap
    assert result["omitted"] == 400 - len(result["items"]) and result["omitted"] > 0
