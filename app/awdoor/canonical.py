"""aw-webui's canonical query, recognised, and its answer put together from pieces.

    shape = recognise(text)             # None: not the canonical query (the engine runs it)
    piece = piece_of(engine_result)     # a stretch of time's result, from the engine's head
    result = combine([piece, ...], shape=shape)   # equal to one engine run over them all

The canonical query is aw-client's `fullDesktopQuery` (aw-webui's Activity view, with
categories): window events flooded, intersected with the not-afk periods (and audible
browser tabs), categorised; then merged by app and title, by app, by category, the
browsers' URLs and domains, durations summed. `recognise` takes its parameters out of
the text (bucket names, categories, whether afk and audible tabs count, the limits),
builds the query again with aw-client's own builder and compares the two, whitespace
aside: any other text is not the canonical query.

Its head (everything before the merges) only calls functions that act on each event or
on neighbours a few seconds apart. So over a stretch of time cut where no event of its
buckets runs across the cut and none ends or starts within flood's reach of it
(app/awdoor/daycache.py finds such cuts), the head's results are the pieces' results
put end to end; the one exception, `period_union` merging two periods that touch at a
cut, is done again here. The merges are sums that keep each key's first event, and
`sum_durations` a float sum taken in event order, so `combine` gives what one engine
run over the whole period gives (held equal by tests/db/test_aw_door_canonical.py).
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from aw_client.queries import DesktopQueryParams, fullDesktopQuery
from aw_core.models import Event
from aw_transform import (
    limit_events,
    merge_events_by_keys,
    sort_by_duration,
    split_url_events,
)

_STRING = r'"((?:[^"\\]|\\.)*)"'
_WINDOW = re.compile(r"\bevents\s*=\s*flood\(query_bucket\(find_bucket\(" + _STRING + r"\)\)\);")
_AFK = re.compile(r"\bnot_afk\s*=\s*flood\(query_bucket\(find_bucket\(" + _STRING + r"\)\)\);")
_BROWSER = re.compile(r"\bevents_\w+\s*=\s*flood\(query_bucket\(" + _STRING + r"\)\);")
_CATEGORIZE = re.compile(
    r"\bevents\s*=\s*categorize\(events,\s*(.*?)\);\s*"
    r'(?=events\s*=\s*filter_keyvals\(events,\s*"\$category"|title_events\s*=)',
    re.S,
)
_CATEGORY_FILTER = re.compile(
    r'\bevents\s*=\s*filter_keyvals\(events,\s*"\$category",\s*(.*?)\);\s*title_events\s*=', re.S
)
_LIMIT = re.compile(r"\b(\w+)\s*=\s*limit_events\(\1,\s*(\d+)\);")
_TAIL = re.compile(r"\btitle_events\s*=\s*sort_by_duration\(")
_PLACEHOLDER = [[["_"], {"type": "none"}]]
# What the head leaves for the merges, asked of the engine in place of the tail.
_HEAD_RETURN = 'RETURN = {"events": events, "active": not_afk, "browser": browser_events};'
_LIMITED = ("app_events", "title_events", "browser_urls", "browser_domains")


@dataclass(frozen=True, slots=True)
class Shape:
    """The canonical query's parameters: what the pieces and their sum depend on."""

    head: str  # the query up to its merges, with a RETURN of what they read
    window: str  # find_bucket's string for the window bucket (the first bucket holding it)
    afk: str  # and for the afk bucket
    browsers: tuple[str, ...]  # browser buckets, by id
    union: bool  # audible tabs count as not-afk (`period_union`)
    limits: tuple[int, int, int, int]  # apps, titles, URLs, domains


@dataclass(frozen=True, slots=True)
class Piece:
    """The canonical query's result over a stretch of time, before its merges' sorting."""

    events_json: bytes  # `events` as JSON, without the brackets
    active: list[Event]  # `not_afk`
    titles: list[Event]  # merged by app and title, in first-seen order
    categories: list[Event]  # merged by $category
    seconds: list[float]  # each event's duration, in order (sum_durations is a float sum)
    urls: list[Event]
    domains: list[Event]
    browser_seconds: list[float]


def _unquote(value: str) -> str:
    return value.replace('\\"', '"')


def _squeezed(text: str) -> str:
    text = _CATEGORIZE.sub("events=categorize(events,CLASSES);", text)
    return re.sub(r"\s+", "", _LIMIT.sub(r"\1=limit_events(\1,N);", text))


@functools.lru_cache(maxsize=64)
def recognise(text: str) -> Shape | None:
    """The canonical query's parameters, or None when `text` is not that query."""
    window, afk, tail = _WINDOW.search(text), _AFK.search(text), _TAIL.search(text)
    browsers = [_unquote(b) for b in _BROWSER.findall(text)]
    if window is None or afk is None or tail is None or not browsers:
        return None
    if _CATEGORIZE.search(text) is None:
        return None
    limits = {name: int(n) for name, n in _LIMIT.findall(text)}
    category_filter = _CATEGORY_FILTER.search(text)
    try:
        filtered = json.loads(category_filter.group(1)) if category_filter else []
    except ValueError:
        return None
    squeezed = re.sub(r"\s+", "", text)
    params = DesktopQueryParams(
        bid_window=_unquote(window.group(1)),
        bid_afk=_unquote(afk.group(1)),
        bid_browsers=browsers,
        classes=_PLACEHOLDER,  # type: ignore[arg-type]
        filter_classes=filtered,
        filter_afk="events=filter_period_intersect(events,not_afk);" in squeezed,
        include_audible='audible_events=filter_keyvals(browser_events,"audible",[true]);'
        in squeezed,
    )
    built = fullDesktopQuery(params).replace("{default_limit}", "100")
    if _squeezed(built) != _squeezed(text) or any(name not in limits for name in _LIMITED):
        return None
    return Shape(
        head=text[: tail.start()] + _HEAD_RETURN,
        window=_unquote(window.group(1)),
        afk=_unquote(afk.group(1)),
        browsers=tuple(browsers),
        union=params.include_audible,
        limits=(
            limits["app_events"],
            limits["title_events"],
            limits["browser_urls"],
            limits["browser_domains"],
        ),
    )


def _seconds(events: Iterable[Event]) -> list[float]:
    return [e.duration.total_seconds() for e in events]


def json_default(value: object) -> Any:
    """orjson's fallback for what the engine leaves in a result: durations in seconds."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    raise TypeError(f"{type(value).__name__} is not JSON")


def piece_of(result: dict[str, Any]) -> Piece:
    """A piece from the engine's answer to `Shape.head` over a stretch of time."""
    events: list[Event] = result["events"]
    browser = split_url_events(result["browser"])
    return Piece(
        events_json=orjson.dumps(events, default=json_default)[1:-1],
        active=result["active"],
        titles=merge_events_by_keys(events, ["app", "title"]),
        categories=merge_events_by_keys(events, ["$category"]),
        seconds=_seconds(events),
        urls=merge_events_by_keys(browser, ["url"]),
        domains=merge_events_by_keys(browser, ["$domain"]),
        browser_seconds=_seconds(browser),
    )


def _active(pieces: Sequence[Piece], *, union: bool) -> list[Event]:
    """`not_afk` end to end; `period_union` joins two periods that touch at a cut."""
    out: list[Event] = []
    for piece in pieces:
        for event in piece.active:
            last = out[-1] if out else None
            if union and last is not None and last.timestamp + last.duration == event.timestamp:
                joined = copy.deepcopy(last)
                joined.duration = event.timestamp + event.duration - last.timestamp
                out[-1] = joined
            else:
                out.append(event)
    return out


def _merged(lists: Iterable[list[Event]], keys: list[str]) -> list[Event]:
    return sort_by_duration(merge_events_by_keys(list(itertools.chain(*lists)), keys))


def _float_sum(lists: Iterable[list[float]]) -> timedelta:
    """aw-core's `sum_durations`: seconds as floats, summed in event order."""
    return timedelta(seconds=sum(itertools.chain.from_iterable(lists)))


def combine(pieces: Sequence[Piece], *, shape: Shape) -> dict[str, Any]:
    """The canonical query's result over the pieces' stretches of time, end to end."""
    apps_n, titles_n, urls_n, domains_n = shape.limits
    titles = _merged((p.titles for p in pieces), ["app", "title"])
    apps = sort_by_duration(merge_events_by_keys(titles, ["app"]))
    events = b",".join(p.events_json for p in pieces if p.events_json)
    return {
        "events": orjson.Fragment(b"[" + events + b"]"),
        "window": {
            "app_events": limit_events(apps, apps_n),
            "title_events": limit_events(titles, titles_n),
            "cat_events": _merged((p.categories for p in pieces), ["$category"]),
            "active_events": _active(pieces, union=shape.union),
            "duration": _float_sum(p.seconds for p in pieces),
        },
        "browser": {
            "domains": limit_events(_merged((p.domains for p in pieces), ["$domain"]), domains_n),
            "urls": limit_events(_merged((p.urls for p in pieces), ["url"]), urls_n),
            "duration": _float_sum(p.browser_seconds for p in pieces),
        },
    }
