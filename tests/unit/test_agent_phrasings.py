"""How people type the time and the operation, read without a database: month/day
dates, noon and midnight inside windows, 上周 before 日均, glued and Chinese counts of
a ranking, thresholds said as 有/够/hit/go past, and period words run together."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from app.agent.dates import find_clocks, find_period
from app.agent.followups import edits_operation, effective_question
from app.agent.lexicon import Lexicon
from app.agent.parts import read_parts
from app.agent.spelling import mend_period_words
from app.agent.title_aliases import known_aliases
from app.agent.title_words import other_forms
from app.agent.titles import proper_names, title_phrases
from app.agent.windows import find_window

TODAY = date(2026, 12, 6)  # a Sunday


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("first time i opened chrome on 12/4", date(2026, 12, 4)),
        ("what did i do on 11/30 around 4 to 5pm", date(2026, 11, 30)),
        ("slack on 12/04/2025?", date(2025, 12, 4)),
        ("12/25 youtube", date(2025, 12, 25)),  # no year, in the future: last year's
    ],
)
def test_a_month_and_day_with_a_slash_is_that_date(question: str, day: date) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is not None and (spec.date_from, spec.date_to) == (day, day)


@pytest.mark.parametrize("question", ["took 1/2 hour", "24/7 online", "ratio 3/4 h"])
def test_fractions_and_counts_are_no_dates(question: str) -> None:
    assert find_period(question, today=TODAY) is None


def test_last_week_before_a_daily_average_is_last_week_not_its_sunday() -> None:
    spec = find_period("上周日均刷抖音多长时间", today=TODAY)
    assert spec is not None and spec.period == "last_week"
    sunday = find_period("上周日刷抖音多长时间", today=TODAY)
    assert sunday is not None and sunday.date_from == sunday.date_to == date(2026, 11, 29)


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("what was i doing on Dec 1 from 10am to noon", ("10:00", "12:00")),
        ("what was i on last night from 10pm to midnight", ("22:00", "00:00")),
        ("between noon and 3pm yesterday", ("12:00", "15:00")),
        ("昨天晚上8点以后", ("20:00", "04:00")),
        ("12月1号下午在干嘛", ("12:00", "18:00")),
    ],
)
def test_noon_and_midnight_are_clock_times_of_a_window(
    question: str, window: tuple[str, str]
) -> None:
    found = find_window(question, cut_hour=4)
    assert found is not None and (found.time_from, found.time_to) == window
    start, end = found.span
    assert question[start:end].strip()  # the span is the question's own words


def test_noon_alone_is_one_clock_time() -> None:
    assert find_clocks("what was on screen at noon yesterday") == [(12, 0)]
    assert find_clocks("at midnight") == [(0, 0)]


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("how many late nights lastweek?", "how many late nights last week?"),
        ("slack tiem?", "slack time?"),
        ("thisweek youtube", "this week youtube"),
        ("item list", "item list"),
    ],
)
def test_run_together_and_swapped_words_are_mended(typed: str, meant: str) -> None:
    assert mend_period_words(typed) == meant


def _parts(question: str) -> object:
    return read_parts(question, lexicon=Lexicon(), today=TODAY, cut_hour=4)


@pytest.mark.parametrize(
    ("question", "n"),
    [
        ("最近7天top5软件", 5),
        ("top3 apps last week", 3),
        ("用得最多的前三个软件", 3),
        ("前五个网站", 5),
    ],
)
def test_a_ranking_count_is_read_glued_or_in_chinese_numerals(question: str, n: int) -> None:
    parts = _parts(question)
    assert parts.operation == "top" and parts.top_n == n  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "question",
    [
        "上周哪个网站逛得最多",
        "what website ate most of my time yesterday",
        "12月2日哪个分类时间最长",
        "which app did i use the most last week",
        "what category took up most of my day",
    ],
)
def test_which_site_app_or_category_most_is_a_ranking(question: str) -> None:
    assert _parts(question).operation == "top"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "minutes"),
    [
        ("上周学习时间有10小时吗？", 600),
        ("did slack go past 2 hrs last week", 120),
        ("did i hit 10h of coding this week", 600),
        ("这周写代码够20个小时了吗", 1200),
        ("have i studied over 4 hours in the last 7 days", 240),
        ("study > 3h last week?", 180),
        ("娱乐>=2小时了吗 今天", 120),
        ("youtube <45 min yesterday?", 45),
    ],
)
def test_thresholds_are_read_however_they_are_said(question: str, minutes: int) -> None:
    parts = _parts(question)
    assert parts.threshold_minutes == minutes  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("昨天12点半到1点在干什么呀", ("12:30", "13:00")),
        ("周五11点到2点都干了啥", ("11:00", "14:00")),
        ("今天12点到1点半用了什么", ("12:00", "13:30")),
        ("昨天晚上11点到1点", ("23:00", "01:00")),  # a late part named: overnight
    ],
)
def test_a_bare_chinese_range_that_ends_earlier_ends_past_noon(
    question: str, window: tuple[str, str]
) -> None:
    found = find_window(question, cut_hour=4)
    assert found is not None and (found.time_from, found.time_to) == window


def test_a_less_than_symbol_is_a_ceiling() -> None:
    parts = _parts("study < 2 hours this week?")
    assert parts.threshold_minutes == 120 and parts.under  # type: ignore[attr-defined]


def test_words_of_a_file_name_are_title_phrases_and_a_verb_is_not() -> None:
    phrases = title_phrases(["invoice_2026_3.pdf", "复习 · 日语 N2"])
    assert {"invoice", "日语 N2", "日语"} <= phrases
    assert "复习" not in phrases and "2026" not in phrases


def _named(question: str) -> object:
    lexicon = Lexicon()
    for name, mention in (("youtube", "youtube.com"), ("微信", "微信"), ("飞书", "飞书")):
        lexicon.add(name, mention, whole=True)
    for name in ("学习", "娱乐"):
        lexicon.add(name, "study" if name == "学习" else "entertainment")
    lexicon.add("screen", "active")
    return read_parts(question, lexicon=lexicon, today=TODAY, cut_hour=4)


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("what time did i get on youtube yesterday", "first"),
        ("昨儿几点用的微信", "first"),
        ("昨天最后一次看youtube是几点", "last"),
        ("上周微信和飞书谁多", "contest"),
        ("昨天微信比飞书多吗", "contest"),
        ("上周学习和娱乐谁时间长", "contest"),
        ("学习vs娱乐 这周", "contest"),
        ("what was on my screen friday evening", "window"),
        ("yesterday 9-11am what apps", "window"),
        ("this week any youtube over 2 hours?", "threshold"),
        ("娱乐 > 10 hours this month?", "threshold"),
        ("yesterday youtube < 30 mins?", "threshold"),
        ("pct of screen time on youtube last wk", "share"),
        ("微信 pct this week", "share"),
    ],
)
def test_the_operation_is_read_from_cues_anywhere(question: str, operation: str) -> None:
    assert _named(question).operation == operation  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("昨儿几点用的微信", date(2026, 12, 5)),
        ("今儿刷了多久", TODAY),
        ("前儿个呢", date(2026, 12, 4)),
    ],
)
def test_colloquial_day_words_are_periods(question: str, day: date) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is not None and spec.date_from == spec.date_to == day


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("how much did i use vs code on tues", date(2026, 12, 1), date(2026, 12, 1)),
        ("thurs slack?", date(2026, 12, 3), date(2026, 12, 3)),
        ("youtube on sat", date(2026, 12, 5), date(2026, 12, 5)),
        ("weekend youtube total", date(2026, 12, 5), date(2026, 12, 6)),
        ("周末玩了多久", date(2026, 12, 5), date(2026, 12, 6)),
    ],
)
def test_short_weekdays_and_a_bare_weekend_are_periods(
    question: str, first: date, last: date
) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is not None and (spec.date_from, spec.date_to) == (first, last)
    assert find_period("i sat down and the sun was out", today=TODAY) is None


def test_a_bare_weekend_midweek_is_the_last_one() -> None:
    spec = find_period("weekend youtube total", today=date(2026, 12, 9))
    assert spec is not None and (spec.date_from, spec.date_to) == (
        date(2026, 12, 5),
        date(2026, 12, 6),
    )


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("how much of my screen time yesterday was youtube", "share"),
        ("how much of last week went to youtube", "share"),
        ("how much of youtube did i watch yesterday", "amount"),
    ],
)
def test_how_much_of_a_period_is_a_share(question: str, operation: str) -> None:
    assert _named(question).operation == operation  # type: ignore[attr-defined]


def test_a_short_title_piece_is_a_phrase_whatever_its_last_character() -> None:
    phrases = title_phrases(["周杰伦 - 晴天", "项目群（12）"])
    assert {"晴天", "周杰伦", "项目群"} <= phrases


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("when did i go to bed friday", "last"),
        ("what time did i log off on thursday", "last"),
        ("when did i wrap up coding on wed", "last"),
        ("周五几点关的电脑", "last"),
        ("周三几点上线的", "first"),
        ("what time did i log on monday", "first"),
    ],
)
def test_the_day_begun_or_ended_said_casually(question: str, operation: str) -> None:
    assert _named(question).operation == operation  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "clocks"),
    [
        ("过去两周哪几天一点b站都没看", []),
        ("一点儿也没用", []),
        ("凌晨一点在干嘛", [(1, 0)]),
        ("一点到两点在干嘛", [(1, 0), (2, 0)]),
        ("晚上十一点都在干嘛", [(23, 0)]),
    ],
)
def test_yidian_alone_is_a_bit_not_one_oclock(question: str, clocks: list[tuple[int, int]]) -> None:
    assert find_clocks(question) == clocks


def test_the_days_of_a_thing_said_as_ri_zi() -> None:
    assert _named("本周没用飞书的日子").operation == "days"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("what did i do thursday night after 9", ("21:00", "04:00")),
        ("yesterday evening after 8", ("20:00", "04:00")),
        ("youtube friday night", ("18:00", "04:00")),
    ],
)
def test_night_and_a_bare_hour_after_it(question: str, window: tuple[str, str]) -> None:
    found = find_window(question, cut_hour=4)
    assert found is not None and (found.time_from, found.time_to) == window
    assert find_window("in the past 7 days", cut_hour=4) is None
    assert find_window("how many late nights", cut_hour=4) is None


@pytest.mark.parametrize(
    "question", ["上周一般一天刷多久抖音", "on a typical day last week how much youtube"]
)
def test_a_typical_day_is_an_average_over_the_week(question: str) -> None:
    parts = _named(question)
    assert parts.operation == "average"  # type: ignore[attr-defined]
    spec = find_period(question, today=TODAY)
    assert spec is not None and spec.period == "last_week"


@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("how many days in the last 7 didnt i open youtube", date(2026, 11, 30), TODAY),
        ("youtube pct over the past 14d", date(2026, 11, 23), TODAY),
        (
            "between 9 days ago and 3 days ago how long on 微信",
            date(2026, 11, 27),
            date(2026, 12, 3),
        ),
        ("from 6 days ago until 2 days ago youtube", date(2026, 11, 30), date(2026, 12, 4)),
        ("5天前到2天前刷了多久", date(2026, 12, 1), date(2026, 12, 4)),
    ],
)
def test_a_bare_day_count_and_a_range_of_days_ago_are_periods(
    question: str, first: date, last: date
) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is not None and (spec.date_from, spec.date_to) == (first, last), spec


@pytest.mark.parametrize("question", ["the last 3 weeks of youtube", "past 2 hours on 微信"])
def test_a_count_with_a_unit_is_not_days(question: str) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is None or spec.date_from <= TODAY - timedelta(days=14), spec  # not 2 or 3 days


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("no. of days this month with youtube", "days"),
        ("count of days last week i used 微信", "days"),
        ("the first time i opened 飞书 this month, which day", "first"),
        ("本月头一次用飞书是哪一天", "first"),
        ("whats on my screen yesterday 14:00-15:00", "window"),
        ("what's on my screen 12/1 from 9 to 11", "window"),
    ],
)
def test_days_counted_first_times_and_screen_windows(question: str, operation: str) -> None:
    assert _named(question).operation == operation  # type: ignore[attr-defined]


def test_an_ing_word_beside_an_app_is_what_was_done_with_it() -> None:
    lexicon = Lexicon()
    lexicon.add("youtube", "youtube.com", whole=True)
    lexicon.add("watching", "entertainment")
    lexicon.add("work", "work")
    parts = read_parts("youtube watching last week", lexicon=lexicon, today=TODAY, cut_hour=4)
    assert [m.name for m in parts.things] == ["youtube.com"]
    kept = read_parts("share of youtube in work", lexicon=lexicon, today=TODAY, cut_hour=4)
    assert {m.name for m in kept.things} == {"youtube.com", "work"}


def test_common_title_words_have_their_other_language_forms() -> None:
    assert "发票" in other_forms("invoice")
    assert "report" in other_forms("报告")
    assert other_forms("Hades") == ()  # a name has no other form


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("zoom on wednesday last week?", date(2026, 11, 25)),
        ("friday of last week, how long on 微信", date(2026, 11, 27)),
        ("thursday this week youtube", date(2026, 12, 3)),
    ],
)
def test_a_weekday_then_its_week_is_that_weeks_day(question: str, day: date) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is not None and (spec.date_from, spec.date_to) == (day, day), spec


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("what was i doing this morning 8-9", ("08:00", "09:00")),
        ("yesterday afternoon 2 to 4 on youtube", ("14:00", "16:00")),
        ("this morning 2-3 hours of work?", ("06:00", "12:00")),  # hours counted, no clock
    ],
)
def test_bare_hours_beside_a_part_of_the_day_are_inside_it(
    question: str, window: tuple[str, str]
) -> None:
    found = find_window(question, cut_hour=4)
    assert found is not None and (found.time_from, found.time_to) == window, found


# -- follow-ups that edit one part, floors written after the amount, title names --------


def _lexicon() -> Lexicon:
    lexicon = Lexicon()
    for name, mention in (
        ("notion", "notion.so"), ("抖音", "douyin.com"), ("iterm", "iTerm2"),
        ("vs code", "Visual Studio Code"), ("steam", "Steam"), ("微信读书", "微信读书"),
        ("slack", "Slack"), ("youtube", "youtube.com"),
    ):  # fmt: skip
        lexicon.add(name, mention, whole=True)
    for name, category in (("code", "work"), ("看书", "study"), ("学习", "study")):
        lexicon.add(name, category)
    for name in ("screen time", "屏幕时间", "屏幕", "computer"):
        lexicon.add(name, "active")
    return lexicon


def _asked(turns: list[str]) -> object:
    lexicon = _lexicon()
    asked = effective_question(turns[-1], turns[:-1], today=TODAY, names=lexicon.names_in)
    return read_parts(asked, lexicon=lexicon, today=TODAY, cut_hour=4)


@pytest.mark.parametrize(
    ("turns", "operation", "names", "negated"),
    [
        (["上周哪几天开了notion", "那没开的是哪几天"], "days", ["notion.so"], True),
        (["which days last week did i play steam", "and the days i didn't?"], "days",
         ["Steam"], True),
        (["上周抖音刷了多久", "占总屏幕时间多少"], "share", ["douyin.com", "active"], False),
        (["上周学习一共多久", "那日均呢"], "average", ["study"], False),
        (["slack last week", "per day?"], "average", ["Slack"], False),
        (["how much did i code in vs code this week", "vs iterm, which one is more"],
         "contest", ["iTerm2", "Visual Studio Code"], False),
        (["这周youtube看了多久", "跟抖音比呢"], "contest", ["douyin.com", "youtube.com"], False),
        (["what time did i last play steam yesterday", "and when did i first open it?"],
         "first", ["Steam"], False),
    ],
)  # fmt: skip
def test_a_turn_naming_only_an_operation_keeps_the_things_and_period(
    turns: list[str], operation: str, names: list[str], negated: bool
) -> None:
    parts = _asked(turns)
    first = find_period(turns[0], today=TODAY)
    assert parts.operation == operation  # type: ignore[attr-defined]
    assert sorted({m.name for m in parts.things}) == sorted(names)  # type: ignore[attr-defined]
    assert parts.negated is negated  # type: ignore[attr-defined]
    assert first is not None and parts.period is not None  # type: ignore[attr-defined]
    assert parts.period.date_from == first.date_from  # type: ignore[attr-defined]


def test_so_far_with_a_new_period_keeps_the_share() -> None:
    parts = _asked(["what % of my screen time was youtube last week", "and this week so far?"])
    assert parts.operation == "share"  # type: ignore[attr-defined]
    assert parts.period is not None and parts.period.period == "this_week"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "turns",
    [
        ["上周抖音刷了多久", "how many days did i use the computer"],  # a new thing: its own
        ["slack last week", "youtube vs steam"],  # two new things: a question of its own
    ],
)
def test_a_turn_with_things_of_its_own_is_no_operation_edit(turns: list[str]) -> None:
    lexicon = _lexicon()
    assert (
        not edits_operation(turns[-1], names=lexicon.names_in)
        or len(lexicon.names_in(turns[-1])) == 1
    )
    asked = effective_question(turns[-1], turns[:-1], today=TODAY, names=lexicon.names_in)
    assert "slack" not in asked.lower() and "抖音" not in asked


@pytest.mark.parametrize(
    ("question", "minutes"),
    [
        ("days in the last 2 weeks with youtube for 40+ min", 40),
        ("2h+ of vs code on which days", 120),
        ("上周哪几天B站1小时以上", 60),
        ("which days had an hour or more of slack", 60),
        ("哪几天刷抖音半小时以上", 30),
    ],
)
def test_a_floor_written_after_its_amount_is_a_threshold(question: str, minutes: int) -> None:
    parts = _parts(question)
    assert parts.threshold_minutes == minutes and not parts.under  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "question", ["how many days this month did i stay up past 11", "stayed up past 11 pm?"]
)
def test_a_clock_hour_after_stay_up_past_is_no_count_of_days(question: str) -> None:
    spec = find_period(question, today=TODAY)
    assert spec is None or spec.period == "this_month"


@pytest.mark.parametrize(
    ("question", "thing"),
    [
        ("how much did i code in vs code this week", "Visual Studio Code"),
        ("上周用微信读书看书多久", "微信读书"),
    ],
)
def test_an_activity_word_beside_an_app_is_what_was_done_with_it(question: str, thing: str) -> None:
    parts = read_parts(question, lexicon=_lexicon(), today=TODAY, cut_hour=4)
    assert [m.name for m in parts.things] == [thing]


def test_a_short_proper_name_stands_for_the_one_title_piece_it_is_in() -> None:
    names = proper_names(
        ["Direct message with Lin", "#dev - Acme", "Fix flaky test", "Notes for Ana", "Call Ana"]
    )
    assert names == {"Lin": "Direct message with Lin"}  # "Fix" is a word, Ana is in two


def test_a_well_known_alias_is_known_only_when_a_title_holds_another_form() -> None:
    found = dict(known_aliases("《深入理解计算机系统》第 4 章\n周杰伦 - 晴天"))
    assert found["CSAPP"] == "深入理解计算机系统" and found["Jay Chou"] == "周杰伦"
    assert "SICP" not in found and "League of Legends" not in found


def test_titles_found_in_a_question_are_the_one_it_asks_about() -> None:
    lexicon = Lexicon(title_text="周杰伦 - 晴天\ndirect message with lin")
    for phrase in ("周杰伦", "晴天"):
        lexicon.add(phrase, phrase)
        lexicon.titles.add(phrase)
    lexicon.names["lin"] = "Direct message with Lin"
    lexicon.titles.add("lin")
    lexicon.proper.add("lin")
    assert [m.name for m in lexicon.find("上周哪几天听了周杰伦的晴天")] == ["晴天"]
    assert [m.name for m in lexicon.find("周杰伦晴天听了多久")] == ["晴天"]
    assert [m.name for m in lexicon.find("chatting with Lin on slack")] == [
        "Direct message with Lin"
    ]
    assert lexicon.find("a lin of code") == []  # lowercase: no person


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("yesterday lunchtime 12-1 what was on screen", ("12:00", "13:00")),
        ("what was i up to saturday morning 10:30-12", ("10:30", "12:00")),
        ("morning 11-1 what apps", ("11:00", "13:00")),
        ("昨天午饭时间在干嘛", ("11:00", "14:00")),
    ],
)
def test_bare_hours_with_minutes_or_past_noon_are_inside_their_part(
    question: str, window: tuple[str, str]
) -> None:
    found = find_window(question, cut_hour=4)
    assert found is not None and (found.time_from, found.time_to) == window


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("这个月时间花在哪几类上最多 前三", "top"),
        ("when was my last github visit last week", "last"),
    ],
)
def test_more_cues_of_rankings_and_last_times(question: str, operation: str) -> None:
    parts = _named(question)
    assert parts.operation == operation  # type: ignore[attr-defined]


def test_a_threshold_alone_after_an_amount_is_asked_of_it() -> None:
    parts = _asked(["上周youtube看了多久", "超过5小时了吗"])
    assert parts.operation == "threshold" and parts.threshold_minutes == 300  # type: ignore[attr-defined]
    assert [m.name for m in parts.things] == ["youtube.com"]  # type: ignore[attr-defined]


def test_the_title_holding_a_name_is_its_shortest_phrase() -> None:
    lexicon = Lexicon()
    for phrase in ("原神 新版本", "原神 新版本 PV", "城市夜景"):
        lexicon.names[phrase.replace(" ", "").lower()] = phrase
        lexicon.titles.add(phrase.replace(" ", "").lower())
    assert lexicon.title_holding("原神") == "原神 新版本"
    assert lexicon.title_holding("晴天") is None


@pytest.mark.parametrize(
    ("question", "names"),
    [
        ("学习（比如微信读书）上周多久", ["study"]),
        ("学习 (微信读书 etc) last week", ["study"]),
        ("学习 (微信读书) 上周多久", ["study", "微信读书"]),  # no example word: both
    ],
)
def test_an_app_in_brackets_as_an_example_leaves_the_category(
    question: str, names: list[str]
) -> None:
    parts = read_parts(question, lexicon=_lexicon(), today=TODAY, cut_hour=4)
    assert [m.name for m in parts.things] == names  # type: ignore[attr-defined]
