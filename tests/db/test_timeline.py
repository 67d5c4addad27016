"""One device, one timeline: a record counts from its start to the earlier of its own
end and the next record's start (ties by key), so overlaps on a device are clipped,
never counted twice. Across devices overlaps are real: each device counts its own
time and `query_stats` says how much ran at once (`device_overlap_s`)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.db.migrate import list_migrations, render
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.documents import DigestMetrics
from app.tools import dispatch_json
from tests.helpers import NOW, Api, make_api

DAY = date(2003, 3, 12)
BASE = datetime(2003, 3, 12, 2, 0, tzinfo=UTC)  # 10:00 in Asia/Shanghai, logical day DAY
IDLE_GAP_S = 300
_users = itertools.count()

# The issue's example: Code 10:00-10:10 and Slack 10:05-10:15 on one device, one minute at 12:00.
EXAMPLE = [
    {
        "client_record_id": "code",
        "ts_start": "2003-03-12T10:00:00+08:00",
        "ts_end": "2003-03-12T10:10:00+08:00",
        "app": "Code",
        "window_title": "main.py — timetrace",
    },
    {
        "client_record_id": "slack",
        "ts_start": "2003-03-12T10:05:00+08:00",
        "ts_end": "2003-03-12T10:15:00+08:00",
        "app": "Slack",
        "window_title": "#dev - Acme",
    },
    {
        "client_record_id": "term",
        "ts_start": "2003-03-12T12:00:00+08:00",
        "ts_end": "2003-03-12T12:01:00+08:00",
        "app": "iTerm2",
        "window_title": "zsh — make test",
    },
]


def day_stats(services: Services, user: UserContext, **args: Any) -> dict[str, Any]:
    ctx = services.tool_context(user=user, now=NOW)
    period = {"period": "custom", "date_from": DAY.isoformat(), "date_to": DAY.isoformat()}
    return dispatch_json(ctx, "query_stats", {**period, **args})


def digests(services: Services, user: UserContext) -> dict[str, DigestMetrics]:
    keys = [("day", "2003-03-12"), ("week", "2003-W11"), ("month", "2003-03")]
    out = {}
    for grain, key in keys:
        digest = services.store.get_digest(user_id=user.user_id, grain=grain, scope_key=key)
        assert digest is not None and not digest.stale, (grain, key)
        out[key] = digest.metrics
    return out


def episodes(conn: Any, user: UserContext) -> list[tuple[Any, ...]]:
    rows = conn.execute(
        "SELECT device_id, ts_start, ts_end, category, duration_s, app_seconds, frame_count "
        "FROM episodes WHERE user_id = %s ORDER BY device_id, ts_start",
        [user.user_id],
    ).fetchall()
    return [tuple(row.values()) for row in rows]


# -- the issue's example --------------------------------------------------------------------


def test_the_issue_example_answers_960_seconds_active(services: Services, conn: Any) -> None:
    api = make_api(services)
    assert api.ingest("laptop", EXAMPLE).json()["clipped_s"] == 300.0
    backfill(services.store, now=NOW, settings=services.settings)
    active = day_stats(services, api.user, metric="active_seconds")
    assert (active["value"], active["source"], active["device_overlap_s"]) == (960, "digest", 0)
    apps = day_stats(services, api.user, metric="seconds_by_app")["items"]
    assert {i["app"]: i["seconds"] for i in apps} == {
        "Visual Studio Code": 300,
        "Slack": 600,
        "iTerm2": 60,
    }

    # Replaying the batch (as a client retrying would) changes no row of any layer.
    before = episodes(conn, api.user), digests(services, api.user)
    again = api.ingest("laptop", EXAMPLE[::-1]).json()
    assert (again["new"], again["duplicate"], again["clipped_s"]) == (0, 3, 300.0)
    backfill(services.store, now=NOW, settings=services.settings)
    assert (episodes(conn, api.user), digests(services, api.user)) == before


def test_site_and_uncategorized_time_count_effective_spans(services: Services, api: Api) -> None:
    # A page 10:00-10:10 cut at 10:05 by an unknown tool running to 10:15.
    page = {
        "client_record_id": "page",
        "ts_start": "2003-03-12T10:00:00+08:00",
        "ts_end": "2003-03-12T10:10:00+08:00",
        "app": "Firefox",
        "window_title": "Example Domain",
        "url": "https://example.org/a",
    }
    tool = {**page, "client_record_id": "tool", "app": "mytool", "window_title": "mytool"}
    tool.update(ts_start="2003-03-12T10:05:00+08:00", ts_end="2003-03-12T10:15:00+08:00", url=None)
    api.ingest("laptop", [page, tool])
    window = {
        "user_id": api.user.user_id,
        "day_from": DAY,
        "day_to": DAY,
        "browsers": ["Firefox"],
        "known": [],
        "title_sites": {},
    }
    sites = services.store.site_day_seconds(
        **window, read_from=BASE, read_to=BASE + timedelta(hours=1)
    )
    assert [(s.site, s.from_url_s, s.from_title_s) for s in sites] == [("example.org", 300.0, 0.0)]
    # The page is the last record read: its successor lies past the window and still cuts it.
    sites = services.store.site_day_seconds(
        **window, read_from=BASE, read_to=BASE + timedelta(minutes=1)
    )
    assert [(s.site, s.from_url_s, s.from_title_s) for s in sites] == [("example.org", 300.0, 0.0)]
    items = day_stats(services, api.user, metric="uncategorized")["items"]
    assert [(i["app"], i.get("site"), i["seconds"]) for i in items] == [
        ("mytool", None, 600),
        ("Firefox", "example.org", 300),
    ]


def test_the_example_in_another_order_or_a_day_late_gives_the_same_digests(
    services: Services, conn: Any
) -> None:
    in_order = make_api(services, user_name="in_order")
    reverse = make_api(services, user_name="reverse")
    late = make_api(services, user_name="late")
    in_order.ingest("laptop", EXAMPLE)
    reverse.ingest("laptop", EXAMPLE[::-1])
    code, slack, term = EXAMPLE
    assert late.ingest("laptop", [term, code]).json()["clipped_s"] == 0.0
    # A day later the day is closed and final, with Code's full ten minutes...
    backfill(services.store, now=BASE + timedelta(days=1), settings=services.settings)
    first = digests(services, late.user)["2003-03-12"]
    assert first["active_seconds"] == 660
    # ...then the Slack record arrives: it cuts Code short and the day is rebuilt.
    assert late.ingest("laptop", [slack]).json()["clipped_s"] == 300.0
    backfill(services.store, now=NOW, settings=services.settings)
    want = digests(services, in_order.user)
    assert want["2003-03-12"]["active_seconds"] == 960
    assert digests(services, reverse.user) == want
    assert digests(services, late.user) == want
    assert episodes(conn, reverse.user) == episodes(conn, in_order.user)
    assert episodes(conn, late.user) == episodes(conn, in_order.user)


def test_a_late_record_cuts_short_the_last_record_of_the_day_before(
    services: Services, api: Api
) -> None:
    # 03:50-04:30 runs past the 04:00 cut: it belongs to the 12th, whole, until a record
    # at 04:10 (the 13th) arrives late and cuts it; deleting that record lets it run again.
    running = {
        "client_record_id": "night",
        "ts_start": "2003-03-13T03:50:00+08:00",
        "ts_end": "2003-03-13T04:30:00+08:00",
        "app": "Code",
        "window_title": "rollup.py — timetrace",
    }
    morning = {**running, "client_record_id": "morning", "ts_start": "2003-03-13T05:00:00+08:00"}
    morning["ts_end"] = "2003-03-13T05:10:00+08:00"
    cut = {**running, "client_record_id": "cut", "ts_start": "2003-03-13T04:10:00+08:00"}
    cut["ts_end"] = "2003-03-13T04:20:00+08:00"

    def active(day: str) -> float:
        digest = services.store.get_digest(user_id=api.user.user_id, grain="day", scope_key=day)
        assert digest is not None and not digest.stale
        return digest.metrics["active_seconds"]

    api.ingest("laptop", [running, morning])
    backfill(services.store, now=NOW, settings=services.settings)
    assert (active("2003-03-12"), active("2003-03-13")) == (2400, 600)
    assert api.ingest("laptop", [cut]).json()["clipped_s"] == 1200.0
    backfill(services.store, now=NOW, settings=services.settings)
    assert (active("2003-03-12"), active("2003-03-13")) == (1200, 1200)
    cut_id = services.store.raw_records(
        user_id=api.user.user_id,
        ts_from=datetime(2003, 3, 12, 20, 10, tzinfo=UTC),
        ts_to=datetime(2003, 3, 12, 20, 11, tzinfo=UTC),
        device_id="laptop",
        limit=1,
    )[0].record_id
    services.store.delete_records(user_id=api.user.user_id, record_ids=[cut_id])
    backfill(services.store, now=NOW, settings=services.settings)
    assert (active("2003-03-12"), active("2003-03-13")) == (2400, 600)


def test_the_migration_marks_episodes_built_over_overlaps_stale(
    services: Services, api: Api, conn: Any
) -> None:
    api.ingest("laptop", EXAMPLE)
    api.ingest("desktop", [{**EXAMPLE[0], "client_record_id": "d1"}])
    backfill(services.store, now=NOW, settings=services.settings)
    migration = next(m for m in list_migrations() if m.version == 7)
    # Its marking step, as it ran then (its view is 0019's now).
    text = render(migration, embedding_dim=services.settings.embedding_dim)
    conn.execute("UPDATE episodes e SET stale" + text.split("UPDATE episodes e SET stale", 1)[1])
    stale = conn.execute("SELECT device_id, stale FROM episodes ORDER BY device_id, ts_start")
    assert [tuple(r.values()) for r in stale] == [("desktop", False)] + [("laptop", True)] * 3
    backfill(services.store, now=NOW, settings=services.settings)
    assert day_stats(services, api.user, metric="active_seconds")["value"] == 960 + 600


# -- the rule as a property ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Planned:
    key: str
    start: int  # seconds after BASE
    end: int | None
    app: str
    idle: bool

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "client_record_id": self.key,
            "ts_start": (BASE + timedelta(seconds=self.start)).isoformat(),
            "app": self.app,
            "is_idle": self.idle,
        }
        if self.end is not None:
            out["ts_end"] = (BASE + timedelta(seconds=self.end)).isoformat()
        return out


Interval = tuple[int, int]


def effective_spans(records: Sequence[Planned]) -> list[tuple[Interval, Planned]]:
    """The rule, written out again independently of the SQL: start to the earlier of the
    own end (or the idle gap) and the next start; ties by key in code-point order."""
    ordered = sorted(records, key=lambda r: (r.start, r.key))
    out = []
    for rec, nxt in zip(ordered, [*ordered[1:], None], strict=True):
        end = rec.start + IDLE_GAP_S if rec.end is None else rec.end
        if nxt is not None:
            end = min(end, nxt.start)
        out.append(((rec.start, max(end, rec.start)), rec))
    return out


def union(intervals: Sequence[Interval]) -> list[Interval]:
    merged: list[Interval] = []
    for start, end in sorted(i for i in intervals if i[1] > i[0]):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def length(intervals: Sequence[Interval]) -> int:
    return sum(end - start for start, end in intervals)


def overlap(unions: Sequence[Sequence[Interval]]) -> int:
    """Time covered by two or more of the unions: the union of their pairwise intersections."""
    both = [
        (max(a0, b0), min(a1, b1))
        for x, y in itertools.combinations(unions, 2)
        for a0, a1 in x
        for b0, b1 in y
    ]
    return length(union(both))


APPS = ("Code", "Slack", "微信", "Google Chrome")


@st.composite
def timelines(draw: st.DrawFn, *, max_records: int) -> list[Planned]:
    """Records of one device in sending order: starts on a 3-minute grid (ties and gaps
    over the idle gap are common), ends before or after the next start, or missing."""
    n = draw(st.integers(1, max_records))
    keys = draw(
        st.lists(
            st.text(alphabet="aZ9中文", min_size=1, max_size=3), min_size=n, max_size=n, unique=True
        )
    )
    out = []
    for key in keys:
        start = draw(st.integers(0, 40)) * 180
        span = draw(st.none() | st.integers(0, 25).map(lambda minutes: minutes * 60))
        idle = draw(st.integers(0, 5)) == 0
        app = "loginwindow" if idle else draw(st.sampled_from(APPS))
        out.append(Planned(key, start, None if span is None else start + span, app, idle))
    return out


def on_postgres(*, examples: int) -> settings:
    """A property checked on the database: few examples, the same ones every run."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )


def load(services: Services, devices: dict[str, list[Planned]]) -> tuple[UserContext, float]:
    """A fresh user with these devices' records; the seconds ingest said it clipped."""
    store = services.store
    user = store.ensure_user(name=f"prop{next(_users)}", time_zone="Asia/Shanghai", day_cut_hour=4)
    clipped = 0.0
    for device_id, records in devices.items():
        store.add_device(user_id=user.user_id, device_id=device_id, name="", kind="other")
        body = {"device_id": device_id, "records": [r.payload() for r in records]}
        batch = RecordBatch.model_validate(body)
        clipped += ingest_batch(store, user=user, batch=batch, rules=services.rules).clipped_s
    return user, clipped


@pytest.mark.slow
def test_one_device_counts_the_union_of_its_effective_spans_exactly(services: Services) -> None:
    @on_postgres(examples=30)
    @given(timelines(max_records=10))
    def check(records: list[Planned]) -> None:
        user, clipped = load(services, {"laptop": records})
        backfill(services.store, now=NOW, settings=services.settings)
        spans = effective_spans(records)
        whole = length(union([s for s, _ in spans]))
        active = length(union([s for s, r in spans if not r.idle]))
        day = digests(services, user)["2003-03-12"]
        # Time in an app is active time; idle/locked time is the digest's idle_seconds.
        assert sum(day["seconds_by_app"].values()) + day["idle_seconds"] == whole
        assert day["active_seconds"] + day["idle_seconds"] == whole
        assert sum(day["seconds_by_app"].values()) == day["active_seconds"] == active
        sent = sum(r.end - r.start for r in records if r.end is not None)
        kept = sum(end - start for (start, end), r in spans if r.end is not None)
        assert clipped == sent - kept

    check()


@pytest.mark.slow
def test_device_overlap_is_the_measured_overlap_of_the_devices_unions(
    services: Services,
) -> None:
    @on_postgres(examples=20)
    @given(st.lists(timelines(max_records=6), min_size=2, max_size=3))
    def check(devices: list[list[Planned]]) -> None:
        user, _ = load(services, {f"d{i}": records for i, records in enumerate(devices)})
        active = [[s for s, r in effective_spans(records) if not r.idle] for records in devices]
        want = (overlap([union(spans) for spans in active]), sum(length(s) for s in active))
        live = day_stats(services, user, metric="active_seconds")  # the open tail, by SQL
        assert (live["source"], live["device_overlap_s"], live["value"]) == ("live", *want)
        backfill(services.store, now=NOW, settings=services.settings)
        built = day_stats(services, user, metric="active_seconds")  # from the day digest
        assert (built["source"], built["device_overlap_s"], built["value"]) == ("digest", *want)
        assert digests(services, user)["2003-03-12"]["device_overlap_seconds"] == want[0]

    check()
