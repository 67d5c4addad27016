"""The batch build (backfill, imports) leaves the pyramid the per-day live build leaves:
the same episodes with the same members, digests and signals (floats to 1e-6), over
two weeks that cross a week and a month boundary on three devices; with the user's own
categories, the same seconds by user category in the digests."""

from __future__ import annotations

import math
from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import pytest

from app.pyramid.build import PyramidStore, build_device, rollup_days
from app.runtime.services import Services
from tests.faults import pyramid_snapshot
from tests.helpers import NOW, SampleRecipe

# Late May into June 2002: a month boundary (a chunk boundary of the batch) and weeks.
FORTNIGHT = SampleRecipe(start=date(2002, 5, 24), days=14, seed=25, mean_record_s=60, built=False)

OtherDb = Callable[..., AbstractContextManager[tuple[Services, Any]]]


def add_a_tablet(services: Services) -> None:
    """A fourth device busy from 09:00 to 18:00 UTC each day and across each day's cut
    (03:40 to 04:20 Shanghai), in 7-minute records with a 30 s gap after every fifth:
    time on two devices at once (the sample has none), cut by days and by months."""
    from app.ingest.records import RecordBatch, ingest_batch

    store = services.store
    user = store.get_user_by_id(user_id=1)
    assert user is not None
    store.add_device(user_id=1, device_id="tablet", name="Tablet", kind="phone")
    records = []
    for offset in range(FORTNIGHT.days + 1):
        day = datetime.combine(FORTNIGHT.start + timedelta(days=offset), time(), UTC)
        for first, last in (
            (day + timedelta(hours=9), day + timedelta(hours=18)),
            (day + timedelta(hours=19, minutes=40), day + timedelta(hours=20, minutes=20)),
        ):
            at, n = first, 0
            while at < last:
                end = at + timedelta(minutes=7)
                records.append(
                    {
                        "client_record_id": f"t-{at:%Y%m%d%H%M%S}",
                        "ts_start": at.isoformat(),
                        "ts_end": end.isoformat(),
                        "app": "Notes",
                        "window_title": f"note {n % 4}",
                    }
                )
                n += 1
                at = end + timedelta(seconds=30 if n % 5 == 0 else 0)
    batch = RecordBatch.model_validate({"device_id": "tablet", "records": records})
    ingest_batch(store, user=user, batch=batch, rules=services.rules)


def add_categories(services: Services) -> dict[str, int]:
    """A tree of the user's (Journal > Drafts under work, Games under entertainment) and
    rules naming them, before the tablet's records come (ingest categorises them by the
    rules; no day is marked, so the batch takes every day): "note 1" is Drafts, "note 2"
    Games, "note 3" only the kind entertainment (no user category), the rest of Notes
    Journal. Returns the categories' ids by name."""
    from app.pyramid.user_categories import add_category
    from app.store.user_rules import RuleDraft

    store = services.store
    journal = add_category(store, user_id=1, parent="work", name="Journal")
    drafts = add_category(store, user_id=1, parent="Journal", name="Drafts")
    games = add_category(store, user_id=1, parent="entertainment", name="Games")
    rules = [
        ("title", "note 1", "work", drafts.category_id),
        ("title", "note 2", "entertainment", games.category_id),
        ("title", "note 3", "entertainment", None),
        ("app", "Notes", "work", journal.category_id),
    ]
    written = store.write_user_rules(
        user_id=1,
        rules=[
            RuleDraft(rule_id=None, kind=k, pattern=p, category=c, category_id=i)
            for k, p, c, i in rules
        ],
    )
    assert written.device_days == []
    return {"Journal": journal.category_id, "Drafts": drafts.category_id,
            "Games": games.category_id}  # fmt: skip


def per_day_build(store: PyramidStore, *, services: Services) -> None:
    """The live path over every unbuilt device-day, one at a time, then the digests."""
    days = []
    for w in store.devices_with_work():
        user = store.get_user_by_id(user_id=w.user_id)
        assert user is not None
        for day in store.days_to_build(user_id=w.user_id, device_id=w.device_id):
            build_device(
                store,
                user=user,
                device_id=w.device_id,
                now=NOW,
                settings=services.settings,
                days=[day],
            )
            days.append((user, day))
    rollup_days(store, sorted(set(days), key=lambda d: d[1]), now=NOW, settings=services.settings)


def assert_same(got: Any, want: Any, where: str = "") -> None:
    """Equal, floats to 1e-6 (sums may add up in another order)."""
    if isinstance(want, float) and isinstance(got, int | float):
        assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-6), f"{where}: {got} != {want}"
    elif isinstance(want, dict):
        assert isinstance(got, dict), where
        assert sorted(got) == sorted(want), f"{where}: keys {sorted(got)} != {sorted(want)}"
        for key in want:
            assert_same(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got} != {want}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{where}[{i}]")
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.fixture
def per_day(other_db: OtherDb) -> dict[str, Any]:
    with other_db(FORTNIGHT) as (services, conn):
        add_a_tablet(services)
        per_day_build(services.store, services=services)
        return pyramid_snapshot(conn)


@pytest.fixture
def per_day_categorised(other_db: OtherDb) -> dict[str, Any]:
    with other_db(FORTNIGHT) as (services, conn):
        add_categories(services)
        add_a_tablet(services)
        per_day_build(services.store, services=services)
        return pyramid_snapshot(conn)


@pytest.mark.preloaded(FORTNIGHT)
def test_batch_build_equals_the_per_day_build(
    services: Services, conn: Any, per_day: dict[str, Any]
) -> None:
    from app.pyramid.build import backfill

    add_a_tablet(services)
    summary = backfill(services.store, now=NOW, settings=services.settings)
    got = pyramid_snapshot(conn)
    assert summary.episodes == len(per_day["episodes"]) > 100
    assert summary.day_digests == sum(1 for k in per_day["digests"] if k.startswith("day:")) > 14
    assert len(got["signals"]) == len(per_day["signals"]) > 0
    overlaps = [d["metrics"]["device_overlap_seconds"] for d in got["digests"].values()]
    assert sum(1 for seconds in overlaps if seconds > 0) > 10
    assert_same(got, per_day)


@pytest.mark.preloaded(FORTNIGHT)
def test_batch_build_after_a_per_day_start_equals_it(
    services: Services, conn: Any, per_day: dict[str, Any]
) -> None:
    """Part of the history built day by day first (a live worker ran), the rest by the
    batch: the days at the seam go through the live functions, the rest in bulk."""
    from app.pyramid.build import backfill

    store = services.store
    add_a_tablet(services)
    user = store.get_user_by_id(user_id=1)
    assert user is not None
    seam = FORTNIGHT.start + timedelta(days=5)
    for device_id in ("desktop", "laptop", "phone", "tablet"):
        build_device(
            store,
            user=user,
            device_id=device_id,
            now=NOW,
            settings=services.settings,
            days=[d for d in store.days_to_build(user_id=1, device_id=device_id) if d < seam],
        )
    backfill(store, now=NOW, settings=services.settings)
    assert_same(pyramid_snapshot(conn), per_day)
    again = backfill(store, now=NOW, settings=services.settings)
    assert again.episodes == 0 and again.day_digests == 0


@pytest.mark.preloaded(FORTNIGHT)
def test_the_build_job_takes_a_long_unbuilt_span_in_bulk(
    services: Services, conn: Any, per_day: dict[str, Any]
) -> None:
    """An import over HTTP leaves weeks unbuilt: the job builds them a device-month at a
    time, the same episodes, and hands back a rollup for each day it built."""
    from app.pyramid.build import build_and_enqueue

    store = services.store
    add_a_tablet(services)
    user = store.get_user_by_id(user_id=1)
    assert user is not None
    built = build_and_enqueue(
        store, user=user, device_id="laptop", now=NOW, settings=services.settings
    )
    laptop = {k: v for k, v in per_day["episodes"].items() if k.startswith("laptop:")}
    got = pyramid_snapshot(conn)["episodes"]
    assert built.episodes == len(laptop) == len(got) > 20
    assert_same(got, laptop)
    assert [j.args["day"] for j in built.rollups] == sorted(d.isoformat() for d in built.days)
    assert len(built.rollups) == FORTNIGHT.days


@pytest.mark.preloaded(FORTNIGHT)
def test_batch_digests_count_the_users_categories_as_the_live_ones(
    services: Services, conn: Any, per_day_categorised: dict[str, Any]
) -> None:
    """A user with a category tree: the batch's day digests (and the weeks and months
    summed from them) carry the seconds by user category the live rollup computes."""
    from app.pyramid.build import backfill

    ids = add_categories(services)
    add_a_tablet(services)
    sources = conn.execute(
        "SELECT count(DISTINCT category_source) AS n FROM records "
        "WHERE device_id = 'tablet' AND category_source LIKE 'user:%%'"
    ).fetchone()
    assert sources["n"] == 4  # every rule categorised some of the tablet's records
    summary = backfill(services.store, now=NOW, settings=services.settings)
    assert summary.day_digests > 14
    got = pyramid_snapshot(conn)
    days = [d["metrics"] for k, d in got["digests"].items() if k.startswith("day:")]
    by_user = [m["seconds_by_user_category"] for m in days if "seconds_by_user_category" in m]
    assert len(by_user) == len(days)  # the tablet is busy every day
    named = {str(ids["Journal"]), str(ids["Drafts"]), str(ids["Games"])}
    assert set().union(*by_user) == named
    assert all(seconds > 0 for m in by_user for seconds in m.values())
    assert_same(got, per_day_categorised)


def _records_read(node: dict[str, Any]) -> list[int]:
    """The loops of every scan of `records` in a JSON plan (0: never executed)."""
    own = [node["Actual Loops"]] if node.get("Relation Name", "").startswith("records") else []
    return own + [n for child in node.get("Plans", []) for n in _records_read(child)]


@pytest.mark.preloaded(FORTNIGHT)
def test_the_batch_reads_no_records_for_a_user_without_categories(
    services: Services, conn: Any
) -> None:
    """The day numbers of a chunk read the records (for the seconds by user category)
    only for a user with a rule naming a category of theirs: for the others the scans
    are never executed."""
    from app.db.queries import QUERIES

    days = [FORTNIGHT.start + timedelta(days=i) for i in range(10)]  # across the month
    params = {"user_id": 1, "days": days, "day_from": days[0], "day_to": days[-1]}
    explain = "EXPLAIN (ANALYZE, FORMAT JSON) " + QUERIES["batch_day_metrics"]

    def loops() -> list[int]:
        row = conn.execute(explain, params).fetchone()
        return _records_read(row["QUERY PLAN"][0]["Plan"])

    without = loops()
    assert len(without) >= 2 and set(without) == {0}  # both months' partitions, unread
    add_categories(services)
    with_categories = loops()
    assert len(with_categories) >= 2 and all(n > 0 for n in with_categories)
