"""The truth a scoped token's answers are checked against, computed here in Python from
`v_record_durations` (the duration rule over all the user's records) without the SQL
that enforces scopes: each record's span clipped to the scope's windows, kept when its
category and site are allowed; and the titles, URLs and sites of what lies outside.

    truth = scope_truth(conn, user=month.user, scope=WORK_HOURS)
    truth.seconds_by_category, truth.seconds_by_app, truth.hidden   # hidden: out-of-scope text
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from app.store.accounts import UserContext
from app.store.scope import TokenScope

RECORDS = """
SELECT d.record_id, d.ts_start, d.duration_s, d.category, d.app, d.domain, d.window_title,
       r.url
FROM v_record_durations d
JOIN records r ON r.user_id = d.user_id AND r.record_id = d.record_id
WHERE d.user_id = %(user_id)s
"""


@dataclass
class ScopeTruth:
    seconds_by_category: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    seconds_by_app: dict[str, float] = field(default_factory=lambda: defaultdict(float))
    seconds_by_day: dict[date, float] = field(default_factory=lambda: defaultdict(float))
    hidden: set[str] = field(default_factory=set)  # out-of-scope titles, URLs and sites
    shown: set[str] = field(default_factory=set)
    hidden_starts: list[datetime] = field(default_factory=list)

    @property
    def total(self) -> float:
        return sum(self.seconds_by_category.values())


def _hm(text: str) -> time:
    return time(0) if text == "24:00" else time.fromisoformat(text)


def windows(
    scope: TokenScope, zone: ZoneInfo, first: date, last: date
) -> list[tuple[datetime, datetime]]:
    """The scope's windows over local dates first..last (as docs/scopes.md defines them)."""
    out = []
    day = first
    while day <= last:
        in_dates = (scope.date_from is None or day >= scope.date_from) and (
            scope.date_to is None or day <= scope.date_to
        )
        if in_dates and (scope.weekdays is None or day.isoweekday() in scope.weekdays):
            lo_t = _hm(scope.hour_from or "00:00")
            hi_t = _hm(scope.hour_to or "24:00")
            lo = datetime.combine(day, lo_t, zone)
            end_day = day + timedelta(days=1) if hi_t <= lo_t else day
            out.append((lo, datetime.combine(end_day, hi_t, zone)))
        day += timedelta(days=1)
    return out


def _allowed(scope: TokenScope, row: dict[str, Any]) -> bool:
    domain = row["domain"] or ""
    parts = domain.split(".") if domain else []
    suffixes = {".".join(parts[i:]) for i in range(len(parts))}
    app = row["app"].lower()
    return (
        (scope.kinds_allow is None or row["category"] in scope.kinds_allow)
        and row["category"] not in (scope.kinds_deny or [])
        and (scope.apps_allow is None or app in {a.lower() for a in scope.apps_allow})
        and app not in {a.lower() for a in scope.apps_deny or []}
        and (scope.sites_allow is None or bool(suffixes & set(scope.sites_allow)))
        and not suffixes & set(scope.sites_deny or [])
    )


def _texts(row: dict[str, Any]) -> set[str]:
    return {t for t in (row["window_title"], row["url"], row["domain"]) if t}


def scope_truth(conn: Any, *, user: UserContext, scope: TokenScope) -> ScopeTruth:
    rows = conn.execute(RECORDS, {"user_id": user.user_id}).fetchall()
    zone = ZoneInfo(user.time_zone)
    first = min(r["ts_start"] for r in rows).astimezone(zone).date() - timedelta(days=1)
    last = max(r["ts_start"] for r in rows).astimezone(zone).date() + timedelta(days=1)
    wins = windows(scope, zone, first, last)
    truth = ScopeTruth()
    for row in rows:
        start = row["ts_start"]
        end = start + timedelta(seconds=row["duration_s"])
        pieces = [
            (max(start, lo), min(end, hi))
            for lo, hi in wins
            if start < hi and (end > lo or (end == start and start >= lo))
        ]
        if pieces and _allowed(scope, row):
            seconds = sum((b - a).total_seconds() for a, b in pieces)
            truth.seconds_by_category[row["category"]] += seconds
            truth.seconds_by_app[row["app"]] += seconds
            local = pieces[0][0].astimezone(zone) - timedelta(hours=user.day_cut_hour)
            truth.seconds_by_day[local.date()] += seconds
            truth.shown |= _texts(row)
        else:
            truth.hidden |= _texts(row)
            truth.hidden_starts.append(start)
    # A text also seen in scope is not a secret; a short one (a bare app word) could be
    # part of anything.
    shown = " ".join(truth.shown)
    truth.hidden = {t for t in truth.hidden - truth.shown if len(t) >= 8 and t not in shown}
    return truth


def _named_by(site: str, words: list[str]) -> bool:
    """A site the caller named itself (`bilibili` -> bilibili.com, www.bilibili.com)."""
    if "/" in site or " " in site:
        return False
    labels = [p for p in site.split(".")[:-1] if p != "www"]
    return any(label and label in w for w in words for label in labels)


def leaks(text: str, truth: ScopeTruth, *, asked: dict[str, Any] | None = None) -> list[str]:
    """The out-of-scope titles, URLs and sites that appear in `text`; a site the call's
    own arguments (or question) name is the caller's word back, not a leak."""
    words = [str(v).lower() for v in (asked or {}).values() if isinstance(v, str) and v]
    return sorted(t for t in truth.hidden if t in text and not _named_by(t, words))
