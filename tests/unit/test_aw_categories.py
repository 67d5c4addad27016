"""ActivityWatch's categories become TimeTrace category rules that sort windows as
aw-core's own `categorize` sorts them (checked against aw-core, imported here), are
shown before anything is applied, and are added to the rules file only once."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from aw_client.classes import default_classes
from aw_core.models import Event as AwEvent
from aw_transform.classify import Rule, categorize

from app.importers.aw_categories import (
    AwCategoriesError,
    apply,
    offer,
    parse_classes,
    propose,
)
from app.rules.categories import load_rules

# aw-webui's `classes` setting: its defaults (from aw-client) as the server keeps them,
# one made case-insensitive with a priority, one with a regex RE2 cannot run, and one
# whose path names no category TimeTrace has.
SETTING: list[dict[str, Any]] = [
    {"name": list(path), "rule": rule, "data": {"color": "#fff"}} for path, rule in default_classes
]
SETTING += [
    {"name": ["学习", "课程"], "rule": {"type": "regex", "regex": "慕课|Coursera", "priority": 35}},
    {"name": ["Work", "Lookahead"], "rule": {"type": "regex", "regex": "foo(?=bar)"}},
    {"name": ["Finance"], "rule": {"type": "regex", "regex": "Bank"}},
    {"name": ["Media"], "rule": {"type": "none"}},
]
WINDOWS = [
    ("Code.exe", "aw-core — flood.py — Visual Studio Code"),  # Work/Programming/ActivityWatch
    ("firefox.exe", "Pull requests · GitHub — Mozilla Firefox"),
    ("firefox.exe", "my github notes — Mozilla Firefox"),  # case-sensitive: Uncategorized
    ("chrome.exe", "Coursera | 慕课 - Google Chrome"),
    ("Spotify.exe", "Spotify Premium"),
    ("spotify.exe", "spotify"),  # ignore_case: still Media/Music
    ("Slack.exe", "#general | Acme - Slack"),
    ("thunderbird.exe", "Inbox - Thunderbird"),
    ("firefox.exe", "reddit: the front page — Mozilla Firefox"),
    ("firefox.exe", "YouTube — Mozilla Firefox"),
    ("WINWORD.EXE", "Google Docs copy - Word"),
    ("blender.exe", "Blender [scene.blend]"),
]


def _aw_paths() -> dict[tuple[str, str], list[str]]:
    classes = [(list(c["name"]), Rule(c["rule"])) for c in SETTING]
    events = [
        AwEvent(timestamp="2026-03-01T00:00:00+00:00", data={"app": a, "title": t})
        for a, t in WINDOWS
    ]
    return {
        (e.data["app"], e.data["title"]): e.data["$category"] for e in categorize(events, classes)
    }


def test_the_rules_sort_windows_as_aw_cores_categorize_does(tmp_path: Path) -> None:
    proposal = propose(parse_classes(SETTING, source="test"), source="test")
    rules_file = tmp_path / "rules.toml"
    assert apply(proposal, rules_file=rules_file) == len(proposal.rules) > 20
    rules = load_rules(user_file=rules_file)
    words = {"Work": "work", "Media": "entertainment", "Comms": "social", "学习": "study"}
    compared = 0
    for (app, title), path in _aw_paths().items():
        verdict = rules.classify(app=app, title=title, domain=None)
        if path == ["Uncategorized"]:
            assert not verdict.source.startswith("rule:aw:"), (app, title, verdict)
            compared += 1
            continue
        assert verdict.source.removeprefix("rule:").removeprefix("title:").startswith("aw:"), (
            app,
            title,
            verdict,
        )
        assert verdict.source.split(":", 2)[2] == "/".join(path), (app, title)
        assert verdict.category == words[path[0]], (app, title, path)
        compared += 1
    assert compared == len(WINDOWS)


def test_the_preview_shows_every_rule_and_what_was_skipped_and_why() -> None:
    proposal = propose(parse_classes(SETTING, source="http://x"), source="http://x")
    preview = proposal.preview()
    assert "aw:Work/Programming -> work (app ~ (?-i:GitHub|Stack Overflow" in preview
    assert "aw:Media/Music -> entertainment (title ~ Spotify|Deezer)" in preview
    assert "aw:学习/课程 -> study" in preview
    assert "skipped Finance: names none of TimeTrace's categories" in preview
    assert "skipped Work/Lookahead: RE2 cannot run its regex" in preview
    assert "aw:Media ->" not in preview  # a parent with no rule of its own
    # The highest rank first, as aw-core picks: the 3-deep class before its parents.
    names = [r.name for r in proposal.rules]
    assert names.index("aw:Work/Programming/ActivityWatch") < names.index("aw:Work/Programming")
    assert names.index("aw:学习/课程") < names.index("aw:Work/Programming")  # priority 35


def test_applying_twice_adds_nothing_and_keeps_the_users_own_rules_first(tmp_path: Path) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text(
        '[[category]]\nname = "mine"\ncategory = "study"\ntitle = "GitHub"\n', encoding="utf-8"
    )
    proposal = propose(parse_classes(SETTING, source="t"), source="t")
    added = apply(proposal, rules_file=rules_file)
    assert added == len(proposal.rules)
    assert apply(proposal, rules_file=rules_file) == 0
    held = tomllib.loads(rules_file.read_text(encoding="utf-8"))["category"]
    assert held[0]["name"] == "mine" and len(held) == 1 + added
    verdict = load_rules(user_file=rules_file).classify(app="x", title="GitHub", domain=None)
    assert (verdict.category, verdict.source) == ("study", "rule:mine")


def test_a_broken_rules_file_is_left_as_it_was(tmp_path: Path) -> None:
    rules_file = tmp_path / "rules.toml"
    rules_file.write_text('[[category]]\nname = "bad"\ncategory = "nope"\napp = "x"\n')
    before = rules_file.read_text()
    proposal = propose(parse_classes(SETTING, source="t"), source="t")
    with pytest.raises(Exception, match="category must be one of"):
        apply(proposal, rules_file=rules_file)
    assert rules_file.read_text() == before
    assert list(tmp_path.iterdir()) == [rules_file]


def test_an_export_file_of_aw_webui_is_read_and_applying_needs_a_rules_file(
    tmp_path: Path,
) -> None:
    exported = tmp_path / "aw-category-export.json"
    exported.write_text(
        '{"categories": [{"name": ["Work"], "rule": {"type": "regex", "regex": "Jira"}}]}'
    )
    said = offer(url=None, categories_file=exported, apply_them=False, rules_file=None)
    assert "aw:Work -> work (app ~ (?-i:Jira))" in said and "--apply-categories" in said
    with pytest.raises(AwCategoriesError, match="TIMETRACE_RULES_FILE"):
        offer(url=None, categories_file=exported, apply_them=True, rules_file=None)
    bad = tmp_path / "bad.json"
    bad.write_text('{"categories": [{"rule": {}}]}')
    with pytest.raises(AwCategoriesError, match="without a name"):
        offer(url=None, categories_file=bad, apply_them=False, rules_file=None)
