"""A year of ActivityWatch history for bench/aw_door.py's canonical query: the same events
in the door's tables and in a real aw-server (PyPI, its SQLite store), then aw-webui's
Activity query (as its build sends it, and as aw-client's builder writes it) with its
default categories over the last day, week and month of it, timed on both in the same
run.

    events = history(days=365)
    load_door(store, user_id=…, base=door_url, events=events)
    load_aw(aw_url, events)
    figures = time_canonical(door=door_url, aw=aw_url, end=HISTORY_END)
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
from aw_client.classes import default_classes

from app.store.awdoor import AwDoorStore, AwEventWrite
from tests.aw_real import activity_query, seconds_by
from tests.aw_webui_query import webui_activity_query

HISTORY_END = datetime(2005, 1, 1, tzinfo=UTC)  # a sentinel: the year before it
HOST = "bench-desk"
WINDOW = f"aw-watcher-window_{HOST}"
AFK = f"aw-watcher-afk_{HOST}"
WEB = "aw-watcher-web-firefox"
BUCKETS = {WINDOW: "currentwindow", AFK: "afkstatus", WEB: "web.tab.current"}
_APPS = [
    ("Code.exe", ["main.py — timetrace", "test_door.py — timetrace", "README.md — notes"]),
    ("firefox.exe", []),
    ("Slack.exe", ["general | Slack", "design | Slack"]),
    ("WINWORD.EXE", ["report.docx - Word"]),
    ("WindowsTerminal.exe", ["PowerShell", "git log"]),
]
_TABS = [
    ("https://github.com/ActivityWatch/aw-webui/pulls", "Pull requests · GitHub"),
    ("https://www.youtube.com/watch?v=x", "a talk - YouTube"),
    ("https://docs.python.org/3/library/asyncio.html", "asyncio — Python 3 docs"),
    ("https://news.ycombinator.com/", "Hacker News"),
]
_S = 1_000_000  # µs per second
Events = dict[str, list[tuple[int, int, dict[str, Any]]]]  # bucket -> (start µs, µs, data)
PERIODS = {"day": 1, "week": 7, "month": 30}


def _day(rng: random.Random, midnight: int, out: Events) -> None:
    """09:00-17:00 UTC at the desk (lunch away), windows of 3 s to 2 min, Firefox tabs."""
    t = midnight + 9 * 3600 * _S
    stop = midnight + 17 * 3600 * _S
    while t < stop:
        app, titles = rng.choice(_APPS)
        duration = int(rng.choice((3, 8, 15, 30, 60, 120)) * rng.uniform(0.8, 1.2) * 1000) * 1000
        if app == "firefox.exe":
            url, title = rng.choice(_TABS)
            out[WEB].append((t + 200_000, duration - 400_000, {"url": url, "title": title,
                             "audible": False, "incognito": False, "tabCount": 4}))  # fmt: skip
            title = f"{title} — Mozilla Firefox"
        else:
            title = rng.choice(titles)
        out[WINDOW].append((t, duration, {"app": app, "title": title}))
        t += duration + rng.choice((0, 0, 0, 1, 3)) * _S
    noon, one = midnight + 12 * 3600 * _S, midnight + 13 * 3600 * _S
    desk, home = midnight + 9 * 3600 * _S, t
    for start, end, status in ((desk, noon, "not-afk"), (noon, one, "afk"), (one, home, "not-afk")):
        out[AFK].append((start, end - start, {"status": status}))
    out[AFK].append((home, midnight + (24 + 9) * 3600 * _S - home, {"status": "afk"}))


def history(*, days: int, seed: int = 11) -> Events:
    """`days` of a working desktop's window, afk and tab events, ending at HISTORY_END."""
    rng = random.Random(seed)
    out: Events = {bucket: [] for bucket in BUCKETS}
    first = HISTORY_END - timedelta(days=days)
    for n in range(days):
        _day(rng, int((first + timedelta(days=n)).timestamp()) * _S, out)
    return out


def _create_buckets(base: str) -> None:
    with httpx.Client(base_url=base, timeout=60) as client:
        for bucket, kind in BUCKETS.items():
            client.post(
                f"/api/0/buckets/{bucket}",
                json={"client": "bench", "type": kind, "hostname": HOST},
            ).raise_for_status()


def _chunks(rows: list[Any], size: int) -> Iterator[list[Any]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


def load_door(store: AwDoorStore, *, user_id: int, base: str, events: Events) -> None:
    """The buckets through the door, the events as its group commits write them (one
    statement per chunk), so that its live conversion does not convert the year."""
    _create_buckets(base)
    writer = store.aw_event_writer()
    try:
        for bucket, rows in events.items():
            for chunk in _chunks(rows, 20_000):
                ids = writer.new_ids(n=len(chunk) + 1)
                write = AwEventWrite(
                    bucket_ids=[bucket] * len(chunk),
                    event_ids=ids[:-1],
                    starts_us=[r[0] for r in chunk],
                    durations=[r[1] for r in chunk],
                    datas=[orjson.dumps(r[2]).decode() for r in chunk],
                    change=ids[-1],
                )
                writer.save(user_id=user_id, events=write)
    finally:
        writer.close()


def load_aw(base: str, events: Events) -> None:
    """The same buckets and events into aw-server, as aw-client inserts them."""
    _create_buckets(base)
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    with httpx.Client(base_url=base, timeout=600) as client:
        for bucket, rows in events.items():
            for chunk in _chunks(rows, 5_000):
                body = [
                    {
                        "timestamp": (epoch + timedelta(microseconds=s)).isoformat(),
                        "duration": d / _S,
                        "data": data,
                    }
                    for s, d, data in chunk
                ]
                client.post(f"/api/0/buckets/{bucket}/events", json=body).raise_for_status()


def _timed(client: httpx.Client, base: str, body: dict[str, Any], runs: int) -> tuple[float, Any]:
    """The median wall time of `runs` answers (ms), and the answer."""
    times, answer = [], None
    for _ in range(runs):
        started = time.perf_counter()
        response = client.post(f"{base}/api/0/query/", json=body)
        times.append((time.perf_counter() - started) * 1000)
        response.raise_for_status()
        answer = response.json()
    return statistics.median(times), answer


def _sums(answer: Any) -> dict[str, dict[str, float]]:
    (result,) = answer
    return {
        "app": seconds_by(result["window"]["app_events"], "app"),
        "category": seconds_by(result["window"]["cat_events"], "$category"),
    }


def _equal(ours: dict[str, dict[str, float]], theirs: dict[str, dict[str, float]]) -> bool:
    return all(
        ours[k].keys() == theirs[k].keys()
        and all(abs(ours[k][name] - theirs[k][name]) <= 1.0 for name in theirs[k])
        for k in theirs
    )


def _queries() -> dict[str, list[str]]:
    """aw-webui's own Activity query (as its build sends it), then aw-client's
    `fullDesktopQuery`: both with the default categories."""
    client = activity_query(window=WINDOW, afk=AFK, browsers=[WEB], classes=default_classes)
    classes = [[list(name), rule] for name, rule in default_classes]
    webui = webui_activity_query(window=WINDOW, afk=AFK, browsers=[WEB], categories=classes)
    return {"webui": webui, "canonical": client.split("\n")}


def time_canonical(*, door: str, aw: str, end: datetime, runs: int = 3) -> dict[str, Any]:
    """aw-webui's Activity query (`webui_…`, first) and aw-client's (`canonical_…`), with
    the default categories, for the last month, week and day before `end`, on the door
    and on aw-server: the median ms of each, their ratio, and whether both answer the
    same seconds per app and per category (within 1 s). The door's first answer to each
    (`…_ms_door_cold`: aw-webui's month is the first query of all, nothing kept and the
    database's pages not yet read; the week and day come after it, and aw-client's
    query finds the cuts kept) is timed apart, then how long until its pieces, worked
    out off the request, answer (`…_s_door_ready`); its median is of the `runs` after
    that, as aw-webui asks again on opening the view again; `…_ms_door_engine` is one answer by
    aw-core's engine alone (the query with a statement added, which the door does not
    recognise)."""
    figures: dict[str, Any] = {}
    with httpx.Client(timeout=600) as client:
        for kind, query in _queries().items():
            for name, days in reversed(PERIODS.items()):
                period = f"{(end - timedelta(days=days)).isoformat()}/{end.isoformat()}"
                body = {"timeperiods": [period], "query": query}
                figures.update(_one(client, door=door, aw=aw, body=body, runs=runs,
                                    key=f"{kind}_{name}"))  # fmt: skip
    return figures


def _ready(client: httpx.Client, door: str, body: dict[str, Any], *, cold_ms: float) -> float:
    """Seconds from the cold answer until the door answers from its pieces (worked out
    off the request after a cold ask): asked again, a little later each time, until an
    answer takes less than a fifth of the cold one (at most 2 minutes)."""
    started = time.perf_counter()
    wait = cold_ms / 1000
    while time.perf_counter() - started < 120:
        time.sleep(wait)
        took, _ = _timed(client, door, body, 1)
        if took < cold_ms / 5:
            break
        wait *= 1.5
    return time.perf_counter() - started


def _one(
    client: httpx.Client, *, door: str, aw: str, body: dict[str, Any], runs: int, key: str
) -> dict[str, Any]:
    cold_ms, _ = _timed(client, door, body, 1)
    ready_s = _ready(client, door, body, cold_ms=cold_ms)
    door_ms, ours = _timed(client, door, body, runs)
    # The same query where the door does not recognise it: aw-core's engine alone.
    engine = {**body, "query": ["nothing = [];", *body["query"]]}
    engine_ms, _ = _timed(client, door, engine, 1)
    aw_ms, theirs = _timed(client, aw, body, runs)
    return {
        f"{key}_ms_door_cold": round(cold_ms, 1),
        f"{key}_s_door_ready": round(ready_s, 1),
        f"{key}_ms_door": round(door_ms, 1),
        f"{key}_ms_door_engine": round(engine_ms, 1),
        f"{key}_ms_aw": round(aw_ms, 1),
        f"{key}_ratio": round(aw_ms / door_ms, 2),
        f"{key}_equal": _equal(_sums(ours), _sums(theirs)),
    }
