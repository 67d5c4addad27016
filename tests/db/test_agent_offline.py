"""The offline answerer (no model at all) on the sample month: which tool each question
goes to, with which arguments, and numbers equal to the generator's exact truth
(hours by category, planted rework) or to SQL over the records layer (apps,
active time, episode counts, signals)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.agent.offline import answer_offline
from app.agent.wording import category_label
from app.db.connection import connect
from app.text import has_cjk
from app.tools import ToolError
from app.tools.registry import dump
from app.tools.search import SearchResult
from tests.agent_month import NOW, Month, month_fixture

TODAY = date(2003, 3, 31)  # NOW's logical day, a Monday
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))


month = month_fixture()


class Truth:
    """Exact answers: the generator's plan, or SQL over the records layer."""

    def __init__(self, month: Month) -> None:
        self.month = month
        self.conn = connect(month.services.url, settings=month.services.settings)

    def category_seconds(self, first: date, last: date, category: str) -> int:
        return sum(
            s
            for (d, c), s in self.month.data.seconds.items()
            if first <= d <= last and c == category
        )

    def _sql(self, expression: str, table: str, where: str, *params: Any) -> int:
        """`expression` over the user's rows of `table` that match `where`."""
        query = f"SELECT {expression} AS n FROM {table} WHERE user_id = %s AND {where}"
        row = self.conn.execute(query, [self.month.user.user_id, *params]).fetchone()
        return round(row["n"] or 0)

    def _durations(self, where: str, *params: Any) -> int:
        return self._sql("sum(duration_s)", "v_record_durations", where, *params)

    def app_seconds(self, first: date, last: date, app: str) -> int:
        return self._durations("day_local BETWEEN %s AND %s AND app = %s", first, last, app)

    def active_seconds(self, first: date, last: date) -> int:
        return self._durations("day_local BETWEEN %s AND %s AND NOT is_idle", first, last)

    def episodes(self, first: date, last: date) -> int:
        where = "day_local BETWEEN %s AND %s AND closed AND NOT stale"
        return self._sql("count(*)", "episodes", where, first, last)

    def records_between(self, start: str, end: str) -> int:
        where = "deleted_at IS NULL AND ts_start >= %s AND ts_start < %s"
        return self._sql("count(*)", "records", where, start, end)

    def signals(self, first: date, last: date, kind: str) -> int:
        where = "day_local BETWEEN %s AND %s AND kind = %s"
        return self._sql("count(*)", "signals", where, first, last, kind)

    def signal_days(self, first: date, last: date, kind: str) -> int:
        where = "day_local BETWEEN %s AND %s AND kind = %s"
        return self._sql("count(DISTINCT day_local)", "signals", where, first, last, kind)


@pytest.fixture(scope="module")
def truth(month: Month) -> Iterator[Truth]:
    known = Truth(month)
    yield known
    known.conn.close()


def hours(seconds: float) -> str:
    return str(round(seconds / 3600, 2))


def said_plainly(text: str) -> bool:
    """No raw seconds and no tool names in an answer."""
    return "秒" not in text and " s)" not in text and "query_stats" not in text


def day(n: int) -> date:
    return date(2003, 3, n)


def custom(first: date, last: date | None = None) -> dict[str, str]:
    return {
        "period": "custom",
        "date_from": first.isoformat(),
        "date_to": (last or first).isoformat(),
    }


def category(first: date, last: date, name: str) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        seconds = truth.category_seconds(first, last, name)
        assert result["items"] == [
            {"category": name, "seconds": seconds, "hours": round(seconds / 3600, 2)}
        ]
        assert f"{hours(seconds)} " in text and said_plainly(text)

    return check


def all_categories(first: date, last: date) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        for item in result["items"]:
            assert item["seconds"] == truth.category_seconds(first, last, item["category"])
            assert f"{item['hours']} " in text
        assert len(result["items"]) == 6

    return check


def app(first: date, last: date, name: str) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        seconds = truth.app_seconds(first, last, name)
        assert [(i["app"], i["seconds"]) for i in result["items"]][:1] == [(name, seconds)]
        assert name in text and f"{hours(seconds)} " in text and said_plainly(text)

    return check


def top_apps(first: date, last: date) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        shown = result["items"][:3]
        assert len(shown) == 3
        for item in shown:
            assert item["seconds"] == truth.app_seconds(first, last, item["app"])
            assert f"{item['app']} " in text and f"{item['hours']} " in text

    return check


def active(first: date, last: date) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        seconds = truth.active_seconds(first, last)
        assert result["value"] == seconds and f"{hours(seconds)} " in text

    return check


def episode_count(first: date, last: date) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        count = truth.episodes(first, last)
        assert result["value"] == count and f"{count} " in text

    return check


def episodes_of(first: date) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        count = truth.episodes(first, first)
        assert f"{count} " in text
        assert f"#{result['items'][0]['id']} " in text

    return check


def signal_count(first: date, last: date, kind: str, label: str) -> Any:
    """A behaviour counted, with the days it fell on ("how many late nights" is asked of
    nights as often as of times)."""

    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        count, days = truth.signals(first, last, kind), truth.signal_days(first, last, kind)
        assert sum(p["count"] for p in result["patterns"].values()) == count
        if count:
            assert f"{label} {count} 次" in text or f"{label}: {count} times" in text, text
            assert f"{days} 天" in text or f"on {days} day" in text, text

    return check


def planted_rework(truth: Truth, text: str, result: dict[str, Any]) -> None:
    """The habits answer: each planted kind of rework, counted and dated as planted."""
    planted = truth.month.data.rework
    rollbacks = [p for p in planted if p.kind == "forced_rollback"]
    undo = [p for p in planted if p.kind == "undo_storm"]
    retry_days = {p.day for p in planted if p.kind == "error_retry"}
    zh = has_cjk(text)
    expected = [
        ("强制回滚", "forced rollback", len(rollbacks), len({p.day for p in rollbacks})),
        ("返工（连续撤销）", "rework (undo storm)", len(undo), len({p.day for p in undo})),
    ]
    for label_zh, label_en, count, days in expected:
        assert (
            f"{label_zh} {count} 次，分布在 {days} 天" in text
            if zh
            else f"{label_en}: {count} times on {days} days" in text
        ), text
    retry = result["patterns"]["rework:error_retry"]
    assert retry["days"] == len(retry_days)
    assert "#" in text  # evidence episodes are cited


def latest_record(truth: Truth, text: str, result: dict[str, Any]) -> None:
    latest = max(truth.month.data.records, key=lambda r: (r.ts_start, r.device_id))
    app = truth.month.services.rules.apps.canonical(latest.app)  # stored under its one name
    assert result["items"][0]["app"] == app
    assert app in text and latest.window_title in text


def search_hits(word: str) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        assert result["items"], result
        newest = max(result["items"], key=lambda i: i["when"])
        assert f"#{newest['id']}" in text
        # Found by its title, or by its summary (written by rule from its records' titles).
        assert all(
            word.casefold() in (i["title"] + (i.get("summary") or "")).casefold()
            for i in result["items"]
        )

    return check


def digest(first: date, last: date, grain: str) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        assert result["grain"] == grain
        for name, value in result["metrics"]["hours_by_category"].items():
            assert value == round(truth.category_seconds(first, last, name) / 3600, 2)
            label = category_label(name, "zh" if has_cjk(text) else "en")
            assert f"{label} " in text and f"{value} " in text
        assert f"{result['metrics']['episodes']} " in text
        assert result["metrics"]["episodes"] == truth.episodes(first, last)

    return check


def signals_listed(first: date, last: date, kind: str) -> Any:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        count = truth.signals(first, last, kind)
        assert sum(p["count"] for p in result["patterns"].values()) == count
        assert f"{count} " in text

    return check


def moment(truth: Truth, text: str, result: dict[str, Any]) -> None:
    """The record covering 14:30 comes first, and the answer names it."""
    covering = [i["covering"] for i in result["items"] if i.get("covering")]
    assert covering, result
    assert all(c["from"] <= "2003-03-12 14:30" for c in covering)
    assert "2003-03-12 14:30" in text and covering[0]["app"] in text


def thing_app(first: date, last: date, name: str) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        seconds = truth.app_seconds(first, last, name)
        thing = result["thing"]
        assert name == thing["name"] or name in thing.get("apps", []), thing
        assert result["seconds"] == seconds
        assert f"{hours(seconds)} " in text.split("：")[0].split(" on ")[0] and said_plainly(text)

    return check


def last_seen_of(app_or_site: str) -> Callable[[Truth, str, dict[str, Any]], None]:
    def check(truth: Truth, text: str, result: dict[str, Any]) -> None:
        assert result["found"] and result["at"] in text, (result, text)

    return check


def top_titles(truth: Truth, text: str, result: dict[str, Any]) -> None:
    assert len(result["items"]) >= 3
    for item in result["items"][:3]:
        assert f"{item['title']}: " in text and f"{item['hours']} " in text


MONTH = (day(1), day(31))


@dataclass(frozen=True, slots=True)
class Case:
    question: str
    tool: str
    arguments: dict[str, Any]
    check: Callable[[Truth, str, dict[str, Any]], None]


def stats_args(metric: str, period: dict[str, str], **extra: Any) -> dict[str, Any]:
    return {"metric": metric, **period, **extra}


THIS_MONTH = {"period": "this_month"}
CASES = [
    Case("我现在在做什么？", "get_now", {}, latest_record),
    Case(
        "3月12日下午2点半我在看什么？",
        "get_moment",
        {"at": "2003-03-12T14:30:00+08:00"},
        moment,
    ),
    Case(
        "What was on my screen at 2:30 pm on March 12?",
        "get_moment",
        {"at": "2003-03-12T14:30:00+08:00"},
        moment,
    ),
    Case("what am I doing right now?", "get_now", {}, latest_record),
    Case(
        "这个月娱乐花了多少小时？",
        "query_stats",
        stats_args("seconds_by_category", THIS_MONTH, category="entertainment"),
        category(*MONTH, "entertainment"),
    ),
    Case(
        "How many hours of entertainment this month?",
        "query_stats",
        stats_args("seconds_by_category", THIS_MONTH, category="entertainment"),
        category(*MONTH, "entertainment"),
    ),
    Case(
        "写代码时哪些坏习惯导致返工或回滚？",
        "get_signals",
        {"period": "this_month", "kinds": ["rework", "forced_rollback"], "limit": 8},
        planted_rework,
    ),
    Case(
        "Which coding habits cause rework?",
        "get_signals",
        {"period": "this_month", "kinds": ["rework", "forced_rollback"], "limit": 8},
        planted_rework,
    ),
    Case(
        "上周工作了多久？",
        "query_stats",
        stats_args("seconds_by_category", {"period": "last_week"}, category="work"),
        category(*LAST_WEEK, "work"),
    ),
    Case(
        "How long did I study last week?",
        "query_stats",
        stats_args("seconds_by_category", {"period": "last_week"}, category="study"),
        category(*LAST_WEEK, "study"),
    ),
    Case(
        "昨天学习了多少小时？",
        "query_stats",
        stats_args("seconds_by_category", {"period": "yesterday"}, category="study"),
        category(day(30), day(30), "study"),
    ),
    Case(
        "How much time did I spend on social stuff yesterday?",
        "query_stats",
        stats_args("seconds_by_category", {"period": "yesterday"}, category="social"),
        category(day(30), day(30), "social"),
    ),
    Case(
        "3月12日沟通花了多少时间？",
        "query_stats",
        stats_args("seconds_by_category", custom(day(12)), category="social"),
        category(day(12), day(12), "social"),
    ),
    Case(
        "How many hours of work on March 12?",
        "query_stats",
        stats_args("seconds_by_category", custom(day(12)), category="work"),
        category(day(12), day(12), "work"),
    ),
    Case(
        "3月1日到3月7日娱乐一共多少小时？",
        "query_stats",
        stats_args("seconds_by_category", custom(day(1), day(7)), category="entertainment"),
        category(day(1), day(7), "entertainment"),
    ),
    Case(
        "How many hours of entertainment from March 1 to March 7?",
        "query_stats",
        stats_args("seconds_by_category", custom(day(1), day(7)), category="entertainment"),
        category(day(1), day(7), "entertainment"),
    ),
    Case(
        "过去7天各类别花了多少时间？",
        "query_stats",
        stats_args("seconds_by_category", custom(day(25), day(31))),
        all_categories(day(25), day(31)),
    ),
    Case(
        "How much time per category in the past 7 days?",
        "query_stats",
        stats_args("seconds_by_category", custom(day(25), day(31))),
        all_categories(day(25), day(31)),
    ),
    Case(
        "本周用了多少小时 Slack？",
        "query_stats",
        {"thing": "Slack", "period": "this_week"},
        thing_app(day(31), day(31), "Slack"),
    ),
    Case(
        "How many hours in Zoom last week?",
        "query_stats",
        {"thing": "Zoom", "period": "last_week"},
        thing_app(*LAST_WEEK, "Zoom"),
    ),
    Case(
        "这个月哪些应用用得最多？",
        "query_stats",
        stats_args("seconds_by_app", THIS_MONTH, top_n=10),
        top_apps(*MONTH),
    ),
    Case(
        "Which apps did I use most last week?",
        "query_stats",
        stats_args("seconds_by_app", {"period": "last_week"}, top_n=10),
        top_apps(*LAST_WEEK),
    ),
    Case(
        "今天一共活跃了多久？",
        "query_stats",
        stats_args("active_seconds", {"period": "today"}),
        active(day(31), day(31)),
    ),
    Case(
        "How many active hours did I have yesterday?",
        "query_stats",
        stats_args("active_seconds", {"period": "yesterday"}),
        active(day(30), day(30)),
    ),
    Case(
        "昨天有几段 episode？",
        "query_stats",
        stats_args("episode_count", {"period": "yesterday"}),
        episode_count(day(30), day(30)),
    ),
    Case(
        "How many episodes last week?",
        "query_stats",
        stats_args("episode_count", {"period": "last_week"}),
        episode_count(*LAST_WEEK),
    ),
    Case(
        "本月熬夜了几次？",
        "get_signals",
        {**THIS_MONTH, "kinds": ["late_night"], "limit": 8},
        signal_count(*MONTH, "late_night", "熬夜"),
    ),
    Case(
        "How many forced rollbacks this month?",
        "get_signals",
        {**THIS_MONTH, "kinds": ["forced_rollback"], "limit": 8},
        signal_count(*MONTH, "forced_rollback", "forced rollback"),
    ),
    Case(
        "上周频繁切换了几次？",
        "get_signals",
        {"period": "last_week", "kinds": ["context_switch_storm"], "limit": 8},
        signal_count(*LAST_WEEK, "context_switch_storm", "频繁切换"),
    ),
    Case(
        "昨天我做了什么？",
        "get_episodes",
        {"period": "yesterday", "limit": 60},
        episodes_of(day(30)),
    ),
    Case(
        "What did I do on March 12?",
        "get_episodes",
        {**custom(day(12)), "limit": 60},
        episodes_of(day(12)),
    ),
    Case(
        "上周三我在做什么？",
        "get_episodes",
        {**custom(day(26)), "limit": 60},
        episodes_of(day(26)),
    ),
    Case(
        "What was I doing last Friday?",
        "get_episodes",
        {**custom(day(28)), "limit": 60},
        episodes_of(day(28)),
    ),
    Case(
        "我上次看哔哩哔哩是什么时候？",
        "last_seen",
        {"thing": "哔哩哔哩"},
        last_seen_of("bilibili.com"),
    ),
    Case(
        "When did I last look at Coursera?",
        "last_seen",
        {"thing": "Coursera"},
        last_seen_of("coursera.org"),
    ),
    Case("找一下周报", "search_episodes", {"query": "周报", "k": 8}, search_hits("周报")),
    Case(
        "Search for arXiv papers",
        "search_episodes",
        {"query": "arXiv papers", "k": 8},
        search_hits("arXiv"),
    ),
    Case(
        "总结一下上周",
        "get_digest",
        {"grain": "week", "date": "2003-03-24"},
        digest(*LAST_WEEK, "week"),
    ),
    Case(
        "Summarize yesterday",
        "get_digest",
        {"grain": "day", "date": "2003-03-30"},
        digest(day(30), day(30), "day"),
    ),
    Case(
        "这个月过得怎么样？",
        "get_digest",
        {"grain": "month", "date": "2003-03-01"},
        digest(*MONTH, "month"),
    ),
    Case(
        "Give me a recap of March 12",
        "get_digest",
        {"grain": "day", "date": "2003-03-12"},
        digest(day(12), day(12), "day"),
    ),
    Case(
        "这周专注得怎么样？",
        "get_signals",
        {"period": "this_week", "kinds": ["focus_block"], "limit": 8},
        signals_listed(day(31), day(31), "focus_block"),
    ),
    Case(
        "Was I distracted last week?",
        "get_signals",
        {"period": "last_week", "kinds": ["distraction"], "limit": 8},
        signals_listed(*LAST_WEEK, "distraction"),
    ),
    Case(
        "今天抖音用了多久？",
        "query_stats",
        {"thing": "抖音", "period": "today"},
        thing_app(day(31), day(31), "抖音"),
    ),
    Case(
        "微信这个月用了多少小时？",
        "query_stats",
        {"thing": "微信", **THIS_MONTH},
        thing_app(*MONTH, "微信"),
    ),
    Case(
        "昨天时间最多的窗口标题有哪些？",
        "query_stats",
        stats_args("top_titles", {"period": "yesterday"}),
        top_titles,
    ),
]


def test_the_question_table_is_large_and_half_chinese() -> None:
    assert len(CASES) >= 40
    assert sum(has_cjk(c.question) for c in CASES) >= len(CASES) / 2
    assert {c.tool for c in CASES} == {
        "get_now",
        "get_moment",
        "last_seen",
        "query_stats",
        "get_digest",
        "get_episodes",
        "search_episodes",
        "get_signals",
    }


@pytest.mark.parametrize("case", CASES, ids=[c.question for c in CASES])
def test_offline_answer_calls_the_expected_tool_and_states_the_true_numbers(
    month: Month, truth: Truth, case: Case
) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    answer = answer_offline(ctx, case.question)
    assert (answer.intent.tool, answer.intent.arguments) == (case.tool, case.arguments)
    assert not isinstance(answer.result, ToolError), answer.result
    case.check(truth, answer.text, dump(answer.result))
    # Which tool answered is the reply's metadata, never the text.
    assert case.tool not in answer.text and "answered by" not in answer.text
    assert [call.tool for call in answer.calls] == [case.tool]


@pytest.mark.parametrize(
    ("question", "limit"),
    [
        ("我现在在做什么？", 300),
        ("what am I doing right now?", 300),
        ("这个月娱乐花了多少小时？", 200),
        ("How many hours of entertainment this month?", 200),
        ("写代码时哪些坏习惯导致返工或回滚？", 2_000),
        ("Which coding habits cause rework?", 2_000),
    ],
)
def test_the_three_target_questions_read_few_tokens_and_never_raw(
    month: Month, question: str, limit: int
) -> None:
    answer = answer_offline(month.services.tool_context(user=month.user, now=NOW), question)
    assert answer.tokens <= limit
    assert answer.intent.tool != "get_raw"


def test_a_question_without_a_recognised_intent_is_searched_for(month: Month) -> None:
    answer = answer_offline(month.services.tool_context(user=month.user, now=NOW), "Coursera")
    assert isinstance(answer.result, SearchResult) and answer.result.items
    assert answer.intent.tool == "search_episodes"


def test_an_empty_period_says_so_instead_of_inventing_numbers(month: Month) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    answer = answer_offline(ctx, "上个月娱乐花了多少小时？")  # February 2003: nothing recorded
    assert answer.intent.arguments["period"] == "last_month"
    assert answer.text.startswith("0 分钟 (0.0 h)：2003-02-01 至 2003-02-28，娱乐。")


def test_english_answers_name_categories_in_english(month: Month) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    text = answer_offline(ctx, "How many hours of study today?").text
    assert " of study " in text and not has_cjk(text)


def test_a_period_past_the_newest_record_says_there_is_no_data_after_it(month: Month) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW + timedelta(days=3))
    answer = answer_offline(ctx, "How many hours of entertainment today?")
    newest = max(month.data.records, key=lambda r: r.ts_start).ts_start
    local = f"{newest.astimezone(ZoneInfo(month.user.time_zone)):%Y-%m-%d %H:%M}"
    assert answer.text.startswith(f"I have no data after {local}.")
    answer = answer_offline(ctx, "今天B站看了多久？")
    assert answer.text.startswith(f"我没有 {local} 之后的数据。")


def test_a_name_the_data_never_held_is_never_zero_hours(month: Month) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    for question, said in (
        ("上周知乎看了多久？", "从来没有“知乎”"),
        ("How long was I in Photoshop last week?", "no app, site or category called “Photoshop”"),
        ("How long was I in Fotoshopp last week?", "no app, site or category called “Fotoshopp”"),
    ):
        text = answer_offline(ctx, question).text
        assert said in text and "0.0" not in text and " 0 " not in text, text
