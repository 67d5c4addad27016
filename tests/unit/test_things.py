"""The resolver's names, without a database: apps by alias and nickname, sites by name
and domain, groups, categories and idle time, in Chinese and English, whatever the case,
width or spacing."""

from __future__ import annotations

import pytest

from app.rules.things import Thing, loose, vocabulary_for
from app.tools.registry import default_rules


def match(mention: str) -> Thing:
    thing = vocabulary_for(default_rules().apps).match(mention)
    assert thing is not None, mention
    return thing


@pytest.mark.parametrize(
    ("mention", "app"),
    [
        ("VS Code", "Visual Studio Code"),
        ("vscode", "Visual Studio Code"),
        ("ＶＳ　Ｃｏｄｅ", "Visual Studio Code"),  # full width, ideographic space
        ("Code.exe", "Visual Studio Code"),
        ("PyCharm", "PyCharm"),
        ("pycharm64.exe", "PyCharm"),
        (r"C:\Program Files\JetBrains\PyCharm 2026.1\bin\pycharm64.exe", "PyCharm"),
        ("微信", "微信"),
        ("WeChat", "微信"),
        ("weixin", "微信"),
        ("微信app", "微信"),
        ("Chrome", "Google Chrome"),
        ("谷歌浏览器", "Google Chrome"),
        ("steam", "Steam"),
        ("iterm", "iTerm2"),
    ],
)
def test_apps_by_canonical_name_alias_and_nickname(mention: str, app: str) -> None:
    thing = match(mention)
    assert (thing.kind, thing.name, thing.apps) == ("app", app, (app,))


@pytest.mark.parametrize("mention", ["终端", "命令行", "terminal", "Terminal", "shell", "控制台"])
def test_a_terminal_in_words_is_every_terminal_app(mention: str) -> None:
    thing = match(mention)
    assert (thing.kind, thing.matched_by) == ("app", "group")
    assert {"iTerm2", "Windows Terminal", "PowerShell", "Terminal", "GNOME Terminal"} <= set(
        thing.apps
    )


@pytest.mark.parametrize("mention", ["浏览器", "browser", "Browser"])
def test_the_browser_is_every_browser(mention: str) -> None:
    thing = match(mention)
    assert {"Google Chrome", "Firefox", "Safari", "Microsoft Edge"} <= set(thing.apps)


@pytest.mark.parametrize(
    ("mention", "domain", "apps"),
    [
        ("知乎", "zhihu.com", ("知乎",)),
        ("Zhihu", "zhihu.com", ("知乎",)),
        ("zhihu.com", "zhihu.com", ("知乎",)),
        ("知乎网站", "zhihu.com", ("知乎",)),
        ("YouTube", "youtube.com", ("YouTube",)),
        ("油管", "youtube.com", ("YouTube",)),
        ("B站", "bilibili.com", ("哔哩哔哩",)),
        ("b 站", "bilibili.com", ("哔哩哔哩",)),
        ("哔哩哔哩", "bilibili.com", ("哔哩哔哩",)),
        ("bilibili", "bilibili.com", ("哔哩哔哩",)),
        ("GitHub", "github.com", ()),
        ("github.com", "github.com", ()),
        ("Stack Overflow", "stackoverflow.com", ()),
    ],
)
def test_sites_by_name_nickname_and_domain_with_the_app_of_the_same_name(
    mention: str, domain: str, apps: tuple[str, ...]
) -> None:
    thing = match(mention)
    assert (thing.kind, thing.name, thing.domains, thing.apps) == ("site", domain, (domain,), apps)


def test_a_domain_stem_is_never_taken_from_a_subdomain() -> None:
    # mail.qq.com must not make "QQ" a site: QQ is an app.
    assert match("QQ").kind == "app"
    assert match("飞书").kind == "app"


@pytest.mark.parametrize(
    ("mention", "category"),
    [
        ("娱乐", "entertainment"),
        ("entertainment", "entertainment"),
        ("摸鱼", "entertainment"),
        ("工作", "work"),
        ("Work", "work"),
        ("学习", "study"),
        ("study", "study"),
        ("社交", "social"),
        ("未分类", "uncategorized"),
    ],
)
def test_categories_in_both_languages(mention: str, category: str) -> None:
    thing = match(mention)
    assert (thing.kind, thing.categories) == ("category", (category,))


@pytest.mark.parametrize("mention", ["离开电脑", "away", "AFK", "idle", "锁屏", "locked", "空闲"])
def test_time_away_is_idle(mention: str) -> None:
    thing = match(mention)
    assert (thing.kind, thing.idle) == ("idle", True)
    assert thing.apps == ("Lock screen",)  # a locked screen not marked idle counts too


@pytest.mark.parametrize("mention", ["", "   ", "Hades", "某个不存在的东西", "xyzzy"])
def test_what_no_rule_knows_is_left_to_the_users_data(mention: str) -> None:
    assert vocabulary_for(default_rules().apps).match(mention) is None


def test_the_loose_form_ignores_case_width_and_spacing() -> None:
    assert loose("ＶＳ Code") == loose("vscode") == loose("V.S-Code")
    assert loose("B 站") == loose("b站")


def test_describe_says_what_was_counted() -> None:
    assert match("知乎").describe() == {
        "kind": "site",
        "name": "zhihu.com",
        "label": "知乎",
        "matched_by": "nickname",
        "apps": ["知乎"],
    }
    assert match("VS Code").describe() == {
        "kind": "app",
        "name": "Visual Studio Code",
        "label": "Visual Studio Code",
        "matched_by": "nickname",
    }


def test_category_arguments_take_the_words_people_use() -> None:
    from app.tools.reads import EpisodesArgs
    from app.tools.stats import QueryStatsArgs

    assert QueryStatsArgs.model_validate({"category": "娱乐"}).category == "entertainment"
    assert QueryStatsArgs.model_validate({"category": "Work"}).category == "work"
    assert EpisodesArgs.model_validate({"category": "学习"}).category == "study"
    with pytest.raises(ValueError, match="category"):
        QueryStatsArgs.model_validate({"category": "xyzzy"})


@pytest.mark.parametrize(
    ("mention", "name"),
    [
        ("刷抖音", "douyin.com"),
        ("看B站", "bilibili.com"),
        ("用VS Code", "Visual Studio Code"),
        ("在知乎上", "zhihu.com"),
        ("微信里", "微信"),
        ("玩Steam", "Steam"),
        ("看油管视频", "youtube.com"),
        ("上网", "browser"),  # a group name, not 上 + 网
        ("using Slack", "slack.com"),
    ],
)
def test_a_leading_verb_or_trailing_word_is_tried_without(mention: str, name: str) -> None:
    assert match(mention).name == name
