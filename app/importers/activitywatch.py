"""ActivityWatch history: an export file or a running aw-server, into records.

    import_activitywatch_file(store, path=Path("aw-export.json"), user=user, rules=rules)
    import_activitywatch_server(store, url="http://localhost:5600", user=user, rules=rules)

Both server formats are read: buckets as an object keyed by id (what aw-server and
aw-server-rust export) or as an array (the published schema), timestamps with
`+00:00` or `Z`. Events are set aside on disk and read back per bucket in time
order (`spill.py`), so memory stays flat whatever the size of the export.

Each host becomes one TimeTrace device (created if missing). Its window events
are cut (`timeline.host_pieces`) into records that are active where the afk
bucket says not-afk — ActivityWatch's own definition of active time — and idle
for the rest; where a browser window was focused, the browser bucket's tab
gives the record its URL and page title. Records are keyed by where they start
on the device's timeline (`aw:<µs>`), so importing the same history again, or an
export that overlaps one already imported, adds nothing twice.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx

from app.importers.aw_hosts import group_hosts, host_batches
from app.importers.aw_read import (
    EPOCH,
    SOURCE,
    US,
    ActivityWatchError,
    Reader,
    read_export,
    read_server,
)
from app.importers.spill import EventSpill
from app.importers.writer import ImportSummary, Progress, RecordWriter
from app.ingest.records import (
    IngestStore,
)
from app.ingest.ruled import LogicalDays
from app.rules.categories import Rules
from app.rules.user import rules_for_user
from app.store.accounts import UserContext
from app.timeutil import zone


def import_buckets(
    store: IngestStore,
    reader: Reader,
    *,
    user: UserContext,
    rules: Rules,
    progress: Progress | None,
    audible_is_active: bool,
) -> ImportSummary:
    hosts = group_hosts(reader.buckets)
    if not hosts:
        raise ActivityWatchError(
            "no window bucket (type currentwindow) in this ActivityWatch history: nothing to import"
        )
    now = datetime.now(UTC)
    days = LogicalDays(tz=zone(user.time_zone), cut_hour=user.day_cut_hour)
    rules = rules_for_user(store, rules, user_id=user.user_id)  # as they stand at the start
    with RecordWriter(store, user=user, rules=rules, source=SOURCE, progress=progress) as writer:
        for host in hosts:
            writer.ensure_device(
                host.device_id, name=host.name, kind="phone" if host.is_phone else "desktop"
            )
            for batch in host_batches(
                host,
                reader.spill,
                rules=rules,
                user=user,
                now=now,
                audible_is_active=audible_is_active,
                days=days,
            ):
                writer.add_prepared(
                    host.device_id,
                    batch.prepared,
                    first=EPOCH + batch.first * US,
                    last=EPOCH + batch.last * US,
                )
    summary = writer.summary
    summary.events = sum(b.events for b in reader.buckets)
    summary.skipped = reader.skipped
    return summary


def import_activitywatch_file(
    store: IngestStore,
    *,
    path: Path,
    user: UserContext,
    rules: Rules,
    progress: Progress | None = None,
    audible_is_active: bool = True,
    spill_dir: Path | None = None,
) -> ImportSummary:
    """Import an ActivityWatch export file (see the module's docstring)."""
    try:
        source = path.open("rb")
    except OSError as exc:
        raise ActivityWatchError(f"cannot read {path}: {exc.strerror}") from exc
    with source, EventSpill(spill_dir) as spill:
        reader = Reader(spill, progress, path.stat().st_size)
        read_export(source, reader, name=path.name)
        return import_buckets(
            store,
            reader,
            user=user,
            rules=rules,
            progress=progress,
            audible_is_active=audible_is_active,
        )


def import_activitywatch_server(
    store: IngestStore,
    *,
    url: str,
    user: UserContext,
    rules: Rules,
    progress: Progress | None = None,
    audible_is_active: bool = True,
    client: httpx.Client | None = None,
    page: int = 5_000,
) -> ImportSummary:
    """Import everything a running aw-server holds (see the module's docstring)."""
    with EventSpill() as spill, client or httpx.Client(timeout=60) as http:
        reader = Reader(spill, progress, None)
        read_server(http, reader, url=url, page=page)
        return import_buckets(
            store,
            reader,
            user=user,
            rules=rules,
            progress=progress,
            audible_is_active=audible_is_active,
        )
