"""The pure parts of reading a question: the lexicon's longest-name scan, typos and
words that are no names; windows inside days; the operation cue words pick."""

from __future__ import annotations

from datetime import date

import pytest

from app.agent.lexicon import Lexicon, edit_distance
from app.agent.parts import read_parts
from app.agent.titles import title_phrases
from app.agent.windows import find_window

LEXICON = Lexicon(
    names={
        "slack": "Slack",
        "visualstudiocode": "Visual Studio Code",
        "vscode": "Visual Studio Code",
        "vx": "微信",
        "微信": "微信",
        "b站": "bilibili.com",
        "youtube": "youtube.com",
        "油管": "youtube.com",
        "写代码": "work",
        "work": "work",
        "fun": "entertainment",
        "电脑": "active",
        "computer": "active",
        "chrome": "Google Chrome",
    },
    whole={"slack", "visualstudiocode", "youtube", "work", "chrome"},
)
TODAY = date(2026, 12, 5)


def names(question: str) -> list[str]:
    return [m.name for m in LEXICON.find(question)]


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("how many minutes on Slack yesterday", ["Slack"]),
        ("vx聊了多久", ["微信"]),  # a nickname glued to a verb
        ("昨天B站和油管哪个多", ["bilibili.com", "youtube.com"]),
        ("昨天用了多久 VS Code", ["Visual Studio Code"]),  # mixed languages, two words
        ("有没有哪天没写代码", ["work"]),
        ("how long was I at the computer", ["active"]),
        ("how long on Slak and Chorme", ["Slack", "Google Chrome"]),  # typos
        ("the day before", []),  # no names here
        ("what did I do", []),
    ],
)
def test_the_lexicon_finds_every_mention_and_nothing_else(question: str, found: list[str]) -> None:
    assert names(question) == found


def test_a_typo_is_read_only_near_a_whole_name_of_four_letters() -> None:
    assert names("Slakc") == ["Slack"]  # a swap of two letters is one edit
    assert names("wrk") == []  # three letters: too short to guess
    assert names("Photoshop") == []
    assert edit_distance("youtbe", "youtube", 1) == 1
    assert edit_distance("abcdef", "uvwxyz", 2) == 3


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("between 2 and 4 pm on Monday", ("14:00", "16:00")),
        ("from 9 to 11 am", ("09:00", "11:00")),
        ("on Slack from 9 to 5", ("09:00", "17:00")),
        ("what did I do after midnight last night", ("00:00", "04:00")),
        ("14:00-16:00", ("14:00", "16:00")),
        ("上午十点到十二点", ("10:00", "12:00")),
        ("下午2点到4点", ("14:00", "16:00")),
        ("晚上10点到凌晨2点", ("22:00", "02:00")),  # across midnight
        ("after 10 pm", ("22:00", "04:00")),  # to the end of the logical day
        ("晚上11点以后", ("23:00", "04:00")),
        ("before 9 am", ("04:00", "09:00")),
        ("昨天晚上", ("18:00", "04:00")),
        ("what did I do yesterday afternoon", ("12:00", "18:00")),
    ],
)
def test_windows_inside_days(question: str, window: tuple[str, str]) -> None:
    found = find_window(question, cut_hour=4)
    assert found is not None and (found.time_from, found.time_to) == window


def test_dates_and_counts_are_no_windows() -> None:
    assert find_window("2026-11-16到2026-11-22", cut_hour=4) is None
    assert find_window("between 2026-11-16 and 2026-11-22", cut_hour=4) is None
    assert find_window("How much time per category in the past 7 days?", cut_hour=4) is None
    assert find_window("what did I do after 3 days off", cut_hour=4) is None


@pytest.mark.parametrize(
    ("question", "operation"),
    [
        ("what percent of yesterday was fun", "share"),
        ("上周YouTube占了多少比例", "share"),
        ("average work hours a day last week", "average"),
        ("上周平均每天写代码多久", "average"),
        ("top 3 apps yesterday", "top"),
        ("昨天用得最多的3个应用", "top"),
        ("which days last week did I not open YouTube", "days"),
        ("有没有哪天没写代码", "days"),
        ("did I spend more on work or fun", "contest"),
        ("B站和油管哪个多", "contest"),
        ("Slack and Chrome together", "together"),
        ("was I on YouTube for over 45 minutes yesterday", "threshold"),
        ("昨天看油管超过1小时了吗", "threshold"),
        ("how long on Slack", "amount"),
        ("between 2 and 4 pm yesterday", "window"),
    ],
)
def test_cue_words_pick_the_operation(question: str, operation: str) -> None:
    parts = read_parts(question, lexicon=LEXICON, today=TODAY, cut_hour=4)
    assert parts.operation == operation


def test_a_threshold_and_a_count_are_read_with_their_units() -> None:
    parts = read_parts("over 45 minutes on Slack", lexicon=LEXICON, today=TODAY, cut_hour=4)
    assert parts.threshold_minutes == 45 and not parts.under
    parts = read_parts("不到半小时的微信", lexicon=LEXICON, today=TODAY, cut_hour=4)
    assert parts.threshold_minutes == 30 and parts.under
    parts = read_parts("top five sites", lexicon=LEXICON, today=TODAY, cut_hour=4)
    assert parts.top_n == 5 and parts.sites


def test_title_phrases_skip_edge_words_and_short_words() -> None:
    titles = ["Attention Is All You Need - arXiv", "git revert HEAD", "迁移说明.md — x"]
    phrases = title_phrases(titles)
    assert {"Attention Is All You Need", "git revert", "迁移说明.md", "arXiv"} <= phrases
    assert not {"git", "Is", "Is All", "You Need - arXiv", "x", "迁"} & phrases
