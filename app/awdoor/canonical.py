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
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from aw_core.models import Event
from aw_transform import (
    limit_events,
    merge_events_by_keys,
    sort_by_duration,
    split_url_events,
)

_S = r'"[^"\\]*"'  # a string literal (none with escapes: those go to the engine)
_LIST = rf"\[(?:{_S}(?:,{_S})*)?\]"
# aw-client's `fullDesktopQuery` (aw-webui's Activity query), whitespace outside strings
# taken out, in three parts: its head up to `categorize`, the categories (and the
# category filter), its merges and RETURN. The parts it leaves out or repeats by its
# parameters are optional or repeated here; the browsers' app names and the categories
# (which act on each event alone) are any literal.
_HEAD = re.compile(
    rf"events=flood\(query_bucket\(find_bucket\((?P<window>{_S})\)\)\);"
    rf"not_afk=flood\(query_bucket\(find_bucket\((?P<afk>{_S})\)\)\);"
    r'not_afk=filter_keyvals\(not_afk,"status",\["not-afk"\]\);'
    r"browser_events=\[\];"
    rf"(?P<browsers>(?:events_(\w+)=flood\(query_bucket\({_S}\)\);"
    rf'window_\4=filter_keyvals\(events,"app",{_LIST}\);'
    r"events_\4=filter_period_intersect\(events_\4,window_\4\);"
    r"events_\4=split_url_events\(events_\4\);"
    r"browser_events=concat\(browser_events,events_\4\);"
    r"browser_events=sort_by_timestamp\(browser_events\);)+)"
    r'(?P<audible>audible_events=filter_keyvals\(browser_events,"audible",\[true\]\);'
    r"not_afk=period_union\(not_afk,audible_events\);)?"
    r"(?:events=filter_period_intersect\(events,not_afk\);)?"
)
_CATEGORIZE = "events=categorize(events,"
_CATEGORY_FILTER = ');events=filter_keyvals(events,"$category",'
_MERGES = 'title_events=sort_by_duration(merge_events_by_keys(events,["app","title"]));'
_MERGES_THEN = re.compile(
    re.escape(_MERGES)
    + r'app_events=sort_by_duration\(merge_events_by_keys\(title_events,\["app"\]\)\);'
    r'cat_events=sort_by_duration\(merge_events_by_keys\(events,\["\$category"\]\)\);'
    r"app_events=limit_events\(app_events,(?P<apps>\d+)\);"
    r"title_events=limit_events\(title_events,(?P<titles>\d+)\);"
    r"duration=sum_durations\(events\);"
    r"browser_events=split_url_events\(browser_events\);"
    r'browser_urls=merge_events_by_keys\(browser_events,\["url"\]\);'
    r"browser_urls=sort_by_duration\(browser_urls\);"
    r"browser_urls=limit_events\(browser_urls,(?P<urls>\d+)\);"
    r'browser_domains=merge_events_by_keys\(browser_events,\["\$domain"\]\);'
    r"browser_domains=sort_by_duration\(browser_domains\);"
    r"browser_domains=limit_events\(browser_domains,(?P<domains>\d+)\);"
    r"browser_duration=sum_durations\(browser_events\);"
    r'RETURN=\{"events":events,"window":\{"app_events":app_events,'
    r'"title_events":title_events,"cat_events":cat_events,"active_events":not_afk,'
    r'"duration":duration\},"browser":\{"domains":browser_domains,"urls":browser_urls,'
    r'"duration":browser_duration\}\};'
)
_BUCKET = re.compile(rf"flood\(query_bucket\(({_S})\)\)")
_TAIL = re.compile(r"\btitle_events\s*=\s*sort_by_duration\(")
# A string literal as aw-core's query2 reads one (it ends at a quote that does not
# follow a backslash; one left open runs to the end, so that no start scans it again),
# or whitespace.
_TOKEN = re.compile(r'("(?:[^"]|(?<=\\)")*(?:"|$))|\s+')
# What a literal holds outside its strings: brackets, numbers, true, false, null.
_LITERAL = re.compile(r"(?:[\[\]{},:0-9.eE+\-]|true|false|null)*")


# What the head leaves for the merges, asked of the engine in place of the tail.
_HEAD_RETURN = 'RETURN = {"events": events, "active": not_afk, "browser": browser_events};'


@dataclass(frozen=True, slots=True)
class Shape:
    """The canonical query's parameters: what the pieces and their sum depend on."""

    head: str  # the query up to its merges, with a RETURN of what they read
    window: str  # find_bucket's string for the window bucket (the first bucket holding it)
    afk: str  # and for the afk bucket
    browsers: tuple[str, ...]  # browser buckets, by id
    union: bool  # audible tabs (or "always active" apps) count as not-afk (`period_union`)
    limits: tuple[int, ...]  # apps, titles, URLs, domains (and browser titles)
    webui: bool = False  # aw-webui's own form (app/awdoor/webui_shape.py): buckets by id,
    # no `events` returned, browser titles and (empty) stopwatch events returned
    exact: bool = False  # window and afk are bucket ids (`query_bucket`), not find_bucket's


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
    browser_titles: list[Event]


def squeezed(text: str) -> str:
    """The text without whitespace outside its string literals."""
    return _TOKEN.sub(lambda m: m.group(1) or "", text)


def _literal(text: str) -> bool:
    """Whether `text` is one literal (a list, an object, a string, a number...) and
    nothing else: no call, no statement."""
    return _LITERAL.fullmatch(_TOKEN.sub(lambda m: "0" if m.group(1) else "", text)) is not None


def categories_ok(middle: str) -> bool:
    """`categorize` with a literal, and maybe the category filter with another."""
    if not middle.endswith(");"):
        return False
    classes, _, kept = middle[:-2].partition(_CATEGORY_FILTER)
    return _literal(classes) and _literal(kept)


def head_of(text: str) -> str | None:
    """The query up to its merges, with a RETURN of what they read."""
    tail = _TAIL.search(text)
    return None if tail is None else text[: tail.start()] + _HEAD_RETURN


@functools.lru_cache(maxsize=64)
def recognise(text: str) -> Shape | None:
    """The canonical query's parameters, or None when `text` is not that query."""
    flat = squeezed(text)
    at, merges = flat.find(_CATEGORIZE), flat.find(_MERGES)
    if at < 0 or merges < at:
        return None
    head = _HEAD.fullmatch(flat, 0, at)
    tail = _MERGES_THEN.fullmatch(flat, merges)
    head_text = head_of(text)
    if head is None or tail is None or head_text is None:
        return None
    if not categories_ok(flat[at + len(_CATEGORIZE) : merges]):
        return None
    return Shape(
        head=head_text,
        window=head["window"][1:-1],
        afk=head["afk"][1:-1],
        browsers=tuple(b[1:-1] for b in _BUCKET.findall(head["browsers"])),
        union=head["audible"] is not None,
        limits=(int(tail["apps"]), int(tail["titles"]), int(tail["urls"]),
                int(tail["domains"])),
    )  # fmt: skip


def _seconds(events: Iterable[Event]) -> list[float]:
    return [e.duration.total_seconds() for e in events]


def json_default(value: object) -> Any:
    """orjson's fallback for what the engine leaves in a result: durations in seconds."""
    if isinstance(value, timedelta):
        return value.total_seconds()
    raise TypeError(f"{type(value).__name__} is not JSON")


def piece_of(result: dict[str, Any], *, events_json: bool = True) -> Piece:
    """A piece from the engine's answer to `Shape.head` over a stretch of time
    (`events_json`: whether the answer returns the events themselves)."""
    events: list[Event] = result["events"]
    browser = split_url_events(result["browser"])
    return Piece(
        events_json=orjson.dumps(events, default=json_default)[1:-1] if events_json else b"",
        active=result["active"],
        titles=merge_events_by_keys(events, ["app", "title"]),
        categories=merge_events_by_keys(events, ["$category"]),
        seconds=_seconds(events),
        urls=merge_events_by_keys(browser, ["url"]),
        domains=merge_events_by_keys(browser, ["$domain"]),
        browser_seconds=_seconds(browser),
        browser_titles=merge_events_by_keys(browser, ["title"]) if not events_json else [],
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
    apps_n, titles_n, urls_n, domains_n = shape.limits[:4]
    titles = _merged((p.titles for p in pieces), ["app", "title"])
    apps = sort_by_duration(merge_events_by_keys(titles, ["app"]))
    browser: dict[str, Any] = {
        "domains": limit_events(_merged((p.domains for p in pieces), ["$domain"]), domains_n),
        "urls": limit_events(_merged((p.urls for p in pieces), ["url"]), urls_n),
    }
    if shape.webui:
        tabs = _merged((p.browser_titles for p in pieces), ["title"])
        browser["titles"] = limit_events(tabs, shape.limits[4])
    browser["duration"] = _float_sum(p.browser_seconds for p in pieces)
    result: dict[str, Any] = {
        "window": {
            "app_events": limit_events(apps, apps_n),
            "title_events": limit_events(titles, titles_n),
            "cat_events": _merged((p.categories for p in pieces), ["$category"]),
            "active_events": _active(pieces, union=shape.union),
            "duration": _float_sum(p.seconds for p in pieces),
        },
        "browser": browser,
    }
    if shape.webui:
        return {**result, "stopwatch": {"stopwatch_events": []}}
    events = b",".join(p.events_json for p in pieces if p.events_json)
    return {"events": orjson.Fragment(b"[" + events + b"]"), **result}
