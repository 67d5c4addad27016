"""Category and privacy rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import ConfigError
from app.rules.categories import CATEGORIES, load_rules

RULES = load_rules(user_file=None)


@pytest.mark.parametrize(
    ("app", "title", "domain", "category"),
    [
        ("Code", "main.py — proj", None, "work"),
        ("iTerm2", "zsh — git status", None, "work"),
        ("Windows Terminal", "PowerShell", None, "work"),
        ("Google Chrome", "Pull Request #1", "github.com", "work"),
        ("Google Chrome", "机器学习 | Coursera", "coursera.org", "study"),
        ("Anki", "复习", None, "study"),
        ("微信", "微信", None, "social"),
        ("飞书", "项目群", None, "social"),
        ("Slack", "#general", None, "social"),
        ("Google Chrome", "video", "bilibili.com", "entertainment"),
        ("Firefox", "lofi hip hop radio - YouTube", None, "entertainment"),
        ("抖音", "推荐", None, "entertainment"),
        ("Finder", "Downloads", None, "system"),
        ("Preview", "invoice.pdf", None, "uncategorized"),
        ("Google Chrome", "New Tab", None, "uncategorized"),
    ],
)
def test_default_rules(app: str, title: str, domain: str | None, category: str) -> None:
    assert RULES.classify(app=app, title=title, domain=domain).category == category


def test_domain_rules_win_over_the_browser() -> None:
    verdict = RULES.classify(app="Google Chrome", title="x", domain="github.com")
    assert verdict.source == "rule:dev-sites"


def test_subdomains_match_but_lookalikes_do_not() -> None:
    assert (
        RULES.classify(app="Safari", title="", domain="m.bilibili.com").category == "entertainment"
    )
    assert (
        RULES.classify(app="Safari", title="", domain="notbilibili.com").category == "uncategorized"
    )


def test_idle_is_system_whatever_the_app() -> None:
    verdict = RULES.classify(app="Code", title="main.py", domain=None, idle=True)
    assert (verdict.category, verdict.source) == ("system", "idle")


def test_redaction_categorises_from_the_app_alone() -> None:
    verdict = RULES.classify(app="Google Chrome", title="x", domain="bilibili.com", incognito=True)
    assert verdict.action == "redact" and verdict.category == "uncategorized"
    verdict = RULES.classify(app="Code", title="secrets (Incognito)", domain=None)
    assert verdict.action == "redact" and verdict.category == "work"


def test_user_rules_come_first(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(
        '[[category]]\nname = "zhihu-is-study"\ncategory = "study"\ndomain = "zhihu\\\\.com$"\n'
        '[[category]]\nname = "yt-lectures"\ncategory = "study"\ntitle = "lecture"\n'
        'domain = "youtube\\\\.com$"\n'
        '[[exclude]]\nname = "bank"\naction = "drop"\napp = "^银行$"\n',
        encoding="utf-8",
    )
    rules = load_rules(user_file=path)
    assert rules.classify(app="Chrome", title="", domain="zhihu.com").category == "study"
    # Both patterns must match: a lecture on YouTube is study, other YouTube stays fun.
    assert (
        rules.classify(app="Chrome", title="MIT Lecture 3", domain="youtube.com").category
        == "study"
    )
    assert (
        rules.classify(app="Chrome", title="cats", domain="youtube.com").category == "entertainment"
    )
    assert rules.classify(app="银行", title="", domain=None).action == "drop"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[category]]\ncategory = 'work'\napp = 'x'\n", "needs a name"),
        ("[[category]]\nname = 'a'\ncategory = 'play'\napp = 'x'\n", "category must be one of"),
        ("[[category]]\nname = 'a'\ncategory = 'work'\napp = '('\n", "bad app regex"),
        ("[[category]]\nname = 'a'\ncategory = 'work'\n", "matches nothing"),
        ("[[category]]\nname = 'a'\ncategory = 'work'\napp = 'x'\ncolour = 1\n", "unknown keys"),
        ("[[exclude]]\nname = 'a'\naction = 'hide'\napp = 'x'\n", "drop or redact"),
        ("[[exclude]]\nname = 'a'\nincognito = 'yes'\n", "true or false"),
        ("not toml at all [", "not valid TOML"),
        ("[[app]]\naliases = ['x']\n", "needs a name"),
        ("[[app]]\nname = 'x'\naliases = 'x'\n", "aliases must be a list"),
        ("[[app]]\nname = 'x'\nbrowzer = true\n", "unknown keys"),
        ("[[site]]\nnames = ['X']\n", "needs a domain"),
        ("[[site]]\ndomain = 'x.com'\n", "needs names or a title"),
        ("[[site]]\ndomain = 'x.com'\ntitle = '('\n", "bad \\[\\[site\\]\\] regex"),
        ("[[browser_suffix]]\nfoo = 1\n", "needs a pattern"),
    ],
)
def test_bad_rules_files_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_rules(user_file=path)


def test_missing_rules_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read rules file"):
        load_rules(user_file=tmp_path / "nope.toml")


def test_every_category_is_reachable_by_a_default_rule() -> None:
    reachable = {rule.category for rule in RULES.categories} | {"uncategorized"}
    assert reachable == set(CATEGORIES)
