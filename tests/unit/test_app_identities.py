"""Real app names and browser titles: canonical apps, sites read from titles, private
windows — on the real-format corpus of Windows, macOS, Linux and Android activity."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.demo.corpus import CorpusEntry, load_corpus
from app.rules.categories import load_rules
from app.text import canonical_domain, has_cjk

RULES = load_rules(user_file=None)
CORPUS = load_corpus()
BROWSERS = RULES.apps.browsers


def _verdict(app: str, title: str, url: str | None = None) -> tuple[str, str, str | None]:
    verdict = RULES.classify(app=app, title=title, domain=canonical_domain(url))
    return verdict.category, verdict.source, verdict.action


# -- the corpus ------------------------------------------------------------------------


def test_the_corpus_covers_every_platform_tool_and_language() -> None:
    assert len(CORPUS) >= 300
    assert {e.platform for e in CORPUS} == {"windows", "macos", "linux", "android"}
    assert {e.tool for e in CORPUS} == {"activitywatch", "screenpipe", "dayflow"}
    assert sum(has_cjk(e.title) or has_cjk(e.app) for e in CORPUS) >= 60
    assert sum(not has_cjk(e.title + e.app) for e in CORPUS) >= 200
    # Real formats: executables, bundle ids, WM_CLASS, packages, URL-less browser titles.
    apps = {e.app for e in CORPUS}
    assert {"firefox.exe", "Code.exe", "powershell.exe", "LockApp.exe"} <= apps
    assert {"com.microsoft.VSCode", "jetbrains-pycharm", "com.ss.android.ugc.aweme"} <= apps
    assert sum(1 for e in CORPUS if e.url is None and e.title.endswith("Mozilla Firefox")) >= 15


def test_the_rules_give_at_least_95_percent_of_the_corpus_its_category() -> None:
    wrong = [
        (e.app, e.title, e.category, category)
        for e in CORPUS
        if (category := _verdict(e.app, e.title, e.url)[0]) != e.category
    ]
    accuracy = 1 - len(wrong) / len(CORPUS)
    assert accuracy >= 0.95, wrong


def test_every_category_of_every_platform_is_reached() -> None:
    reached = Counter((e.platform, e.category) for e in CORPUS if e.category != "uncategorized")
    for platform in ("windows", "macos", "linux", "android"):
        assert {c for p, c in reached if p == platform} >= {
            "work",
            "social",
            "entertainment",
            "system",
            "study",
        } - ({"work"} if platform == "android" else set())


PRIVATE = [e for e in CORPUS if e.privacy == "redact" and RULES.apps.canonical(e.app) in BROWSERS]


def test_the_corpus_has_private_windows_of_every_major_browser_in_english_and_chinese() -> None:
    assert len(PRIVATE) >= 30
    canonical = {RULES.apps.canonical(e.app) for e in PRIVATE}
    assert {"Firefox", "Google Chrome", "Microsoft Edge", "Safari", "Brave"} <= canonical
    assert sum(has_cjk(e.title) for e in PRIVATE) >= 8


@pytest.mark.parametrize("entry", PRIVATE, ids=lambda e: e.title[:40])
def test_every_private_window_title_is_redacted(entry: CorpusEntry) -> None:
    assert _verdict(entry.app, entry.title, entry.url)[2] == "redact"


def test_no_ordinary_title_of_the_corpus_is_redacted_or_dropped() -> None:
    wrongly = [e.title for e in CORPUS if e.privacy == "keep" and _verdict(e.app, e.title)[2]]
    assert wrongly == []


# -- app identities ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("Code.exe", "Visual Studio Code"),
        ("Code", "Visual Studio Code"),
        ("code", "Visual Studio Code"),
        ("com.microsoft.VSCode", "Visual Studio Code"),
        ("/Applications/Visual Studio Code.app", "Visual Studio Code"),
        ("firefox.exe", "Firefox"),
        ("C:\\Program Files\\Mozilla Firefox\\firefox.exe", "Firefox"),
        ("Navigator.firefox", "Firefox"),
        ("msedge.exe", "Microsoft Edge"),
        ("jetbrains-pycharm", "PyCharm"),
        ("pycharm64.exe", "PyCharm"),
        ("org.gnome.Terminal", "GNOME Terminal"),
        ("WindowsTerminal.exe", "Windows Terminal"),
        ("com.ss.android.ugc.aweme", "抖音"),
        ("com.tencent.mm", "微信"),
        ("WeChat.exe", "微信"),
        ("Weixin.exe", "微信"),
        ("zoom.us", "Zoom"),
        ("LockApp.exe", "Lock screen"),
        ("loginwindow", "Lock screen"),
        ("MyTool.exe", "mytool"),
        ("mytool", "mytool"),
        ("  Preview ", "Preview"),
    ],
)
def test_reported_names_map_to_one_canonical_app(raw: str, canonical: str) -> None:
    assert RULES.apps.canonical(raw) == canonical
    assert RULES.classify(app=raw, title="", domain=None).app == canonical


@pytest.mark.parametrize(
    ("title", "page"),
    [
        ("ChatGPT — Mozilla Firefox", "ChatGPT"),
        ("general (Channel) - Acme - Slack — Mozilla Firefox", "general (Channel) - Acme - Slack"),
        ("Gmail - Mozilla Firefox (Private Browsing)", "Gmail"),
        ("lofi - YouTube - Google Chrome", "lofi - YouTube"),
        ("(3) YouTube - Google Chrome (Incognito)", "YouTube"),
        ("Mail - Outlook - Personal - Microsoft\u200b Edge", "Mail - Outlook"),
        ("Board - Jira and 3 more pages - Work - Microsoft\u200b Edge", "Board - Jira"),
        ("Hacker News - Brave", "Hacker News"),
        ("如何高效学习英语？ - 知乎 - 360安全浏览器 15.3", "如何高效学习英语？ - 知乎"),
        ("庆余年-腾讯视频 - QQ浏览器", "庆余年-腾讯视频"),
        ("ChatGPT — Private Browsing", "ChatGPT"),
        ("main.py - timetrace", "main.py - timetrace"),
    ],
)
def test_browser_suffixes_are_cut_from_titles(title: str, page: str) -> None:
    assert RULES.apps.page_title(title) == page


def test_a_site_read_from_a_title_is_marked_as_a_lower_confidence_source() -> None:
    assert _verdict("firefox.exe", "ChatGPT — Mozilla Firefox") == (
        "work",
        "title:ai-assistants",
        None,
    )
    # With a URL the same page is categorised by its domain, at full confidence.
    assert _verdict("firefox.exe", "ChatGPT — Mozilla Firefox", "https://chatgpt.com/") == (
        "work",
        "rule:ai-assistants",
        None,
    )
    # Only browsers have sites: a terminal titled "ChatGPT" is a terminal.
    assert _verdict("WindowsTerminal.exe", "ChatGPT")[:2] == ("work", "rule:terminals")
    assert _verdict("Slack.exe", "Reddit - Dive into anything")[0] == "social"


def test_a_redacted_window_is_categorised_from_its_app_alone() -> None:
    # The title names YouTube, but a private window must not leak it through the category.
    assert _verdict("firefox.exe", "lofi - YouTube — Mozilla Firefox Private Browsing") == (
        "uncategorized",
        "default",
        "redact",
    )


def test_a_users_file_adds_apps_sites_and_suffixes_before_the_shipped_ones(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(
        """
[[app]]
name = "Acme IDE"
aliases = ["acmeide.exe", "com.acme.ide"]

[[app]]
name = "Mammoth"
browser = true
aliases = ["mammoth.exe"]

[[browser_suffix]]
pattern = '\\s+-\\s+Mammoth$'

[[site]]
domain = "wiki.acme.com"
title = ' - Acme Wiki$'

[[site]]
domain = "reddit.com"
title = 'YouTube$'

[[category]]
name = "acme-ide"
category = "work"
app = '^acme ide$'

[[category]]
name = "acme-wiki"
category = "study"
domain = '(^|\\.)wiki\\.acme\\.com$'
""",
        encoding="utf-8",
    )
    rules = load_rules(user_file=path)
    assert rules.classify(app="AcmeIDE.exe", title="x", domain=None).app == "Acme IDE"
    assert rules.classify(app="com.acme.ide", title="x", domain=None).category == "work"
    wiki = rules.classify(app="mammoth.exe", title="Onboarding - Acme Wiki - Mammoth", domain=None)
    assert (wiki.category, wiki.source) == ("study", "title:acme-wiki")
    # The user's [[site]] comes first: their mapping wins over the shipped one.
    assert rules.apps.site_of("cats - YouTube") == "reddit.com"
    assert load_rules(user_file=None).apps.site_of("cats - YouTube") == "youtube.com"
