"""The `timetrace://context` resource: the caller's calendar now (app/tools/calendar.py)
as JSON, read fresh at each read, never cached (`ttl_ms` 0).

    contents = read_context(user=user, now=datetime.now(UTC))

What a client needs before it names a time: now in the user's zone, the zone and the
hour the user's day starts, and today, yesterday, this and last week (and month) as
[from, to) instants with their logical days.
"""

from __future__ import annotations

from datetime import datetime

from mcp import types

from app.store.accounts import UserContext
from app.tools.calendar import user_calendar
from app.tools.registry import to_json

CONTEXT_URI = "timetrace://context"

CONTEXT_RESOURCE = types.Resource(
    name="context",
    title="Now, the user's zone and day, and ready date ranges",
    uri=CONTEXT_URI,
    description=(
        "Now in the user's time zone, the zone, the hour a day starts (day_cut_hour), and "
        "today, yesterday, this_week, last_week, this_month and last_month as [from, to) "
        "instants with their first and last logical days. Read it before naming a time."
    ),
    mime_type="application/json",
)


def read_context(*, user: UserContext, now: datetime) -> types.ReadResourceResult:
    """The resource as the user's calendar at `now`."""
    text = to_json(user_calendar(user=user, now=now))
    contents = types.TextResourceContents(uri=CONTEXT_URI, mime_type="application/json", text=text)
    return types.ReadResourceResult(contents=[contents])
