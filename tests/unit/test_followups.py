"""Follow-ups keep their context in both languages: a question that names only a period
or a thing reuses the previous turn's tool and arguments and changes only what it names
(tests/db/test_followups_doors.py carries them through both doors)."""

from __future__ import annotations

from datetime import date

import pytest

from app.agent.followups import effective_question, is_followup
from app.agent.intents import parse_intent

TODAY = date(2026, 6, 17)


@pytest.mark.parametrize(
    ("earlier", "question", "meant"),
    [
        (["上周娱乐花了多少小时？"], "那上个月呢？", "上个月娱乐花了多少小时？"),
        (["昨天YouTube看了多久"], "那B站呢", "昨天B站看了多久"),
        (["上周工作了多久"], "学习呢", "上周学习了多久"),
        (["我上次用Zoom是什么时候"], "那飞书呢？", "我上次用飞书是什么时候"),
        (["这周Steam玩了多久", "那昨天呢"], "上周呢？", "上周Steam玩了多久"),
        (
            ["how many hours of entertainment last week?"],
            "and last month?",
            "how many hours of entertainment last month?",
        ),
        (
            ["how long was I in Zoom yesterday"],
            "what about Slack?",
            "how long was I in Slack yesterday",
        ),
        (
            ["compare Slack and Zoom yesterday"],
            "and last week?",
            "compare Slack and Zoom last week",
        ),
        (["when did I last use Steam"], "what about Spotify?", "when did I last use Spotify"),
    ],
)
def test_a_follow_up_is_the_previous_question_with_what_it_names_swapped(
    earlier: list[str], question: str, meant: str
) -> None:
    assert is_followup(question, today=TODAY)
    assert effective_question(question, earlier, today=TODAY) == meant


def test_a_follow_up_keeps_the_tool_and_changes_only_the_period() -> None:
    first = parse_intent("上周娱乐花了多少小时？", today=TODAY)
    then = parse_intent(
        effective_question("那上个月呢？", ["上周娱乐花了多少小时？"], today=TODAY), today=TODAY
    )
    assert (then.tool, then.arguments) == (first.tool, {**first.arguments, "period": "last_month"})


def test_a_question_of_its_own_is_no_follow_up() -> None:
    for question in (
        "那昨天工作了多少小时？",
        "and how many hours of study yesterday?",
        "上周呢 哪几天玩了Steam",
    ):
        assert not is_followup(question, today=TODAY)
        assert effective_question(question, ["上周娱乐花了多少小时？"], today=TODAY) == question
