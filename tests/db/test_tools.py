"""The tool registry and its doors, on a real database."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.cli import main
from app.demo.sample import SampleData, generate_sample
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.rules.categories import CATEGORIES
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.timeutil import period_days, week_key
from app.tools import REGISTRY, ToolContext, dispatch_json
from app.tools.registry import output_tokens
from tests.fake_openai import FakeOpenAI
from tests.helpers import (
    NOW,
    SAMPLE_MONTH,
    Api,
    Preloaded,
    episodes_by_first_record,
    ingest_sample,
    load_golden,
    with_models,
)


def ctx_for(
    services: Services, user: UserContext, *, now: datetime = NOW, models: Any = None
) -> ToolContext:
    return dataclasses.replace(services.tool_context(user=user, now=now), models=models)


# -- query_stats on the sample month, across finalized digests, live episodes, open tail --


@pytest.fixture
def month(preloaded: Preloaded, conn: Any) -> tuple[SampleData, UserContext]:
    # Make the end of the month "recent": no digests for the last 12 days (live episodes),
    # and the last day's episodes not built yet (the open tail).
    conn.execute(
        "DELETE FROM digests WHERE (grain = 'day' AND scope_key >= '2003-03-20') "
        "OR grain = 'month' OR scope_key IN ('2003-W12', '2003-W13')"
    )
    conn.execute("DELETE FROM episodes WHERE day_local = '2003-03-31'")
    return preloaded.data, preloaded.user


def truth(data: SampleData, first: date, last: date) -> dict[str, int]:
    out: dict[str, int] = defaultdict(int)
    for (day, category), seconds in data.seconds.items():
        if first <= day <= last:
            out[category] += seconds
    return {k: v for k, v in out.items() if v}


def stats(ctx: ToolContext, first: date, last: date) -> dict[str, Any]:
    return dispatch_json(
        ctx,
        "query_stats",
        {"period": "custom", "date_from": first.isoformat(), "date_to": last.isoformat()},
    )


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_query_stats_equals_ground_truth_for_every_day_week_month_and_straddling_range(
    services: Services, month: tuple[SampleData, UserContext]
) -> None:
    data, user = month
    ctx = ctx_for(services, user)
    ranges = [(d, d) for d in data.days]
    ranges += [period_days("week", k) for k in sorted({week_key(d) for d in data.days})]
    ranges += [
        (date(2003, 3, 1), date(2003, 3, 31)),
        (date(2003, 3, 15), date(2003, 3, 25)),
        (date(2003, 3, 5), date(2003, 3, 31)),
        (date(2003, 3, 30), date(2003, 3, 31)),
    ]
    sources = set()
    for first, last in ranges:
        first, last = max(first, date(2003, 3, 1)), min(last, date(2003, 3, 31))
        result = stats(ctx, first, last)
        got = {i["category"]: i["seconds"] for i in result["items"]}
        assert got == truth(data, first, last), (first, last, result["source"])
        assert result["total_seconds"] == sum(got.values())
        sources.add(result["source"])
    assert sources == {"digest", "live", "mixed"}


@pytest.mark.preloaded(SAMPLE_MONTH)
def test_query_stats_periods_resolve_in_the_users_clock(
    services: Services, month: tuple[SampleData, UserContext]
) -> None:
    data, user = month
    # 2003-03-20 02:00 local is still the logical day 2003-03-19 (cut hour 04:00).
    ctx = ctx_for(services, user, now=datetime(2003, 3, 19, 18, 0, tzinfo=UTC))
    today = dispatch_json(ctx, "query_stats", {"period": "today"})
    assert (today["from"], today["to"]) == ("2003-03-19", "2003-03-19")
    this_month = dispatch_json(
        ctx, "query_stats", {"period": "this_month", "category": "entertainment"}
    )
    assert (
        this_month["items"][0]["seconds"]
        == truth(data, date(2003, 3, 1), date(2003, 3, 19))["entertainment"]
    )
    last_week = dispatch_json(ctx, "query_stats", {"period": "last_week"})
    assert (last_week["from"], last_week["to"]) == ("2003-03-10", "2003-03-16")


def test_query_stats_answers_the_month_question_in_a_few_hundred_tokens(
    services: Services, golden_day: dict[str, Any]
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    ctx = ctx_for(services, api.user, now=datetime(2003, 3, 20, tzinfo=UTC))
    result = dispatch_json(
        ctx, "query_stats", {"period": "this_month", "category": "entertainment"}
    )
    assert result["items"] == [{"category": "entertainment", "seconds": 6810, "hours": 1.89}]
    assert output_tokens(result) <= 200
    apps = dispatch_json(
        ctx, "query_stats", {"period": "this_month", "metric": "seconds_by_app", "top_n": 2}
    )
    assert [i["app"] for i in apps["items"]] == ["Google Chrome", "Visual Studio Code"]
    counts = dispatch_json(ctx, "query_stats", {"period": "this_month", "metric": "signal_counts"})
    assert {"kind": "forced_rollback", "count": 2} in counts["items"]


# -- the other tools on the golden day --------------------------------------------------


@pytest.fixture
def golden(services: Services, golden_day: dict[str, Any]) -> Api:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    return api


def test_get_now_shows_the_latest_records_and_the_last_episode(
    services: Services, golden: Api
) -> None:
    ctx = ctx_for(services, golden.user, now=datetime(2003, 3, 12, 14, 5, tzinfo=UTC))  # 22:05
    result = dispatch_json(ctx, "get_now", {})
    # Canonical app names: the phone's 锁屏 is the one "Lock screen" of every platform.
    assert [i["app"] for i in result["items"]] == ["Lock screen", "抖音", "Steam"]
    assert result["last_episode"]["title"] == "抖音 · 推荐"  # 22:00-22:02 on the phone
    assert output_tokens(result) <= 300


def test_get_now_is_right_while_the_sitting_has_no_episode_yet(
    services: Services, golden_day: dict[str, Any], conn: Any
) -> None:
    api = load_golden(services, golden_day)
    backfill(services.store, now=NOW, settings=services.settings)
    # As at 15:25: the laptop's episodes from 13:00 local on are not built yet (its
    # watermark is the last episode before them).
    conn.execute(
        "DELETE FROM episodes WHERE device_id = 'laptop' AND ts_start >= '2003-03-12T05:00:00Z'"
    )
    ctx = ctx_for(services, api.user, now=datetime(2003, 3, 12, 7, 25, tzinfo=UTC))  # 15:25
    result = dispatch_json(ctx, "get_now", {})
    # The newest record is the redacted incognito window: its title never left ingest.
    assert (result["items"][0]["app"], result["items"][0]["title"]) == ("Google Chrome", "")
    assert result["current_sitting"]["since"] == "2003-03-12 13:00"
    assert result["last_episode"]["title"] == "空闲/锁屏 · idle or locked"


def test_get_digest_and_the_unbuilt_case(services: Services, golden: Api, conn: Any) -> None:
    ctx = ctx_for(services, golden.user)
    built = dispatch_json(ctx, "get_digest", {"grain": "day", "date": "2003-03-12"})
    assert built["available"] and built["metrics"]["episodes"] == 17
    assert built["metrics"]["hours_by_category"]["work"] == 4.66
    conn.execute("DELETE FROM digests WHERE grain = 'week'")
    missing = dispatch_json(ctx, "get_digest", {"grain": "week", "date": "2003-03-12"})
    assert missing["available"] is False and missing["source"] == "live"
    assert missing["metrics"]["hours_by_category"]["work"] == round((16770 + 600) / 3600, 2)
    bad = dispatch_json(ctx, "get_digest", {"grain": "day", "date": "12/03/2003"})
    assert "YYYY-MM-DD" in bad["error"]


def test_get_episodes_lists_one_liners_newest_first(services: Services, golden: Api) -> None:
    ctx = ctx_for(services, golden.user)
    result = dispatch_json(
        ctx,
        "get_episodes",
        {"period": "custom", "date_from": "2003-03-12", "date_to": "2003-03-12"},
    )
    assert len(result["items"]) == 17
    assert result["items"][0]["when"] == "03-13 03:50–03:59"
    work = dispatch_json(
        ctx,
        "get_episodes",
        {
            "period": "custom",
            "date_from": "2003-03-12",
            "date_to": "2003-03-12",
            "category": "study",
        },
    )
    assert [i["title"] for i in work["items"]] == [
        "arxiv.org · EM-LLM: Human-like Episodic Memory for Infinite Context LLMs - arXiv"
    ]


def test_get_episodes_keeps_the_newest_when_it_must_cut(
    services: Services, golden: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    spec = REGISTRY["get_episodes"]
    monkeypatch.setitem(REGISTRY, "get_episodes", dataclasses.replace(spec, cap_tokens=300))
    ctx = ctx_for(services, golden.user)
    result = dispatch_json(
        ctx,
        "get_episodes",
        {"period": "custom", "date_from": "2003-03-12", "date_to": "2003-03-12"},
    )
    assert result["truncated"] and result["omitted"] > 0
    assert result["items"][0]["when"] == "03-13 03:50–03:59"
    assert output_tokens(result) <= 300


def test_get_signals_puts_rework_first_with_evidence(services: Services, golden: Api) -> None:
    ctx = ctx_for(services, golden.user, now=datetime(2003, 3, 14, tzinfo=UTC))
    result = dispatch_json(ctx, "get_signals", {"period": "this_week"})
    assert result["patterns"]["forced_rollback"] == {
        "count": 2,
        "days": 1,
        "cues": ["git reset --hard", "git revert"],
    }
    assert list(result["patterns"])[:2] == ["forced_rollback", "rework:error_retry"]
    assert result["items"][0]["kind"] in ("forced_rollback", "rework")
    assert all(i["episode_ids"] for i in result["items"] if i["kind"] != "idle_gap")
    assert len(result["items"]) == 12 and "more" not in result  # the golden day has 12
    five = dispatch_json(ctx, "get_signals", {"period": "this_week", "limit": 5})
    assert len(five["items"]) == 5 and five["more"] == 7
    only = dispatch_json(ctx, "get_signals", {"period": "this_week", "kinds": ["rework"]})
    assert set(only["patterns"]) == {"rework:error_retry"} and len(only["items"]) == 1
    assert output_tokens(result) <= 2_000


def test_get_raw_refuses_wide_windows_and_reads_narrow_ones(
    services: Services, golden: Api
) -> None:
    ctx = ctx_for(services, golden.user)
    wide = dispatch_json(
        ctx, "get_raw", {"ts_from": "2003-03-12T00:00:00Z", "ts_to": "2003-03-12T03:00:00Z"}
    )
    assert "get_episodes" in wide["error"]
    narrow = dispatch_json(
        ctx,
        "get_raw",
        {"ts_from": "2003-03-12T02:00:00Z", "ts_to": "2003-03-12T03:00:00Z", "device_id": "laptop"},
    )
    assert [i["at"] for i in narrow["items"]] == ["10:05:00", "10:08:00", "10:30:00", "10:31:00"]


def test_search_finds_episodes_by_chinese_and_english_keywords(
    services: Services, golden: Api
) -> None:
    ctx = ctx_for(services, golden.user)
    for query, title in [
        ("每周同步会", "Zoom · 每周同步会"),
        ("同步", "Zoom · 每周同步会"),
        ("invoice", "Preview · invoice.pdf"),
        (
            "Episodic Memory",
            "arxiv.org · EM-LLM: Human-like Episodic Memory for Infinite Context LLMs - arXiv",
        ),
    ]:
        result = dispatch_json(ctx, "search_episodes", {"query": query})
        assert result["mode"] == "keyword"
        assert result["items"] and result["items"][0]["title"] == title, query


def test_search_by_paraphrase_with_embeddings_and_true_neighbours(
    services: Services, golden: Api, conn: Any
) -> None:
    with FakeOpenAI() as fake:
        services2, models = with_models(services, fake)
        enrich(services2.store, models, settings=services2.settings, now=NOW)
        ctx = ctx_for(services2, golden.user, models=models)
        result = dispatch_json(
            ctx, "search_episodes", {"query": "读论文", "include_neighbors": True}
        )
    assert result["mode"] == "hybrid"
    top = result["items"][0]
    episodes = episodes_by_first_record(conn)
    assert top["id"] == episodes["g16"]["episode_id"]  # the arXiv paper, no shared word
    assert top["before"]["id"] == episodes["g15"]["episode_id"]
    assert top["after"]["id"] == episodes["g17"]["episode_id"]


def test_apply_label_is_audited_and_recomputes_the_day(
    services: Services, golden: Api, conn: Any
) -> None:
    ctx = ctx_for(services, golden.user)
    invoice = episodes_by_first_record(conn)["g17"]["episode_id"]
    result = dispatch_json(
        ctx,
        "apply_label",
        {"target": "episode", "id": invoice, "category": "work", "note": "invoices are work"},
    )
    assert result["recomputed_days"] == ["2003-03-12"]
    day = stats(ctx, date(2003, 3, 12), date(2003, 3, 12))
    got = {i["category"]: i["seconds"] for i in day["items"]}
    assert got["work"] == 16770 + 1800 and got["uncategorized"] == 90
    label = conn.execute("SELECT target_kind, old_value, new_value, note FROM labels").fetchone()
    assert label == {
        "target_kind": "episode",
        "old_value": "uncategorized",
        "new_value": "work",
        "note": "invoices are work",
    }
    missing = dispatch_json(
        ctx, "apply_label", {"target": "record", "id": 999_999, "category": "work"}
    )
    assert "no record 999999" in missing["error"]


# -- the registry and its doors ------------------------------------------------------------


def test_dispatch_never_raises_and_says_how_to_fix(services: Services, golden: Api) -> None:
    ctx = ctx_for(services, golden.user)
    assert "unknown tool" in dispatch_json(ctx, "drop_tables", {})["error"]
    bad = dispatch_json(ctx, "query_stats", {"period": "someday"})
    assert "period" in bad["error"] and bad["hint"]
    assert "custom" in dispatch_json(ctx, "query_stats", {"period": "custom"})["error"]
    assert "JSON object" in dispatch_json(ctx, "get_now", ["x"])["error"]  # type: ignore[arg-type]


def test_tools_over_http(services: Services, golden: Api) -> None:
    listed = golden.client.get("/api/v1/tools", headers=golden.auth).json()
    assert {t["name"] for t in listed} == set(REGISTRY)
    ok = golden.post(
        "/api/v1/tools/query_stats",
        {"period": "custom", "date_from": "2003-03-12", "date_to": "2003-03-12"},
    )
    assert ok.status_code == 200 and ok.json()["total_seconds"] == 37800
    assert golden.post("/api/v1/tools/query_stats", {"period": 3}).status_code == 422
    assert golden.post("/api/v1/tools/nope", {}).status_code == 404
    # curl -d sends a form content type: the JSON is read all the same; no body means {}.
    plain = golden.client.post(
        "/api/v1/tools/get_signals",
        content=b'{"period": "this_week"}',
        headers={**golden.auth, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert plain.status_code == 200 and "patterns" in plain.json()
    assert golden.client.post("/api/v1/tools/get_now", headers=golden.auth).status_code == 200
    broken = golden.client.post("/api/v1/tools/get_now", content=b"{oops", headers=golden.auth)
    assert broken.status_code == 422 and "not valid JSON" in broken.json()["error"]


def test_tools_from_the_cli(db_url: str, tmp_path: Path, golden: Api) -> None:
    result = CliRunner().invoke(
        main,
        [
            "tool",
            "query_stats",
            "--user",
            "tester",
            "--period",
            "custom",
            "--date-from",
            "2003-03-12",
            "--date_to",
            "2003-03-12",
            "--category",
            "study",
        ],
        env={"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["items"] == [
        {"category": "study", "seconds": 4500, "hours": 1.25}
    ]


# -- caps by construction ------------------------------------------------------------------

DAYS = st.dates(min_value=date(2003, 3, 1), max_value=date(2003, 3, 20))
CALLS = st.one_of(
    st.builds(
        lambda p, a, b, m, c: (
            "query_stats",
            {
                "period": p,
                "date_from": min(a, b).isoformat(),
                "date_to": max(a, b).isoformat(),
                "metric": m,
                **({"category": c} if c and m == "seconds_by_category" else {}),
            },
        ),
        st.sampled_from(["today", "yesterday", "this_week", "last_week", "this_month", "custom"]),
        DAYS,
        DAYS,
        st.sampled_from(
            [
                "seconds_by_category",
                "seconds_by_app",
                "episode_count",
                "active_seconds",
                "top_titles",
                "signal_counts",
            ]
        ),
        st.one_of(st.none(), st.sampled_from(CATEGORIES)),
    ),
    st.builds(
        lambda a, b: (
            "get_episodes",
            {
                "period": "custom",
                "date_from": min(a, b).isoformat(),
                "date_to": max(a, b).isoformat(),
            },
        ),
        DAYS,
        DAYS,
    ),
    st.builds(
        lambda a, b: (
            "get_signals",
            {
                "period": "custom",
                "date_from": min(a, b).isoformat(),
                "date_to": max(a, b).isoformat(),
            },
        ),
        DAYS,
        DAYS,
    ),
    st.builds(
        lambda g, d: ("get_digest", {"grain": g, "date": d.isoformat()}),
        st.sampled_from(["day", "week", "month", "latest"]),
        DAYS,
    ),
    st.builds(
        lambda q, n: ("search_episodes", {"query": q, "include_neighbors": n, "k": 30}),
        st.text(min_size=1, max_size=30).filter(lambda s: s.strip()),
        st.booleans(),
    ),
    st.builds(
        lambda d, h, m: (
            "get_raw",
            {
                "ts_from": datetime(d.year, d.month, d.day, h, tzinfo=UTC).isoformat(),
                "ts_to": (
                    datetime(d.year, d.month, d.day, h, tzinfo=UTC) + timedelta(minutes=m)
                ).isoformat(),
            },
        ),
        DAYS,
        st.integers(0, 22),
        st.integers(1, 120),
    ),
    st.just(("get_now", {"records": 3})),
)


@pytest.mark.slow
def test_no_tool_ever_exceeds_its_cap(services: Services, conn: Any) -> None:
    data = generate_sample(start=date(2003, 3, 1), days=20, seed=4, mean_record_s=6)
    user = ingest_sample(services, data)
    backfill(services.store, now=NOW, settings=services.settings)
    times = [datetime(2003, 3, 20, tzinfo=UTC), datetime(2003, 3, 5, 3, tzinfo=UTC)]

    @settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(CALLS, st.sampled_from(times))
    def check(call: tuple[str, dict[str, Any]], now: datetime) -> None:
        name, args = call
        result = dispatch_json(ctx_for(services, user, now=now), name, args)
        assert output_tokens(result) <= REGISTRY[name].cap_tokens, (name, args)
        assert "error" in result or "truncated" in result

    check()
