"""The coverage view (`query_stats metric=uncategorized`, `timetrace rules check`) and a
model's summary filling in the category of an episode no rule categorised."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from app.cli import main
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.rules.categories import load_rules
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.text import canonical_domain
from app.tools import dispatch_json
from app.tools.coverage import Uncovered, rules_snippet
from tests.fake_openai import FakeOpenAI
from tests.helpers import NOW, Api, make_api, with_models

DAY = date(2003, 3, 12)
# (app, title, url, minutes) in the order they happen on a Windows desktop.
DESKTOP = [
    ("Code.exe", "main.py - timetrace - Visual Studio Code", None, 60),
    ("hades2.exe", "Hades II", None, 40),
    ("firefox.exe", "Onboarding - Acme Wiki — Mozilla Firefox", None, 20),
    ("firefox.exe", "Expenses - Acme Wiki — Mozilla Firefox", None, 10),
    ("chrome.exe", "Intranet - Google Chrome", "https://intranet.acme.com/home", 20),
    ("firefox.exe", "Bank — Mozilla Firefox Private Browsing", None, 10),
]


def _ingest(api: Api, start: datetime) -> None:
    records, t = [], start
    for i, (app, title, url, minutes) in enumerate(DESKTOP):
        end = t + timedelta(minutes=minutes)
        records.append(
            {
                "client_record_id": f"d{i}",
                "ts_start": t.isoformat(),
                "ts_end": end.isoformat(),
                "app": app,
                "window_title": title,
                **({"url": url} if url else {}),
            }
        )
        t = end
    reply = api.ingest("desktop", records)
    assert reply.status_code == 200, reply.text


@pytest.fixture
def desktop_day(services: Services) -> UserContext:
    api = make_api(services, time_zone="UTC", devices=("desktop",))
    _ingest(api, datetime(2003, 3, 12, 9, tzinfo=UTC))
    return api.user


def _uncategorized(services: Services, user: UserContext) -> dict[str, Any]:
    ctx = services.tool_context(user=user, now=NOW)
    args = {"period": "custom", "date_from": str(DAY), "date_to": str(DAY)}
    return dispatch_json(ctx, "query_stats", args | {"metric": "uncategorized"})


EXPECTED_ITEMS = [
    {"app": "hades2", "seconds": 2400, "hours": 0.67, "rule": "app = '^hades2$'"},
    {
        "app": "Firefox",
        "site": "Acme Wiki",
        "seconds": 1800,
        "hours": 0.5,
        "rule": "title = 'Acme Wiki'",
    },
    {
        "app": "Google Chrome",
        "site": "intranet.acme.com",
        "seconds": 1200,
        "hours": 0.33,
        "rule": "domain = '(^|\\.)intranet\\.acme\\.com$'",
    },
    {"app": "Firefox", "seconds": 600, "hours": 0.17},  # a private window: nothing to match
]


def test_the_coverage_view_lists_uncategorized_apps_and_sites_with_a_rule_each(
    services: Services, desktop_day: UserContext
) -> None:
    result = _uncategorized(services, desktop_day)
    assert result["items"] == EXPECTED_ITEMS
    assert (result["uncategorized_seconds"], result["active_seconds"]) == (6000, 9600)
    backfill(services.store, now=NOW, settings=services.settings)
    assert _uncategorized(services, desktop_day)["items"] == EXPECTED_ITEMS


def test_the_suggested_rules_categorise_what_they_were_suggested_for(
    services: Services, desktop_day: UserContext, tmp_path: Path
) -> None:
    items = _uncategorized(services, desktop_day)["items"]
    snippet = rules_snippet([Uncovered.model_validate(item) for item in items])
    assert snippet.count("[[category]]") == 3
    path = tmp_path / "rules.toml"
    path.write_text(snippet.replace('category = "work"', 'category = "study"'), "utf-8")
    rules = load_rules(user_file=path)
    got = [
        rules.classify(app=app, title=title, domain=canonical_domain(url)).category
        for app, title, url, _ in DESKTOP
    ]
    assert got == ["work", "study", "study", "study", "study", "uncategorized"]


def test_rules_check_prints_the_coverage_of_last_week(
    services: Services, db_url: str, tmp_path: Path
) -> None:
    api = make_api(services, user_name="me", time_zone="UTC", devices=("desktop",))
    today = datetime.now(UTC).date()
    last_monday = today - timedelta(days=today.weekday() + 7)
    _ingest(api, datetime.combine(last_monday, datetime.min.time(), UTC) + timedelta(hours=9))
    env = {"TIMETRACE_DATABASE_URL": db_url, "TIMETRACE_DATA_DIR": str(tmp_path)}
    result = CliRunner().invoke(main, ["rules", "check", "--period", "last_week"], env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"{last_monday} – {last_monday + timedelta(days=6)}: 1.67 h uncategorized of "
        "2.67 h active (62.5%)"
    )
    assert lines[1:5] == [
        "    0.67 h  hades2",
        "    0.50 h  Firefox · Acme Wiki",
        "    0.33 h  Google Chrome · intranet.acme.com",
        "    0.17 h  Firefox  (private or untitled windows: no rule to suggest)",
    ]
    assert '[[category]]\nname = "hades2"\ncategory = "work"' in result.output
    assert re.search(r"^title = 'Acme Wiki'$", result.output, re.M)


# -- a model's category for an episode no rule categorised --------------------------------------


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def test_a_summary_fills_in_an_uncategorized_episode_but_never_a_label_or_a_number(
    services: Services, desktop_day: UserContext, fake: FakeOpenAI, conn: Any
) -> None:
    fake.override = lambda name, prompt: (
        '{"title": "Hades II run", "summary": "Played Hades II.", "category": "entertainment", '
        '"tags": [], "cues": []}'
        if name == "episode_summary" and "Hades II" in prompt
        else None
    )
    services, models = with_models(services, fake)
    settings = services.settings
    backfill(services.store, now=NOW, settings=settings)
    before = _by_category(services, desktop_day)
    enrich(services.store, models, settings=settings, now=NOW)
    hades = (
        "SELECT episode_id, category, category_source FROM episodes WHERE primary_app = 'hades2'"
    )
    row = conn.execute(hades).fetchone()
    assert (row["category"], row["category_source"]) == ("entertainment", "model")
    # Numbers never come from a model: the hours by category are what the records say.
    assert _by_category(services, desktop_day) == before
    ctx = services.tool_context(user=desktop_day, now=NOW)
    args = {"period": "custom", "date_from": str(DAY), "date_to": str(DAY)}
    lines = dispatch_json(ctx, "get_episodes", args)["items"]
    assert {"category": "entertainment", "category_by": "model"}.items() <= next(
        line for line in lines if line["id"] == row["episode_id"]
    ).items()
    # A user who labels it `uncategorized` keeps it so, summary or not.
    label = {"target": "episode", "id": row["episode_id"], "category": "uncategorized"}
    assert "error" not in dispatch_json(ctx, "apply_label", label)
    enrich(services.store, models, settings=settings, now=NOW)
    row = conn.execute(hades).fetchone()
    assert (row["category"], row["category_source"]) == ("uncategorized", "records")


def _by_category(services: Services, user: UserContext) -> dict[str, int]:
    ctx = services.tool_context(user=user, now=NOW)
    args = {"period": "custom", "date_from": str(DAY), "date_to": str(DAY)}
    return {i["category"]: i["seconds"] for i in dispatch_json(ctx, "query_stats", args)["items"]}
