"""Questions worded the ways the blind sets showed the answerer missing, on the sample
month with no model: rankings asked as "which site / app / category … most" or
"top5软件", thresholds said as 有/够/hit/go past, first and last times (几点打开,
最后用), windows on a named date, names inside a sentence that the data lacks, words
of window titles (a file name, 日语N2, a romanised title), and period words run
together. Every number is checked against SQL over the records layer."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.agent.offline import OfflineAnswer, answer_offline
from app.db.connection import connect
from app.tools.stats import SiteTime, StatsResult
from tests.agent_month import NOW, Month, month_fixture

month = month_fixture()

SOME_DAY = date(2003, 3, 20)  # a Thursday with work and play
LAST_WEEK = (date(2003, 3, 24), date(2003, 3, 30))
CATEGORIES_ZH = {"work": "工作", "study": "学习", "social": "社交", "entertainment": "娱乐"}


class Truth:
    """SQL over the records layer of the sample month."""

    def __init__(self, month: Month) -> None:
        self.user_id = month.user.user_id
        self.zone = ZoneInfo(month.user.time_zone)
        self.conn = connect(month.services.url, settings=month.services.settings, autocommit=True)

    def rows(self, sql: str, *params: Any) -> list[dict[str, Any]]:
        return self.conn.execute(sql, [self.user_id, *params]).fetchall()

    def ranked(self, column: str, day: date) -> list[str]:
        """`column`'s values on a day, most time first."""
        rows = self.rows(
            f"SELECT {column} AS name FROM v_record_durations WHERE user_id = %s "
            f"AND day_local = %s AND NOT is_idle AND {column} IS NOT NULL "
            "GROUP BY 1 ORDER BY sum(duration_s) DESC",
            day,
        )
        return [r["name"] for r in rows]

    def seconds(self, where: str, *params: Any) -> int:
        rows = self.rows(
            "SELECT coalesce(sum(duration_s), 0) AS s FROM v_record_durations "
            f"WHERE user_id = %s AND NOT is_idle AND {where}",
            *params,
        )
        return round(rows[0]["s"])

    def days(self, where: str, first: date, last: date, *params: Any) -> list[date]:
        """The days of a period with a minute or more of the records `where` picks."""
        rows = self.rows(
            "SELECT day_local FROM v_record_durations WHERE user_id = %s AND NOT is_idle "
            f"AND day_local BETWEEN %s AND %s AND {where} GROUP BY 1 "
            "HAVING sum(duration_s) >= 60 ORDER BY 1",
            first,
            last,
            *params,
        )
        return [r["day_local"] for r in rows]

    def rows_days(self, where: str, first: date, last: date) -> list[date]:
        """The days of a period with any time at all of the records `where` picks."""
        rows = self.rows(
            "SELECT day_local FROM v_record_durations WHERE user_id = %s AND NOT is_idle "
            f"AND day_local BETWEEN %s AND %s AND {where} GROUP BY 1 "
            "HAVING sum(duration_s) > 0 ORDER BY 1",
            first,
            last,
        )
        return [r["day_local"] for r in rows]

    def edges(self, app: str, day: date) -> tuple[datetime, datetime]:
        """When an app's first record of a day began and its last one ended, local."""
        rows = self.rows(
            "SELECT min(ts_start) AS first, max(ts_start + make_interval(secs => duration_s)) "
            "AS last FROM v_record_durations WHERE user_id = %s AND app = %s "
            "AND day_local = %s AND NOT is_idle",
            app,
            day,
        )
        return rows[0]["first"].astimezone(self.zone), rows[0]["last"].astimezone(self.zone)

    def window_apps(self, start: datetime, end: datetime) -> dict[str, float]:
        rows = self.conn.execute(
            "SELECT app, sum(EXTRACT(EPOCH FROM LEAST(ts_start + make_interval(secs => "
            "duration_s), %s) - GREATEST(ts_start, %s))) AS s FROM v_record_durations "
            "WHERE user_id = %s AND NOT is_idle AND ts_start < %s "
            "AND ts_start + make_interval(secs => duration_s) > %s GROUP BY app",
            [end, start, self.user_id, end, start],
        ).fetchall()
        return {r["app"]: float(r["s"]) for r in rows}

    def newest_title(self, words: str) -> datetime:
        rows = self.rows(
            "SELECT max(ts_start) AS at FROM v_record_durations WHERE user_id = %s "
            "AND window_title ILIKE %s AND ts_start < %s",
            f"%{words}%",
            NOW,
        )
        return rows[0]["at"].astimezone(self.zone)


@pytest.fixture(scope="module")
def truth(month: Month) -> Iterator[Truth]:
    known = Truth(month)
    yield known
    known.conn.close()


def ask(month: Month, question: str) -> OfflineAnswer:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    return answer_offline(ctx, question)


def hours(seconds: float) -> str:
    return str(round(seconds / 3600, 2))


def minute_of(text: str) -> int:
    """The first HH:MM an answer says, as minutes after midnight."""
    found = re.search(r"(\d{2}):(\d{2})", text)
    assert found is not None, text
    return int(found[1]) * 60 + int(found[2])


# -- rankings --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question", ["what app ate most of my time on 3/20", "3月20日哪个软件用得最久"]
)
def test_which_app_most_names_the_days_longest_app(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    assert answer.intent.kind == "planned" and answer.intent.arguments["limit"] == 1
    top = truth.ranked("app", SOME_DAY)[0]
    assert answer.text.startswith(top), answer.text


@pytest.mark.parametrize(
    "question", ["which website did i visit the most on 2003-03-20", "3月20日哪个网站逛得最多"]
)
def test_which_site_most_names_the_days_longest_site(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["metric"] == "seconds_by_site", answer.text
    assert isinstance(answer.result, StatsResult) and answer.result.items
    first = answer.result.items[0]
    assert isinstance(first, SiteTime) and first.site == truth.ranked("domain", SOME_DAY)[0]
    assert answer.text.startswith((first.label or first.site, first.site)), answer.text


@pytest.mark.parametrize(
    ("question", "zh"),
    [
        ("which category took most of my time on 2003-03-20", False),
        ("3月20日哪个分类时间最长", True),
    ],
)
def test_which_category_most_names_the_days_longest_category(
    month: Month, truth: Truth, question: str, zh: bool
) -> None:
    answer = ask(month, question)
    top = truth.ranked("category", SOME_DAY)[0]
    assert answer.text.startswith(CATEGORIES_ZH[top] if zh else top), answer.text


@pytest.mark.parametrize(
    ("question", "n"),
    [("top3 apps on 2003-03-20", 3), ("3月20日top5软件", 5), ("3月20日用得最多的前三个软件", 3)],
)
def test_a_glued_or_chinese_count_ranks_that_many_apps(
    month: Month, truth: Truth, question: str, n: int
) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["limit"] == n, answer.text
    apps = truth.ranked("app", SOME_DAY)[:n]
    at = [answer.text.index(app) for app in apps]
    assert at == sorted(at) and f"{n}." in answer.text and f"{n + 1}." not in answer.text


# -- thresholds --------------------------------------------------------------------------------


WORK = "category = 'work'"
CODING = "app = 'Visual Studio Code'"  # coding is the code editors: the sample has one


@pytest.mark.parametrize(
    ("question", "limit_h", "yes", "no", "what"),
    [
        ("2003-03-20 工作有10小时吗？", 10, "是", "没有", WORK),
        ("3月20日写代码够3个小时了吗", 3, "是", "没有", CODING),
        ("did work go past 2 hrs on 3/20", 2, "Yes", "No", WORK),
        ("did i hit 12h of coding on 2003-03-20?", 12, "Yes", "No", CODING),
    ],
)
def test_a_threshold_said_any_way_is_a_yes_or_no_against_the_amount(
    month: Month, truth: Truth, question: str, limit_h: int, yes: str, no: str, what: str
) -> None:
    answer = ask(month, question)
    amount = truth.seconds(f"day_local = %s AND {what}", SOME_DAY)
    assert answer.text.startswith(yes if amount > limit_h * 3600 else no), answer.text
    assert hours(amount) in answer.text


def test_both_sides_of_a_threshold_are_answered(month: Month, truth: Truth) -> None:
    work = truth.seconds("day_local = %s AND category = 'work'", SOME_DAY)
    below, above = int(work // 3600), int(work // 3600) + 1
    assert ask(month, f"3月20日工作有{below}小时吗").text.startswith("是")
    assert ask(month, f"3月20日工作有{above}小时吗").text.startswith("没有")


# -- first and last times ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("3月20日几点打开slack的", True),
        ("first time i opened slack on 3/20", True),
        ("3月20日最后用slack是几点？", False),
        ("when was i last in slack on 2003-03-20", False),
    ],
)
def test_first_and_last_times_are_the_things_own_records(
    month: Month, truth: Truth, question: str, first: bool
) -> None:
    answer = ask(month, question)
    began, ended = truth.edges("Slack", SOME_DAY)
    wanted = began if first else ended
    said = minute_of(answer.text)
    assert abs(said - (wanted.hour * 60 + wanted.minute)) <= 1, (answer.text, wanted)


# -- windows on a named date -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "clocks"),
    [
        ("what was i doing on 3/20 from 10am to noon", (10, 12)),
        ("3月20日上午10点到12点在干嘛", (10, 12)),
        ("what was i on 2003-03-20 from 10pm to midnight", (22, 24)),
    ],
)
def test_a_window_on_a_named_date_is_read_on_that_date(
    month: Month, truth: Truth, question: str, clocks: tuple[int, int]
) -> None:
    answer = ask(month, question)
    arguments = answer.intent.arguments
    assert arguments["date_from"] == arguments["date_to"] == SOME_DAY.isoformat(), arguments
    assert arguments["time_from"] == f"{clocks[0]:02d}:00"
    assert arguments["time_to"] == f"{clocks[1] % 24:02d}:00"
    midnight = datetime(2003, 3, 20, tzinfo=truth.zone)
    apps = truth.window_apps(*(midnight + timedelta(hours=h) for h in clocks))
    assert apps, "the sample has activity in the window"
    top = max(apps, key=lambda app: apps[app])
    shown = [answer.text.index(app) for app in apps if app in answer.text]
    assert top in answer.text and answer.text.index(top) == min(shown), answer.text


# -- names the data lacks, names in titles -----------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "how long was i on photoshop on 3/20",
        "3月20日用了多久minecraft",
        "hours of blender last week",
    ],
)
def test_a_lowercase_name_the_data_lacks_is_said_to_be_missing(month: Month, question: str) -> None:
    answer = ask(month, question)
    assert answer.intent.kind == "thing_hours", answer.text
    assert "没有" in answer.text or "no " in answer.text.lower(), answer.text
    assert not re.search(r"\d+(\.\d+)? (hours|小时)", answer.text), answer.text


def test_a_plain_word_is_no_name(month: Month) -> None:
    answer = ask(month, "how much time did i waste on 2003-03-20")
    assert answer.intent.kind != "thing_hours" and "no app" not in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("上周哪几天看了发票 invoice", "invoice"),
        ("which days last week did i open invoice", "invoice"),
    ],
)
def test_a_word_of_a_file_name_is_found_in_the_titles(
    month: Month, truth: Truth, question: str, title: str
) -> None:
    answer = ask(month, question)
    days = truth.days("window_title ILIKE %s", *LAST_WEEK, f"%{title}%")
    assert days, "the sample opens invoices on weekdays"
    listed = re.split(r"[:：]", answer.text)[-1]
    for k in range(7):
        day = LAST_WEEK[0] + timedelta(days=k)
        assert (day.isoformat() in listed) == (day in days), answer.text


def test_a_cjk_title_word_glued_to_latin_is_found(month: Month, truth: Truth) -> None:
    answer = ask(month, "日语N2这个月复习了几天")
    days = truth.days("window_title ILIKE %s", date(2003, 3, 1), date(2003, 3, 31), "%日语 N2%")
    assert days and answer.text.startswith(f"{len(days)} 天"), answer.text


def test_a_romanised_name_finds_the_title_that_holds_it(month: Month, truth: Truth) -> None:
    answer = ask(month, "when did i last watch genshin stuff")
    newest = truth.newest_title("原神")
    assert f"{newest:%Y-%m-%d %H:%M}" in answer.text, answer.text


# -- days, averages and spelling -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "present"),
    [("days i was on vscode last week?", True), ("days w/o vscode last week", False)],
)
def test_days_asked_without_which_are_listed(
    month: Month, truth: Truth, question: str, present: bool
) -> None:
    answer = ask(month, question)
    coded = truth.days("app = 'Visual Studio Code'", *LAST_WEEK)
    assert 0 < len(coded) < 7, "the sample codes on weekdays only"
    listed = re.split(r"[:：]", answer.text)[-1]
    for k in range(7):
        day = LAST_WEEK[0] + timedelta(days=k)
        assert (day.isoformat() in listed) == ((day in coded) == present), answer.text


def test_last_week_then_a_daily_average_is_over_last_week(month: Month, truth: Truth) -> None:
    answer = ask(month, "上周日均刷抖音多长时间")
    seconds = truth.seconds("app = '抖音' AND day_local BETWEEN %s AND %s", *LAST_WEEK)
    assert answer.intent.period is not None and answer.intent.period.days == 7
    assert f"{round(seconds / 7 / 60)} 分钟" in answer.text, answer.text


def test_period_and_time_words_typed_together_or_swapped(month: Month, truth: Truth) -> None:
    nights = ask(month, "how many late nights lastweek?")
    assert nights.intent.period is not None and nights.intent.period.period == "last_week"
    assert re.search(r"\d+ days?|No such", nights.text), nights.text
    slack = ask(month, "slack tiem on 3/20?")
    seconds = truth.seconds("app = 'Slack' AND day_local = %s", SOME_DAY)
    assert f"{round(seconds / 60)} minutes" in slack.text, slack.text


def test_chinese_answers_say_social_as_people_ask_for_it(month: Month, truth: Truth) -> None:
    answer = ask(month, "3月20日学习多还是社交多")
    study = truth.seconds("day_local = %s AND category = 'study'", SOME_DAY)
    social = truth.seconds("day_local = %s AND category = 'social'", SOME_DAY)
    assert answer.text.startswith("社交" if social >= study else "学习"), answer.text
    assert "沟通" not in answer.text


@pytest.mark.parametrize(
    ("earlier", "question"),
    [("3月20日几点打开slack的", "zoom呢"), ("first time i opened slack on 3/20", "and zoom?")],
)
def test_a_followup_swaps_the_thing_of_a_first_time_question(
    month: Month, truth: Truth, earlier: str, question: str
) -> None:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    answer = answer_offline(ctx, question, earlier=[earlier])
    began, _ = truth.edges("Zoom", SOME_DAY)
    # Zoom is named by its site identity (zoom.us, which counts the app too), as Slack is.
    assert answer.intent.arguments["thing"] == "zoom.us", answer.intent.arguments
    assert abs(minute_of(answer.text) - (began.hour * 60 + began.minute)) <= 1, answer.text


@pytest.mark.parametrize(
    ("question", "app"),
    [
        ("how long on chorme on 3/20", "Google Chrome"),
        ("vscdoe time on 2003-03-20", "Visual Studio Code"),
    ],
)
def test_a_typo_of_a_nickname_is_that_app(
    month: Month, truth: Truth, question: str, app: str
) -> None:
    answer = ask(month, question)
    assert answer.intent.arguments["thing"] == app, answer.intent.arguments
    seconds = truth.seconds("day_local = %s AND app = %s", SOME_DAY, app)
    assert hours(seconds) in answer.text, answer.text


@pytest.mark.parametrize("question", ["3月20日时间主要花在哪", "where did my time go on 3/20"])
def test_where_the_time_went_lists_the_categories_longest_first(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    zh = "时间" in question
    ranked = [c for c in truth.ranked("category", SOME_DAY) if c in CATEGORIES_ZH][:3]
    at = [answer.text.index(CATEGORIES_ZH[c] if zh else c) for c in ranked]
    assert at == sorted(at) and "没有叫" not in answer.text, answer.text


# -- the sixth blind set's kinds, in other words ---------------------------------------------


@pytest.mark.parametrize(
    "question", ["how many days last week did i skip wechat", "上周有几天一点微信都没用"]
)
def test_no_day_without_a_thing_says_zero_days_first(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    had = truth.days("app = %s", *LAST_WEEK, answer.intent.arguments["thing"])
    assert len(had) == 7, had  # the sample week has it every day
    assert answer.text.startswith(("0 days", "0 天")), answer.text


def test_the_last_n_without_days_is_the_last_n_days(month: Month, truth: Truth) -> None:
    answer = ask(month, "how many days in the last 7 did i not open weread")
    first, last = NOW.date() - timedelta(days=6), NOW.date()
    assert answer.intent.arguments["date_from"] == first.isoformat(), answer.intent.arguments
    had = truth.days("app = %s", first, last, "微信读书")
    missing = [d for d in (first + timedelta(days=i) for i in range(7)) if d not in had]
    assert answer.text.startswith(f"{len(missing)} day"), answer.text


@pytest.mark.parametrize(
    "question", ["本月处理发票用了多长时间", "how long did i spend on invoices this month"]
)
def test_a_common_title_word_in_either_language_finds_the_titles(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    seconds = truth.seconds(
        "window_title ILIKE %s AND day_local BETWEEN %s AND %s",
        "%invoice%",
        date(2003, 3, 1),
        date(2003, 3, 31),
    )
    assert seconds > 0 and hours(seconds) in answer.text, (hours(seconds), answer.text)


def test_a_range_of_days_ago_is_that_period(month: Month, truth: Truth) -> None:
    answer = ask(month, "zoom hours between 8 days ago and 2 days ago")
    first, last = NOW.date() - timedelta(days=8), NOW.date() - timedelta(days=2)
    seconds = truth.seconds("app = 'Zoom' AND day_local BETWEEN %s AND %s", first, last)
    assert answer.intent.arguments["date_from"] == first.isoformat(), answer.intent.arguments
    assert hours(seconds) in answer.text, (hours(seconds), answer.text)


@pytest.mark.parametrize("question", ["what ate most of my time last week", "上周最耗时的是什么"])
def test_a_time_sink_is_the_longest_app(month: Month, truth: Truth, question: str) -> None:
    answer = ask(month, question)
    rows = truth.rows(
        "SELECT app FROM v_record_durations WHERE user_id = %s AND NOT is_idle "
        "AND day_local BETWEEN %s AND %s GROUP BY app ORDER BY sum(duration_s) DESC LIMIT 2",
        *LAST_WEEK,
    )
    top, second = rows[0]["app"], rows[1]["app"]
    assert top in answer.text and answer.text.index(top) < answer.text.index(second), answer.text


@pytest.mark.parametrize(
    "question", ["这个月头一次开Zoom是哪天", "which day was the first time i used zoom this month"]
)
def test_the_first_time_asked_by_its_day_is_the_first_day(
    month: Month, truth: Truth, question: str
) -> None:
    answer = ask(month, question)
    first_day = truth.days("app = 'Zoom'", date(2003, 3, 1), date(2003, 3, 31))[0]
    began, _ = truth.edges("Zoom", first_day)
    assert first_day.isoformat() in answer.text, answer.text
    assert abs(minute_of(answer.text) - (began.hour * 60 + began.minute)) <= 1, answer.text


@pytest.mark.parametrize("question", ["这个月熬了几回夜", "上个月开了几次夜车"])
def test_staying_up_said_apart_is_the_late_night_habit(month: Month, question: str) -> None:
    answer = ask(month, question)
    assert answer.intent.tool == "get_signals", answer.intent
    assert answer.intent.arguments.get("kinds") == ["late_night"], answer.intent.arguments


def test_an_activity_word_beside_a_site_counts_the_sites_days(month: Month, truth: Truth) -> None:
    answer = ask(month, "no. of days last week with arxiv reading")
    had = truth.days("domain = 'arxiv.org'", *LAST_WEEK)
    assert answer.text.startswith(f"{len(had)} days"), answer.text


def test_whats_on_screen_in_a_window_lists_its_apps(month: Month, truth: Truth) -> None:
    answer = ask(month, "whats on my screen 3/20 from 14:00 to 16:00")
    zone = truth.zone
    start = datetime(2003, 3, 20, 14, tzinfo=zone)
    apps = truth.window_apps(start, start + timedelta(hours=2))
    top = max(apps, key=lambda a: apps[a])
    assert top in answer.text, answer.text


# -- follow-ups that edit one part, days over a floor, titles by another name -------------


def ask_after(month: Month, earlier: list[str], question: str) -> OfflineAnswer:
    ctx = month.services.tool_context(user=month.user, now=NOW)
    return answer_offline(ctx, question, earlier=earlier)


def share(part: float, whole: float) -> str:
    return f"{round(part / whole * 100, 1):g}%"


WEEK_SQL = "day_local BETWEEN %s AND %s"


@pytest.mark.parametrize(
    ("earlier", "question", "zh"),
    [
        ("上周哪几天开了notion", "那没开的是哪几天", True),
        ("which days last week did i have notion open", "and the days without it?", False),
    ],
)
def test_a_turn_asking_the_other_days_keeps_the_thing_and_the_week(
    month: Month, truth: Truth, earlier: str, question: str, zh: bool
) -> None:
    answer = ask_after(month, [earlier], question)
    used = set(truth.rows_days("app = 'Notion'", *LAST_WEEK))
    week = [LAST_WEEK[0] + timedelta(days=k) for k in range(7)]
    without = [d for d in week if d not in used]
    assert without, "the sample's weekends have no Notion"
    listed = answer.text.rsplit("：" if zh else ": ", 1)[1]
    for day in week:
        assert (day.isoformat() in listed) == (day in without), answer.text
    assert answer.text.startswith(f"{len(without)} {'天' if zh else 'day'}"), answer.text


@pytest.mark.parametrize(
    ("earlier", "question"),
    [("上周抖音刷了多久", "占总屏幕时间多少"), ("how long on douyin last week", "what % is that?")],
)
def test_a_share_asked_after_an_amount_is_of_the_same_thing_and_week(
    month: Month, truth: Truth, earlier: str, question: str
) -> None:
    answer = ask_after(month, [earlier], question)
    part = truth.seconds(f"app = '抖音' AND {WEEK_SQL}", *LAST_WEEK)
    whole = truth.seconds(WEEK_SQL, *LAST_WEEK)
    assert part > 0 and answer.text.startswith(share(part, whole)), answer.text


def test_a_new_thing_weighed_against_the_last_keeps_the_first_and_the_week(
    month: Month, truth: Truth
) -> None:
    answer = ask_after(
        month, ["how much did i code in vs code last week"], "vs iterm, which one is more"
    )
    code = truth.seconds(f"app = 'Visual Studio Code' AND {WEEK_SQL}", *LAST_WEEK)
    term = truth.seconds(f"app = 'iTerm2' AND {WEEK_SQL}", *LAST_WEEK)
    winner = "Visual Studio Code" if code > term else "iTerm2"
    assert answer.text.startswith(winner), answer.text
    assert hours(code) in answer.text and hours(term) in answer.text


def test_the_average_asked_after_a_total_is_of_the_same_thing(month: Month, truth: Truth) -> None:
    answer = ask_after(month, ["上周学习一共多久"], "那日均呢")
    study = truth.seconds(f"category = 'study' AND {WEEK_SQL}", *LAST_WEEK)
    assert study > 0 and hours(study / 7) in answer.text, answer.text
    assert answer.text.startswith("平均每天"), answer.text


@pytest.mark.parametrize(
    ("question", "floor_min"),
    [
        ("which days last week had youtube for 40+ min", 40),
        ("上周哪几天用Slack超过半小时", 30),
        ("how many days last week with 2h+ of vs code", 120),
    ],
)
def test_days_over_a_floor_are_read_from_the_series(
    month: Month, truth: Truth, question: str, floor_min: int
) -> None:
    where = {
        40: "domain = 'youtube.com'",
        30: "app = 'Slack'",
        120: "app = 'Visual Studio Code'",
    }[floor_min]
    answer = ask(month, question)
    per_day = truth.rows(
        f"SELECT day_local, sum(duration_s) AS s FROM v_record_durations WHERE user_id = %s "
        f"AND NOT is_idle AND {where} AND {WEEK_SQL} GROUP BY 1",
        *LAST_WEEK,
    )
    days = sorted(r["day_local"] for r in per_day if r["s"] >= floor_min * 60)
    assert answer.intent.kind == "planned" and answer.calls[0].arguments["min_minutes"] == floor_min
    assert re.match(rf"{len(days)} (?:天|days?)", answer.text), answer.text
    for day in days:
        assert day.isoformat() in answer.text, answer.text


@pytest.mark.parametrize(
    ("question", "title"),
    [
        ("how long was i chatting with Lin on slack last week", "Direct message with Lin"),
        ("上周和Lin私聊了多久", "Direct message with Lin"),
        ("time spent reading CSAPP last week", "深入理解计算机系统"),
        ("上周听周杰伦的晴天听了多久", "晴天"),
    ],
)
def test_a_title_named_by_a_short_name_or_an_alias_is_counted(
    month: Month, truth: Truth, question: str, title: str
) -> None:
    answer = ask(month, question)
    seconds = truth.seconds(f"window_title ILIKE %s AND {WEEK_SQL}", f"%{title}%", *LAST_WEEK)
    assert seconds > 0 and hours(seconds) in answer.text, answer.text


def test_the_last_time_of_a_name_held_only_in_titles_is_its_newest_title(
    month: Month, truth: Truth
) -> None:
    answer = ask(month, "上周最后一次看原神PV是什么时候")
    rows = truth.rows(
        "SELECT max(ts_start) AS at FROM v_record_durations WHERE user_id = %s "
        f"AND window_title ILIKE %s AND {WEEK_SQL}",
        "%原神%",
        *LAST_WEEK,
    )
    at = rows[0]["at"].astimezone(truth.zone)
    assert answer.text.startswith(f"{at:%Y-%m-%d %H:%M}"), answer.text


@pytest.mark.parametrize(
    "question", ["上周平均每天写代码多久", "how much coding per day last week"]
)
def test_coding_is_the_code_editors_time(month: Month, truth: Truth, question: str) -> None:
    answer = ask(month, question)
    code = truth.seconds(f"app = 'Visual Studio Code' AND {WEEK_SQL}", *LAST_WEEK)
    assert code > 0 and hours(code / 7) in answer.text, answer.text


@pytest.mark.parametrize(
    "question",
    ["how long did i play league of legends yesterday", "how much final cut pro this week"],
)
def test_a_few_plain_words_the_data_lacks_are_said_to_be_unknown(
    month: Month, question: str
) -> None:
    answer = ask(month, question)
    assert answer.text.startswith("I have no app, site or category called"), answer.text


def test_how_long_of_a_name_held_only_in_titles_counts_those_titles(
    month: Month, truth: Truth
) -> None:
    answer = ask(month, "上周看原神PV看了多久")
    seconds = truth.seconds(f"window_title ILIKE %s AND {WEEK_SQL}", "%原神%", *LAST_WEEK)
    assert seconds > 0 and hours(seconds) in answer.text, answer.text
