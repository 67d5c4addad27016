"""aw-webui's canonical query recognised from its text (app/awdoor/canonical.py): every
form aw-client's `fullDesktopQuery` builds, and nothing else."""

from __future__ import annotations

from dataclasses import replace

import pytest
from aw_client.classes import default_classes
from aw_client.queries import DesktopQueryParams, fullDesktopQuery

from app.awdoor.canonical import recognise


def _query(**changes: object) -> str:
    params: dict[str, object] = {
        "bid_window": "aw-watcher-window_desk",
        "bid_afk": "aw-watcher-afk_desk",
        "bid_browsers": ["aw-watcher-web-firefox", "aw-watcher-web-chrome_desk"],
        "classes": default_classes,
    }
    params.update(changes)
    text = fullDesktopQuery(DesktopQueryParams(**params))  # type: ignore[arg-type]
    return text.replace("{default_limit}", "50")


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"filter_afk": False},
        {"include_audible": False},
        {"filter_classes": [["Work"], ["Media", "Video"]]},
        {"bid_browsers": ["aw-watcher-web-opera_desk"]},
    ],
)
def test_every_form_of_the_builders_query_is_recognised(changes: dict[str, object]) -> None:
    text = _query(**changes)
    shape = recognise(text)
    assert shape is not None
    assert (shape.window, shape.afk) == ("aw-watcher-window_desk", "aw-watcher-afk_desk")
    browsers = changes.get("bid_browsers", ["aw-watcher-web-firefox", "aw-watcher-web-chrome_desk"])
    assert sorted(shape.browsers) == sorted(browsers)  # type: ignore[call-overload]
    assert shape.union == changes.get("include_audible", True)
    assert shape.limits == (100, 100, 50, 50)
    # As aw-webui sends it: the lines joined (aw-server joins them with nothing).
    joined = recognise("".join(text.split("\n")))
    assert joined is not None and replace(joined, head="") == replace(shape, head="")


def test_a_bucket_named_with_spaces_keeps_them() -> None:
    shape = recognise(_query(bid_window="my window bucket"))
    assert shape is not None and shape.window == "my window bucket"


@pytest.mark.parametrize(
    "edit",
    [
        lambda q: "nothing = [];" + q,  # a statement more
        lambda q: q.replace('"status", ["not-afk"]', '"status", ["afk"]'),
        lambda q: q.replace("flood(query_bucket(find_bucket", "query_bucket((find_bucket", 1),
        lambda q: q.replace('["app", "title"]', '["title"]'),
        lambda q: q.replace('"duration": duration', '"duration": app_events'),
        lambda q: q.replace("sort_by_duration(browser_urls)", "sort_by_timestamp(browser_urls)"),
        # A statement hidden where the categories go: not a literal.
        lambda q: q.replace(
            "events = categorize(events, [",
            'events = categorize(events, []); events = merge_events_by_keys(events, ["app"]);'
            " events = categorize(events, [",
        ),
        lambda q: q.replace("events = categorize(events, [", "events = categorize(events, x + ["),
        # query2 ends a string at a quote after no backslash: `"x\\"` runs on, and what
        # looks like the next string is a statement.
        lambda q: q.replace(
            "events = categorize(events, [",
            'events = categorize(events, ["x\\\\", "]); events = merge_events_by_keys(events, '
            '["app"]); y = (["], [',
        ),
    ],
)
def test_any_other_text_is_left_to_the_engine(edit: object) -> None:
    assert callable(edit)
    assert recognise(edit(_query())) is None


@pytest.mark.parametrize("browsers", [[], ["aw-watcher-web-unknown"]])
def test_a_query_without_browsers_is_left_to_the_engine(browsers: list[str]) -> None:
    assert recognise(_query(bid_browsers=browsers)) is None
