"""The offline answerer's parsers, without a database: the period a question names (Chinese
and English) and the tool and arguments its words choose."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from app.agent.dates import find_period
from app.agent.intents import parse_intent

TODAY = date(2003, 3, 31)  # NOW's logical day, a Monday
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))


def day(n: int) -> date:
    return date(2003, 3, n)


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("今天", TODAY, TODAY),
        ("yesterday", TODAY - timedelta(days=1), TODAY - timedelta(days=1)),
        ("前天呢", TODAY - timedelta(days=2), TODAY - timedelta(days=2)),
        ("本周", TODAY, TODAY),
        ("上周", *LAST_WEEK),
        ("this month", day(1), TODAY),
        ("上个月", date(2003, 2, 1), date(2003, 2, 28)),
        ("last month", date(2003, 2, 1), date(2003, 2, 28)),
        ("过去7天", day(25), TODAY),
        ("最近三天", day(29), TODAY),
        ("past 10 days", day(22), TODAY),
        ("上周三", day(26), day(26)),
        ("周日", day(30), day(30)),
        ("last Wednesday", day(26), day(26)),
        ("on June 3", date(2002, 6, 3), date(2002, 6, 3)),  # a June not yet come: last year's
        ("3 March", day(3), day(3)),
        ("3月5日到3月9日", day(5), day(9)),
        ("2002年12月30日到1月2日", date(2002, 12, 30), date(2003, 1, 2)),
        ("2003-03-02", day(2), day(2)),
        ("今年", date(2003, 1, 1), TODAY),
    ],
)
def test_periods_named_in_chinese_and_english(question: str, first: date, last: date) -> None:
    found = find_period(question, today=TODAY)
    assert found is not None and (found.date_from, found.date_to) == (first, last)


def test_this_week_in_total_is_not_a_monday() -> None:
    found = find_period("这周一共工作多久", today=TODAY)
    assert found is not None and found.period == "this_week"


def test_no_period_named_is_none() -> None:
    assert find_period("我现在在做什么", today=TODAY) is None


def test_a_question_about_now_in_the_past_lists_episodes_instead() -> None:
    assert parse_intent("昨天这个时候我在做什么", today=TODAY).tool == "get_episodes"
    assert parse_intent("What was I doing yesterday?", today=TODAY).tool == "get_episodes"


def test_search_words_are_what_is_left_of_the_question() -> None:
    intent = parse_intent("找一下调试支付回调的那次", today=TODAY)
    assert intent.tool == "search_episodes"
    assert intent.arguments["query"] == "调试 试支 支付 付回 回调"


def test_when_did_i_last_asks_last_seen_with_the_words_people_use() -> None:
    intent = parse_intent("我上次调试支付回调是什么时候？", today=TODAY)
    assert (intent.tool, intent.arguments) == ("last_seen", {"thing": "调试支付回调"})


@pytest.mark.parametrize(
    ("question", "tool", "arguments"),
    [
        ("上周各类别分别花了多少时间", "query_stats", {"metric": "seconds_by_category"}),
        ("上周各个应用分别用了多久", "query_stats", {"metric": "seconds_by_app", "top_n": 10}),
        ("上周微信和飞书分别用了多久？", "compare", {"things": ["微信", "飞书"]}),
    ],
)
def test_fenbie_is_never_a_name(question: str, tool: str, arguments: dict[str, Any]) -> None:
    intent = parse_intent(question, today=TODAY)
    assert intent.tool == tool and arguments.items() <= intent.arguments.items()
    assert "分别" not in str(intent.arguments)
