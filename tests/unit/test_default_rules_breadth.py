"""The broader defaults: where a name says what it is (an interpreter, a build tool, a
documentation page, a console, CI or a hosting dashboard), the default rules say it,
so a real-format Windows day (executables, titles without URLs) is mostly categorised
without any rule of the user's."""

from __future__ import annotations

import pytest

from app.demo.corpus import load_windows_day, uncategorized_share
from app.rules.categories import load_rules

RULES = load_rules(user_file=None)


def test_a_windows_day_is_at_most_a_quarter_uncategorized_with_the_defaults() -> None:
    day = load_windows_day()
    assert sum(s.seconds for s in day) > 6 * 3600
    share = uncategorized_share(RULES, day)
    assert share <= 0.25, share
    # What is left is what no name tells: shopping, news, a new tab, local files.
    left = {
        s.title
        for s in day
        if RULES.classify(app=s.app, title=s.title, domain=None).category == "uncategorized"
    }
    assert "Hacker News - Google Chrome" in left and "notes.txt - Notepad" in left


@pytest.mark.parametrize(
    ("app", "title", "domain", "category"),
    [
        ("python.exe", "C:\\Python312\\python.exe", None, "work"),
        ("python3.12", "python3.12", None, "work"),
        ("node.exe", "npm run dev", None, "work"),
        ("cargo.exe", "cargo build --release", None, "work"),
        ("javaw.exe", "Acme Order Service", None, "work"),
        ("javaw.exe", "Minecraft 1.20.1", None, "entertainment"),
        ("gcc.exe", "gcc", None, "work"),
        ("MSBuild.exe", "MSBuild", None, "work"),
        ("Google Chrome", "Built-in Types", "docs.python.org", "study"),
        ("Google Chrome", "Guide", "docs.docker.com", "study"),
        ("Google Chrome", "Quarterly plan", "docs.google.com", "work"),
        ("Google Chrome", "周报", "docs.feishu.cn", "work"),
        ("Firefox", "Getting started | FastAPI — Mozilla Firefox", None, "study"),
        ("Firefox", "Python 教程 — Mozilla Firefox", None, "study"),
        ("chrome.exe", "Untitled document - Google Docs - Google Chrome", None, "work"),
        ("Google Chrome", "EC2", "console.aws.amazon.com", "work"),
        ("Google Chrome", "Dashboard", "dash.cloudflare.com", "work"),
        ("chrome.exe", "Home - Microsoft Azure - Google Chrome", None, "work"),
        ("chrome.exe", "Workflow runs · acme/timetrace - Google Chrome", None, "work"),
        ("chrome.exe", "acme/timetrace: Self-hosted activity memory - Google Chrome", None, "work"),
        ("chrome.exe", "timetrace #512 Console [Jenkins] - Google Chrome", None, "work"),
        ("chrome.exe", "Hacker News - Google Chrome", None, "uncategorized"),
        ("Code.exe", "docs.md - timetrace - Visual Studio Code", None, "work"),
    ],
)
def test_a_name_that_says_what_it_is_gets_its_category(
    app: str, title: str, domain: str | None, category: str
) -> None:
    assert RULES.classify(app=app, title=title, domain=domain).category == category
