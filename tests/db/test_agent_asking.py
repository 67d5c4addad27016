"""Asking as people type to a chatbot, on the sample month with no model: each
operation in both languages (share, average per day, top N apps and sites, days
without, which of two, yes/no thresholds, windows inside days, across midnight),
follow-ups that edit one part of the previous turn, and answers written plainly
(the answer first, minutes under an hour, no tool names, no raw seconds). Numbers
are checked against SQL over the records layer or the generator's exact plan."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from app.agent.offline import OfflineAnswer, answer_offline
from app.api import create_app
from app.db.connection import connect
from app.runtime.auth import hash_token, new_token
from app.text import has_cjk
from app.tools.reads import SignalsResult
from app.tools.recall import CompareResult
from app.tools.stats import SiteTime, StatsResult
from tests.agent_month import NOW, Month, month_fixture
from tests.helpers import events_of

month = month_fixture()

LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))
YESTERDAY = date(2003, 3, 30)
SOME_DAY = date(2003, 3, 20)  # a Thursday with work and play
NOW_DAY = date(2003, 3, 31)  # NOW's logical day


class Truth:
    """Exact answers: the generator's plan, or SQL over the records layer."""

    def __init__(self, month: Month) -> None:
        self.month = month
        self.zone = ZoneInfo(month.user.time_zone)
        self.conn = connect(month.services.url, settings=month.services.settings)

    def category(self, first: date, last: date, name: str) -> int:
        seconds = self.month.data.seconds
        return sum(s for (d, c), s in seconds.items() if first <= d <= last and c == name)

    def sql(self, where: str, *params: Any) -> int:
        row = self.conn.execute(
            "SELECT coalesce(sum(duration_s), 0) AS s FROM v_record_durations "
            f"WHERE user_id = %s AND {where}",
            [self.month.user.user_id, *params],
        ).fetchone()
        return round(row["s"])

    def active(self, first: date, last: date) -> int:
        return self.sql("day_local BETWEEN %s AND %s AND NOT is_idle", first, last)

    def top_apps(self, day: date, n: int) -> list[str]:
        rows = self.conn.execute(
            "SELECT app FROM v_record_durations WHERE user_id = %s AND day_local = %s "
            "AND NOT is_idle GROUP BY app ORDER BY sum(duration_s) DESC LIMIT %s",
            [self.month.user.user_id, day, n],
        ).fetchall()
        return [r["app"] for r in rows]

    def clipped(self, app: str | None, start: datetime, end: datetime) -> int:
        """Seconds of an app's records (or every active record) inside [start, end)."""
        where = "AND app = %s" if app else ""
        row = self.conn.execute(
            "SELECT coalesce(sum(GREATEST(0, EXTRACT(EPOCH FROM "
            "LEAST(ts_start + make_interval(secs => duration_s), %s) - GREATEST(ts_start, %s)"
            "))), 0) AS s FROM v_record_durations WHERE user_id = %s AND NOT is_idle "
            f"AND ts_start < %s AND ts_start + make_interval(secs => duration_s) > %s {where}",
            [end, start, self.month.user.user_id, end, start, *([app] if app else [])],
        ).fetchone()
        return round(row["s"])

    def at(self, day: date, hour: int) -> datetime:
        return datetime(day.year, day.month, day.day, tzinfo=self.zone) + timedelta(hours=hour)


@pytest.fixture(scope="module")
def truth(month: Month) -> Iterator[Truth]:
    known = Truth(month)
    yield known
    known.conn.close()


def ask(month: Month, question: str, earlier: Sequence[str] = ()) -> OfflineAnswer:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    answer = answer_offline(ctx, question, earlier=earlier)
    plain(answer.text)
    return answer


def plain(text: str) -> None:
    """No tool names, raw seconds or mixed-language labels in an answer."""
    for tool in ("query_stats", "days_with", "compare", "get_raw", "answered by", "由 "):
        assert tool not in text, text
    assert " s)" not in text and "秒" not in text, text
    assert "(工作)" not in text and "(娱乐)" not in text, text


def said_as(site: SiteTime, text: str) -> str:
    """A site as an answer names it: a Chinese label only in a Chinese answer."""
    return site.label if has_cjk(text) or not has_cjk(site.label) else site.site


def hours(seconds: float) -> str:
    return str(round(seconds / 3600, 2))


def percent(part: float, whole: float) -> str:
    return f"{round(part / whole * 100, 1):g}%"


# -- each operation, in both languages ---------------------------------------------------


@pytest.mark.parametrize(
    "question", ["what percent of 2003-03-20 was entertainment?", "2003-03-20 娱乐占比多少？"]
)
def test_a_share_is_the_things_time_over_active_time(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    fun = truth.category(SOME_DAY, SOME_DAY, "entertainment")
    active = truth.active(SOME_DAY, SOME_DAY)
    assert answer.text.startswith(percent(fun, active)), answer.text
    assert hours(fun) in answer.text and hours(active) in answer.text


@pytest.mark.parametrize(
    ("question", "zh"),
    [("average work hours a day last week", False), ("上周平均每天工作几个小时？", True)],
)
def test_an_average_divides_by_every_day_of_the_period(
    month: Month, truth: Truth, question: str, zh: bool
) -> None:
    answer = ask(month, question)
    work = truth.category(*LAST_WEEK, "work")
    assert hours(work / 7) in answer.text.split("：" if zh else ":")[0], answer.text
    assert ("平均" in answer.text) == zh and "7" in answer.text


@pytest.mark.parametrize("question", ["top 3 apps yesterday", "昨天用得最多的前3个应用"])
def test_top_n_apps_are_the_n_longest_in_order(month: Month, truth: Truth, question: str) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["limit"] == 3
    apps = truth.top_apps(YESTERDAY, 3)
    at = [answer.text.index(app) for app in apps]
    assert at == sorted(at) and answer.text.count("3.") == 1, answer.text


@pytest.mark.parametrize("question", ["top 3 sites last week", "上周看得最多的前3个网站"])
def test_top_n_sites_rank_sites_inside_browsers(month: Month, question: str) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["metric"] == "seconds_by_site"
    assert isinstance(answer.result, StatsResult) and answer.result.items
    sites = [i for i in answer.result.items if isinstance(i, SiteTime)][:3]
    assert len(sites) == 3
    at = [answer.text.index(said_as(site, answer.text)) for site in sites]
    assert at == sorted(at) and all(hours(s.seconds) in answer.text for s in sites)


@pytest.mark.parametrize(
    ("question", "zh"),
    [("which days last week did I not do any work?", False), ("上周哪几天没写代码？", True)],
)
def test_days_without_a_thing_are_the_days_under_a_minute(
    month: Month, truth: Truth, question: str, zh: bool
) -> None:
    answer = ask(month, question)
    days = [LAST_WEEK[0] + timedelta(days=k) for k in range(7)]
    without = [d for d in days if truth.category(d, d, "work") < 60]
    assert without, "the sample's weekends have no work"
    listed = answer.text.rsplit("：" if zh else ": ", 1)[1]
    for day in days:
        assert (day.isoformat() in listed) == (day in without), answer.text
    assert answer.text.startswith(f"{len(without)} {'天' if zh else 'day'}")


def test_a_question_with_no_period_says_the_default_it_used(month: Month, truth: Truth) -> None:
    answer = ask(month, "有没有哪天没写代码")
    first = NOW_DAY - timedelta(days=29)
    assert answer.intent.arguments["date_from"] == first.isoformat()
    assert "最近 30 天" in answer.text
    english = ask(month, "which days did I not do any work?")
    assert "the last 30 days" in english.text
    average = ask(month, "how much work on average per day?")
    assert "the last 7 days" in average.text


@pytest.mark.parametrize(
    "question",
    ["did I spend more on work or fun on 2003-03-20?", "2003-03-20 工作和娱乐哪个多？"],
)
def test_a_contest_names_both_sides_and_the_winner_first(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    work = truth.category(SOME_DAY, SOME_DAY, "work")
    fun = truth.category(SOME_DAY, SOME_DAY, "entertainment")
    winner = ("工作" if "工作" in question else "work") if work > fun else "entertainment"
    assert answer.text.startswith(winner), answer.text
    assert hours(work) in answer.text and hours(fun) in answer.text
    assert hours(abs(work - fun)) in answer.text


@pytest.mark.parametrize(
    ("question", "limit_h", "yes", "no"),
    [
        ("did I work more than 2 hours on 2003-03-20?", 2, "Yes", "No"),
        ("was I working for over 12 hours on 2003-03-20?", 12, "Yes", "No"),
        ("2003-03-20 工作超过2小时了吗？", 2, "是", "没有"),
        ("2003-03-20 工作超过12小时了吗？", 12, "是", "没有"),
    ],
)
def test_a_threshold_question_is_answered_yes_or_no_first(
    month: Month, truth: Truth, question: str, limit_h: int, yes: str, no: str
) -> None:
    answer = ask(month, question)
    work = truth.category(SOME_DAY, SOME_DAY, "work")
    assert answer.text.startswith(yes if work > limit_h * 3600 else no), answer.text
    assert hours(work) in answer.text


def test_under_an_hour_the_answer_is_in_minutes(month: Month, truth: Truth) -> None:
    answer = ask(month, "was I on Slack for under 2 hours on 2003-03-20?")
    slack = truth.sql("day_local = %s AND app = 'Slack'", SOME_DAY)
    assert 0 < slack < 3600, "the sample's Slack is under an hour that day"
    assert answer.text.startswith("Yes: ") and f"{round(slack / 60)} minutes" in answer.text
    assert "0." not in answer.text.split("(")[0]


def test_minutes_asked_for_are_given_in_minutes(month: Month, truth: Truth) -> None:
    answer = ask(month, "how many minutes on Slack yesterday?")
    slack = truth.sql("day_local = %s AND app = 'Slack'", YESTERDAY)
    assert answer.intent.arguments["thing"] in ("Slack", "slack.com")
    assert answer.text.startswith(f"{round(slack / 60)} minutes"), answer.text


# -- windows inside days -------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "how long was I in Slack between 2 and 4 pm on 2003-03-20?",
        "2003-03-20 下午2点到4点 Slack 用了多久？",
    ],
)
def test_a_window_inside_a_day_clips_the_things_records(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    assert (answer.intent.arguments["time_from"], answer.intent.arguments["time_to"]) == (
        "14:00",
        "16:00",
    )
    seconds = truth.clipped("Slack", truth.at(SOME_DAY, 14), truth.at(SOME_DAY, 16))
    assert isinstance(answer.result, StatsResult)
    assert abs((answer.result.seconds or 0) - seconds) <= 1
    assert f"{round(seconds / 60)} " in answer.text


@pytest.mark.parametrize(
    "question", ["what was I doing from 10 pm to 2 am yesterday?", "昨天晚上10点到凌晨2点在干嘛？"]
)
def test_a_window_across_midnight_belongs_to_the_day_it_starts(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    arguments = answer.intent.arguments
    assert (arguments["time_from"], arguments["time_to"]) == ("22:00", "02:00")
    start, end = truth.at(YESTERDAY, 22), truth.at(YESTERDAY, 26)
    total = truth.clipped(None, start, end)
    assert isinstance(answer.result, StatsResult)
    seconds = sum(getattr(i, "seconds", 0) for i in answer.result.items or [])
    assert abs(seconds - total) <= len(answer.result.items or []), (seconds, total)
    if total:
        top = max(answer.result.items or [], key=lambda i: getattr(i, "seconds", 0))
        assert getattr(top, "app", "") in answer.text


def test_after_a_clock_time_runs_to_the_end_of_the_logical_day(month: Month) -> None:
    answer = ask(month, "how long on YouTube after 10 pm yesterday?")
    cut = f"{month.user.day_cut_hour:02d}:00"
    assert (answer.intent.arguments["time_from"], answer.intent.arguments["time_to"]) == (
        "22:00",
        cut,
    )


# -- the lexicon ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("vx聊了多久昨天", "微信"),  # a nickname glued to a verb
        ("how long on Slak yesterday?", "Slack"),  # a typo
        ("昨天用了多久 VS Code", "Visual Studio Code"),  # mixed languages
        ("how many minutes did I spend in Slack yesterday", "Slack"),  # "minutes" is no name
    ],
)
def test_the_lexicon_finds_short_forms_typos_and_mixed_sentences(
    month: Month, question: str, thing: str
) -> None:
    answer = ask(month, question)
    assert isinstance(answer.result, StatsResult) and answer.result.thing is not None
    assert thing in (answer.result.thing.label, answer.result.thing.name), answer.result.thing


@pytest.mark.parametrize(
    "question", ["how long was I at the computer yesterday?", "昨天在电脑前多久？"]
)
def test_the_computer_means_active_time(month: Month, truth: Truth, question: str) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["metric"] == "active_seconds"
    assert hours(truth.active(YESTERDAY, YESTERDAY)) in answer.text


def test_words_that_are_no_names_are_not_made_into_one(month: Month) -> None:
    answer = ask(month, "how many hours was I on the day before yesterday doing stuff")
    assert "no app, site or category called" not in answer.text, answer.text


# -- follow-ups edit one part of the previous turn ----------------------------------------


def test_a_follow_up_naming_a_thing_keeps_the_period_and_the_language(month: Month) -> None:
    answer = ask(month, "Slack 呢", ["昨天微信用了多久？"])
    assert answer.intent.arguments["thing"] in ("Slack", "slack.com")
    assert answer.intent.arguments["period"] == "yesterday"
    assert "小时" in answer.text or "分钟" in answer.text


def test_the_day_before_moves_the_previous_period(month: Month) -> None:
    answer = ask(month, "the day before?", ["top 3 apps yesterday"])
    day = (YESTERDAY - timedelta(days=1)).isoformat()
    assert answer.intent.arguments["date_from"] == day and answer.intent.arguments["limit"] == 3
    week = ask(month, "那前一周", ["上周工作了多久？"])
    assert week.intent.arguments["date_from"] == "2003-03-17"
    assert week.intent.arguments["date_to"] == "2003-03-23"


def test_so_far_runs_the_previous_period_up_to_today(month: Month, truth: Truth) -> None:
    answer = ask(month, "and so far?", ["how long did I work in the week of 2003-03-24?"])
    assert answer.intent.arguments["date_from"] == "2003-03-24"
    assert answer.intent.arguments["date_to"] == NOW_DAY.isoformat()
    assert hours(truth.category(date(2003, 3, 24), NOW_DAY, "work")) in answer.text


def test_an_operation_follow_up_acts_on_the_things_already_named(
    month: Month, truth: Truth
) -> None:
    earlier = ["2003-03-20 工作和娱乐各多久？"]
    together = ask(month, "两个加起来", earlier)
    work = truth.category(SOME_DAY, SOME_DAY, "work")
    fun = truth.category(SOME_DAY, SOME_DAY, "entertainment")
    assert isinstance(together.result, CompareResult)
    assert together.text.startswith(f"合计 {hours(work + fun)}"), together.text
    longer = ask(month, "which of the two was longer?", ["work and fun on 2003-03-20?"])
    assert longer.text.startswith("work" if work > fun else "entertainment"), longer.text


# -- through the doors ---------------------------------------------------------------------


def _client(month: Month) -> tuple[TestClient, dict[str, str]]:
    token = new_token()
    month.services.store.add_token(
        user_id=month.user.user_id, token_hash=hash_token(token), name="asking"
    )
    return TestClient(create_app(services=month.services)), {"Authorization": f"Bearer {token}"}


def test_the_openai_door_carries_the_calls_and_the_text_carries_none(
    month: Month, truth: Truth
) -> None:
    client, headers = _client(month)
    messages = [
        {"role": "user", "content": "how long was I at the computer on 2003-03-20?"},
        {"role": "assistant", "content": "…"},
        {"role": "user", "content": "what percent of it was entertainment?"},
    ]
    reply = client.post(
        "/v1/chat/completions", json={"model": "timetrace", "messages": messages}, headers=headers
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    text = body["choices"][0]["message"]["content"]
    plain(text)
    assert body["timetrace"]["tools_called"][0] == "query_stats"
    fun = truth.category(SOME_DAY, SOME_DAY, "entertainment")
    assert text.startswith(percent(fun, truth.active(SOME_DAY, SOME_DAY))), text


def test_the_sse_chat_sends_a_step_for_every_call_of_a_planned_answer(month: Month) -> None:
    client, headers = _client(month)
    reply = client.post(
        "/api/v1/agent/chat",
        json={"question": "what percent of 2003-03-20 was I at the computer?"},
        headers=headers,
    )
    events = events_of(reply.text)
    calls = [e for kind, e in events if kind == "step" and e["phase"] == "call"]
    assert [c["arguments"]["metric"] for c in calls] == ["active_seconds", "active_seconds"]
    done = events[-1][1]
    assert done["tools_called"] == ["query_stats", "query_stats"]
    assert done["answer"].startswith("100%"), done["answer"]
    plain(done["answer"])


def test_both_after_a_swapped_thing_means_the_two_things(month: Month, truth: Truth) -> None:
    earlier = ["how long did I use Slack on 2003-03-20?", "and Zoom?"]
    answer = ask(month, "both together?", earlier)
    assert answer.intent.tool == "compare"
    assert sorted(answer.intent.arguments["things"]) == ["slack.com", "zoom.us"]
    slack = truth.sql("day_local = %s AND app = 'Slack'", SOME_DAY)
    zoom = truth.sql("day_local = %s AND app = 'Zoom'", SOME_DAY)
    assert hours(slack + zoom) in answer.text.split(" together")[0], answer.text


def test_a_follow_up_naming_a_window_swaps_the_window(month: Month) -> None:
    answer = ask(month, "晚上呢", ["昨天下午在干嘛"])
    arguments = answer.intent.arguments
    assert (arguments["time_from"], arguments["period"]) == ("18:00", "yesterday")
    assert answer.text.startswith("2003-03-30 18:00")


def test_and_sites_turns_a_ranking_of_apps_into_one_of_sites(month: Month) -> None:
    answer = ask(month, "and sites?", ["top 3 apps yesterday"])
    assert answer.intent.arguments == {
        "metric": "seconds_by_site",
        "period": "yesterday",
        "limit": 3,
    }


def test_two_things_named_get_each_amount_and_the_sum(month: Month, truth: Truth) -> None:
    answer = ask(month, "how much time on Slack and Zoom on 2003-03-20?")
    slack = truth.sql("day_local = %s AND app = 'Slack'", SOME_DAY)
    zoom = truth.sql("day_local = %s AND app = 'Zoom'", SOME_DAY)
    assert answer.intent.tool == "compare"
    assert hours(slack) in answer.text and hours(zoom) in answer.text
    assert f"{hours(slack + zoom)} hours together" in answer.text or (
        f"({hours(slack + zoom)} h) together" in answer.text
    )


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("what time did I start working on 2003-03-20?", True),
        ("2003-03-20 几点开始工作的？", True),
        ("when did I stop working on 2003-03-20?", False),
        ("2003-03-20 工作几点结束的？", False),
    ],
)
def test_when_a_thing_first_began_or_last_ended_in_a_day(
    month: Month, truth: Truth, question: str, first: bool
) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["category"] == "work"
    row = truth.conn.execute(
        "SELECT min(ts_start) AS a, max(ts_start + make_interval(secs => duration_s)) AS b "
        "FROM v_record_durations WHERE user_id = %s AND day_local = %s AND category = 'work' "
        "AND NOT is_idle",
        [month.user.user_id, SOME_DAY],
    ).fetchone()
    at = (row["a"] if first else row["b"]).astimezone(truth.zone)
    assert answer.text.startswith(f"{at:%H:%M}"), (answer.text, at)


@pytest.mark.parametrize(
    "question", ["which day last week did I have the most fun?", "上周哪天娱乐最多？"]
)
def test_the_peak_day_is_the_day_with_the_most(month: Month, truth: Truth, question: str) -> None:
    answer = ask(month, question)
    days = [LAST_WEEK[0] + timedelta(days=k) for k in range(7)]
    best = max(days, key=lambda d: truth.category(d, d, "entertainment"))
    assert answer.text.startswith(best.isoformat()), answer.text
    assert hours(truth.category(best, best, "entertainment")) in answer.text


@pytest.mark.parametrize(
    "question", ["what's my most used site last week?", "上周最常去的网站是哪个？"]
)
def test_one_site_asked_for_is_one_site(month: Month, question: str) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["limit"] == 1
    assert isinstance(answer.result, StatsResult) and answer.result.items
    top = answer.result.items[0]
    assert isinstance(top, SiteTime) and answer.text.startswith(said_as(top, answer.text))


def test_screen_time_over_a_threshold_is_yes_or_no_on_active_time(
    month: Month, truth: Truth
) -> None:
    answer = ask(month, "was my screen time over 8 hours on 2003-03-20?")
    active = truth.active(SOME_DAY, SOME_DAY)
    assert answer.intent.arguments["metric"] == "active_seconds"
    assert answer.text.startswith("Yes" if active > 8 * 3600 else "No"), answer.text


@pytest.mark.parametrize(
    ("question", "zh"),
    [
        ("which days last week was I at the computer for over 10 hours?", False),
        ("上周有几天超过10小时在电脑前？", True),
    ],
)
def test_days_by_active_time_read_each_day(
    month: Month, truth: Truth, question: str, zh: bool
) -> None:
    answer = ask(month, question)
    days = [LAST_WEEK[0] + timedelta(days=k) for k in range(7)]
    over = [d for d in days if truth.active(d, d) > 10 * 3600]
    assert 0 < len(over) < 7, "the sample has long and short days"
    listed = answer.text.rsplit("：" if zh else ": ", 1)[1]
    assert [d for d in days if d.isoformat() in listed] == over, answer.text
    assert answer.text.startswith(f"{len(over)} {'天' if zh else 'day'}")


def test_labels_are_in_the_answers_language_only(month: Month) -> None:
    english = ask(month, "how long on bilibili last week?")
    assert "bilibili" in english.text and not has_cjk(english.text), english.text
    chinese = ask(month, "上周B站看了多久？")
    assert "哔哩哔哩" in chinese.text
    category = ask(month, "did I spend more on work or fun on 2003-03-20?")
    assert not has_cjk(category.text), category.text
    assert "娱乐" in ask(month, "2003-03-20 工作和娱乐哪个多？").text


@pytest.mark.parametrize(
    ("question", "yes", "no"),
    [
        ("did I do any work on 2003-03-22?", "Yes", "No"),
        ("did I do any work on 2003-03-20?", "Yes", "No"),
        ("2003-03-22 工作了吗？", "是", "没有"),
    ],
)
def test_a_did_i_question_is_yes_or_no_first(
    month: Month, truth: Truth, question: str, yes: str, no: str
) -> None:
    answer = ask(month, question)
    day = date.fromisoformat(question.split("on ")[-1][:10] if "on " in question else "2003-03-22")
    work = truth.category(day, day, "work")
    assert answer.text.startswith(
        f"{yes if work else no}:" if yes == "Yes" else (yes if work else no)
    )


@pytest.mark.parametrize(
    "question", ["did I do any work every day last week?", "上周每天都工作了吗？"]
)
def test_every_day_is_yes_or_no_with_the_days_without(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    days = [LAST_WEEK[0] + timedelta(days=k) for k in range(7)]
    without = [d for d in days if truth.category(d, d, "work") < 60]
    assert without and answer.text.startswith("No" if "every" in question else "没有")
    assert all(d.isoformat() in answer.text for d in without), answer.text


def test_a_question_about_a_moment_is_no_yes_or_no(month: Month) -> None:
    answer = ask(month, "what was I working on on 2003-03-20 at 14:15?")
    assert answer.intent.kind == "moment" and not answer.text.startswith(("Yes", "No"))


def test_a_kind_of_app_is_named_in_the_answers_language(month: Month) -> None:
    chinese = ask(month, "2003-03-20 终端用了多久？")
    assert "终端" in chinese.text and "terminal" not in chinese.text, chinese.text
    english = ask(month, "how long in the terminal on 2003-03-20?")
    assert "terminal" in english.text and not has_cjk(english.text), english.text


@pytest.mark.parametrize(
    "question", ["more work last week or the week before last?", "上周比上上周工作多吗？"]
)
def test_two_periods_are_weighed_the_larger_first(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    before = (date(2003, 3, 17), date(2003, 3, 23))
    last, earlier = truth.category(*LAST_WEEK, "work"), truth.category(*before, "work")
    assert [c.tool for c in answer.calls] == ["query_stats", "query_stats"]
    larger = LAST_WEEK if last > earlier else before
    assert larger[0].isoformat() in answer.text.split(":")[0].split("：")[0], answer.text
    assert hours(last) in answer.text and hours(earlier) in answer.text


# -- slips of the keyboard -------------------------------------------------------------


@pytest.mark.parametrize(
    ("slipped", "meant"),
    [
        ("how long was i on slack yesterady", "how long was i on slack yesterday"),
        ("hw much time in slack last wk?", "hw much time in slack last week?"),
        ("how much entertainment lsat week", "how much entertainment last week"),
        ("work time last weeek", "work time last week"),
        ("slack this wk", "slack this week"),
    ],
)
def test_a_period_word_typed_wrong_is_read_as_the_word(
    month: Month, slipped: str, meant: str
) -> None:
    answer, right = ask(month, slipped), ask(month, meant)
    assert "No period was named" not in answer.text, answer.text
    assert answer.text == right.text
    assert answer.intent.arguments == right.intent.arguments


def test_a_word_a_letter_from_a_period_word_is_left_alone(month: Month) -> None:
    answer = ask(month, "list my top apps")
    assert "No period was named" in answer.text, answer.text


# -- words of window titles are things --------------------------------------------------


@pytest.mark.parametrize(
    ("question", "title", "days"),
    [
        ("how long did i work on segmenter.py last week", "segmenter.py", LAST_WEEK),
        ("迁移说明.md 上周改了多久", "迁移说明.md", LAST_WEEK),
        ("上周看城市夜景漫步看了多久", "城市夜景漫步", LAST_WEEK),
        ("how much time in ingest.py on 2003-03-20", "ingest.py", (SOME_DAY, SOME_DAY)),
    ],
)
def test_words_of_a_window_title_are_the_thing_asked_about(
    month: Month, truth: Truth, question: str, title: str, days: tuple[date, date]
) -> None:
    answer = ask(month, question)
    assert isinstance(answer.result, StatsResult) and answer.result.thing is not None
    assert answer.result.thing.kind == "title", answer.result.thing
    assert answer.result.thing.name == title
    seconds = truth.sql(
        "day_local BETWEEN %s AND %s AND NOT is_idle AND window_title ILIKE %s",
        *days,
        f"%{title}%",
    )
    assert seconds > 0
    assert answer.result.seconds == seconds, answer.text


# -- days without -----------------------------------------------------------------------


def _days_under_a_minute(truth: Truth, first: date, last: date, where: str) -> list[str]:
    days = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    return [
        d.isoformat()
        for d in days
        if truth.sql(f"day_local = %s AND NOT is_idle AND {where}", d) < 60
    ]


@pytest.mark.parametrize(
    "question",
    [
        "which days from 2003-03-25 to 2003-03-30 had no Zoom",
        "days with zero zoom from 2003-03-25 to 2003-03-30",
        "2003-03-25到2003-03-30哪几天没开会",  # 开会: the meeting apps (Zoom), not social
    ],
)
def test_days_without_a_thing_said_with_zero_or_as_meetings(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    without = _days_under_a_minute(truth, date(2003, 3, 25), date(2003, 3, 30), "app = 'Zoom'")
    assert without, "the sample month has days with no Zoom"
    listed = re.findall(r"2003-03-\d\d", re.split(r"[:：]", answer.text)[-1])
    assert listed == without, answer.text


@pytest.mark.parametrize("question", ["which days this week had no Zoom", "这周哪几天没开会"])
def test_the_day_still_going_is_no_day_without(month: Month, question: str) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW + timedelta(days=1))
    answer = answer_offline(ctx, question)  # today, 04-01, has no records yet
    assert answer.text.startswith(("0 days", "0 天")), answer.text  # 03-31 had Zoom


# -- habits asked yes or no ----------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "did I stay up late last week?",
        "上周熬夜了吗",
        "有没有频繁切换窗口？上周",
        "did i have an undo storm on 2003-03-20?",
        "did i have an undo storm on 2003-03-25?",
    ],
)
def test_a_habit_asked_yes_or_no_is_answered_yes_or_no_first(month: Month, question: str) -> None:
    answer = ask(month, question)
    assert isinstance(answer.result, SignalsResult), answer.text
    found = bool(answer.result.patterns)
    assert answer.text.startswith(("Yes: ", "是：") if found else ("No: ", "没有：")), answer.text


@pytest.mark.parametrize(
    "question",
    [
        "what percent of my work time on 2003-03-20 was iTerm2",
        "2003-03-20 工作里面 iTerm2 占多少",
        "share of iTerm2 in work on 2003-03-20",
    ],
)
def test_a_share_of_a_named_whole_divides_by_that_whole(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    day = "day_local = %s AND NOT is_idle AND "
    part = truth.sql(day + "app = 'iTerm2'", SOME_DAY)
    whole = truth.sql(day + "category = 'work'", SOME_DAY)
    assert 0 < part < whole < truth.active(SOME_DAY, SOME_DAY)
    assert answer.text.startswith(percent(part, whole)), answer.text


def test_screen_time_as_a_side_of_a_share_is_the_default_whole(month: Month, truth: Truth) -> None:
    answer = ask(month, "percent of my screen time on Slack on 2003-03-20")
    part = truth.sql("day_local = %s AND NOT is_idle AND app = 'Slack'", SOME_DAY)
    assert answer.text.startswith(percent(part, truth.active(SOME_DAY, SOME_DAY))), answer.text


def _categories_by_time(truth: Truth, day: date) -> list[str]:
    rows = truth.conn.execute(
        "SELECT category, sum(duration_s) AS s FROM v_record_durations "
        "WHERE user_id = %s AND day_local = %s AND NOT is_idle GROUP BY 1 ORDER BY 2 DESC",
        [truth.month.user.user_id, day],
    ).fetchall()
    return [r["category"] for r in rows]


@pytest.mark.parametrize(
    "question", ["Biggest category on 2003-03-20.", "2003-03-20时间主要花在哪个类别上"]
)
def test_the_biggest_category_is_a_category_not_an_app(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    top = _categories_by_time(truth, SOME_DAY)[0]
    assert answer.text.startswith(("Work", "work", "工作")), answer.text
    assert top == "work"


def test_ranked_categories_are_in_order(month: Month, truth: Truth) -> None:
    answer = ask(month, "rank my categories on 2003-03-20, top 3")
    ranked = _categories_by_time(truth, SOME_DAY)[:3]
    positions = [answer.text.find(f"{k}. {name}") for k, name in enumerate(ranked, 1)]
    assert all(p >= 0 for p in positions) and positions == sorted(positions), answer.text


def test_a_character_typed_for_one_of_the_same_sound_is_read_as_it(month: Month) -> None:
    slipped = ask(month, "2003-03-20 工做了多少小时")
    meant = ask(month, "2003-03-20 工作了多少小时")
    assert isinstance(slipped.result, StatsResult) and slipped.result.thing is not None
    assert slipped.result.thing.name == "work"
    assert slipped.text == meant.text
