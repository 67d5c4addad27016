"""The repository's real-format fixtures as ActivityWatch exports, and the share of their
active time the rules leave uncategorized, measured the way an import stores it.

    shares = fixture_shares(load_rules(user_file=None))
    shares["aw_day"].share, shares["aw_day"].left   # 0.08, [(app, title, url, seconds), …]

The fixtures (Windows executables, browser titles with the browser's suffix and often no
URL, CJK titles, an Android phone):
- `activitywatch/array_form`, `python_server`, `rust_server`: the export files under
  tests/fixtures/activitywatch (both servers' shapes);
- `activitywatch/windows_apps`, `macos_apps`, `linux_wmclass`, `browser_titles`,
  `screenpipe_names`: exports of the same shape holding common apps and sites as each
  platform's window watcher names them (Windows executables, macOS app names, Linux
  WM_CLASS names, browser windows with the site only in the title, the app names
  screenpipe records), not any one person's titles;
- `aw_day`: the scripted Windows day of tests/aw_day.py, its heartbeats merged as
  aw-server merges them (aw-core's own `heartbeat_merge`), then exported;
- `windows_day`: app/demo/windows_day.tsv (a window watcher with no browser extension),
  its windows laid end to end, not-afk except on the lock screen.
And, not an ActivityWatch history but real names of a Mac, a desktop and a phone sent
to the HTTP ingest: `golden_day` (tests/fixtures/golden_day.json), whose seconds per
category were worked out by hand and are held to the product by
tests/db/test_golden_and_sample.py (`golden_day_share`).

Each goes through the importer's own conversion (`read_export`, `group_hosts`,
`host_batches`: flooding, afk, tabs over focused browser windows, the app aliases and
the category rules), no database needed. Active time is what the import stores as not
idle (not-afk, or an audible focused tab), as the coverage view counts it.
"""

from __future__ import annotations

import io
import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from aw_core.models import Event
from aw_transform import heartbeat_merge

from app.demo.corpus import load_windows_day
from app.importers import aw_hosts, aw_read
from app.importers.spill import EventSpill
from app.rules.categories import Rules
from app.store.accounts import UserContext
from tests.aw_day import ScriptedDay, scripted_day

FIXTURES = Path(__file__).parent / "fixtures" / "activitywatch"
GOLDEN_DAY = Path(__file__).parent / "fixtures" / "golden_day.json"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
USER = UserContext(user_id=1, name="me", time_zone="Asia/Shanghai", day_cut_hour=4)
WINDOWS_DAY_START = datetime(2026, 11, 23, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai
LOCK_SCREENS = frozenset({"LockApp.exe"})


@dataclass(slots=True)
class Share:
    """Active seconds by category, and the uncategorized windows, most first."""

    seconds: dict[str, float] = field(default_factory=dict)
    left: list[tuple[str, str, str | None, float]] = field(default_factory=list)

    @property
    def active(self) -> float:
        return sum(self.seconds.values())

    @property
    def uncategorized(self) -> float:
        return self.seconds.get("uncategorized", 0.0)

    @property
    def share(self) -> float:
        return self.uncategorized / self.active if self.active else 0.0


def _aw_server_buckets(day: ScriptedDay) -> dict[str, Any]:
    """The day's heartbeats as aw-server keeps them: each merged into its bucket's last
    event when aw-core's `heartbeat_merge` says so (same data, within the pulsetime),
    else a new event; in an export's shape."""
    events: dict[str, list[Event]] = {b.id: [] for b in day.buckets}
    for beat in day.beats:
        held = events[beat.bucket]
        merged = heartbeat_merge(held[-1], beat.event, beat.pulsetime) if held else None
        if merged is not None:
            held[-1] = merged
        else:
            held.append(beat.event)
    return {
        b.id: {
            "id": b.id,
            "type": b.type,
            "hostname": b.hostname,
            "client": "aw-client",
            "events": [
                {
                    "timestamp": e.timestamp.isoformat(),
                    "duration": e.duration.total_seconds(),
                    "data": e.data,
                }
                for e in reversed(held)  # newest first, as aw-server exports
            ],
        }
        for b in day.buckets
        for held in [events[b.id]]
    }


def _windows_day_buckets() -> dict[str, Any]:
    """windows_day.tsv's windows end to end from 09:00, and the afk watcher's view of
    them: away while the lock screen is up, else not-afk."""
    windows, afk = [], []
    t = WINDOWS_DAY_START
    for span in load_windows_day():
        stamp, length = t.isoformat(), float(span.seconds)
        windows.append(
            {"timestamp": stamp, "duration": length, "data": {"app": span.app, "title": span.title}}
        )
        status = "afk" if span.app in LOCK_SCREENS else "not-afk"
        afk.append({"timestamp": stamp, "duration": length, "data": {"status": status}})
        t += timedelta(seconds=span.seconds)
    host = "DESKTOP-WIN11"
    return {
        f"aw-watcher-window_{host}": {"type": "currentwindow", "hostname": host, "events": windows},
        f"aw-watcher-afk_{host}": {"type": "afkstatus", "hostname": host, "events": afk},
    }


@cache
def fixture_exports() -> dict[str, bytes]:
    """Each real-format fixture as an ActivityWatch export file's bytes, by name."""
    exports = {
        f"activitywatch/{path.stem}": path.read_bytes() for path in sorted(FIXTURES.glob("*.json"))
    }
    exports["aw_day"] = json.dumps({"buckets": _aw_server_buckets(scripted_day())}).encode()
    exports["windows_day"] = json.dumps({"buckets": _windows_day_buckets()}).encode()
    return exports


def category_share(export: bytes, rules: Rules) -> Share:
    """Active seconds by category of an export, as the importer would store them."""
    seconds: dict[str, float] = defaultdict(float)
    left: dict[tuple[str, str, str | None], float] = defaultdict(float)
    with EventSpill() as spill:
        reader = aw_read.Reader(spill, None, len(export))
        aw_read.read_export(io.BytesIO(export), reader, name="export.json")
        for host in aw_hosts.group_hosts(reader.buckets):
            for batch in aw_hosts.host_batches(
                host, spill, rules=rules, user=USER, now=NOW, audible_is_active=True
            ):
                rows = batch.prepared.rows
                for i in range(len(rows)):
                    if rows.is_idle[i]:
                        continue
                    end = rows.ts_end[i]
                    assert end is not None
                    span = (end - rows.ts_start[i]).total_seconds()
                    seconds[rows.category[i]] += span
                    if rows.category[i] == "uncategorized":
                        left[rows.app[i], rows.window_title[i], rows.url[i]] += span
    return Share(
        seconds=dict(seconds),
        left=sorted(((*k, s) for k, s in left.items()), key=lambda x: -x[3]),
    )


def golden_day_share() -> Share:
    """The golden day's active seconds by category, from its hand-checked seconds: all
    of them but its idle time (which the rules call `system`)."""
    golden = json.loads(GOLDEN_DAY.read_text(encoding="utf-8"))
    seconds: dict[str, float] = defaultdict(float)
    for by_category in golden["expected_seconds"].values():
        for category, spent in by_category.items():
            seconds[category] += spent
    seconds["system"] -= golden["expected_day_metrics"]["idle_seconds"]
    return Share(seconds={k: v for k, v in seconds.items() if v})


def fixture_shares(rules: Rules) -> dict[str, Share]:
    """`category_share` of every real-format fixture, by name."""
    return {name: category_share(export, rules) for name, export in fixture_exports().items()}


def pooled(shares: dict[str, Share]) -> Share:
    """All fixtures' seconds together."""
    total: dict[str, float] = defaultdict(float)
    for share in shares.values():
        for category, seconds in share.seconds.items():
            total[category] += seconds
    return Share(seconds=dict(total))
