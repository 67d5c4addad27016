"""Two synthetic weeks of coding for the rework detectors: one with rework planted on
known days, one of ordinary work (bench/signals.py measures them; tests/db hold them).

    records = Week(planted={1, 3}).build()   # capture-client records of one laptop
    MONDAY + timedelta(days=1)               # a planted day

Both weeks are the same kind of work: four source files edited again and again across
sittings, with reading docs, a chat and a passing test run between, and the screen
locked over lunch. On a planted day one file's visits also undo work (`git checkout
--`, `git reset --hard`, `git revert`, failed tests, 撤销更改), as a person throwing
away and redoing an edit does.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

MONDAY = date(2003, 6, 2)
ZONE = ZoneInfo("Asia/Shanghai")
FILES = ("api.py", "models.py", "views.py", "README.md")
STEP_S = 30
# What undoing an edit looks like on screen, one per planted day (cycled), in Chinese too.
UNDOING = (
    "git checkout -- {f} — Windows Terminal",
    "git reset --hard HEAD~1 · {f} — Windows Terminal",
    "pytest {f}: 3 failed, 12 passed — Windows Terminal",
    "git revert HEAD ({f}) — Windows Terminal",
    "{f} — 撤销更改 — Visual Studio Code",
)
# Between two sittings on the files: docs, a chat, a test run that passes.
BETWEEN = (
    ("Firefox", "Built-in Types — Python 3 documentation — Mozilla Firefox",
     "https://docs.python.org/3/library/stdtypes.html", 8),
    ("Slack", "#team | Acme — Slack", None, 4),
    ("WindowsTerminal.exe", "pytest: 42 passed — Windows Terminal", None, 2),
)  # fmt: skip


class Week:
    """One user's week of records: five workdays, a quiet weekend."""

    def __init__(self, *, planted: set[int]) -> None:
        self.planted = planted
        self.records: list[dict[str, Any]] = []

    def _run(self, at: datetime, minutes: int, app: str, title: str, url: str | None = None,
             *, idle: bool = False) -> datetime:  # fmt: skip
        end = at + timedelta(minutes=minutes)
        while at < end:
            record: dict[str, Any] = {
                "client_record_id": f"r{len(self.records)}",
                "ts_start": at.isoformat(),
                "ts_end": (at + timedelta(seconds=STEP_S)).isoformat(),
                "app": app,
                "window_title": title,
            }
            if url:
                record["url"] = url
            if idle:
                record["is_idle"] = True
            self.records.append(record)
            at += timedelta(seconds=STEP_S)
        return at

    def day(self, offset: int) -> None:
        day = MONDAY + timedelta(days=offset)
        at = datetime.combine(day, time(9, 0), ZONE).astimezone(UTC)
        if offset >= 5:  # the weekend: a video and some chat
            at = self._run(at, 40, "Firefox", "lofi hip hop radio - YouTube — Mozilla Firefox",
                           "https://www.youtube.com/watch?v=jfKfPfyJRdk")  # fmt: skip
            self._run(at, 15, "Slack", "#random | Acme — Slack")
            return
        for sitting in range(8):
            if sitting == 4:  # lunch: the screen locked
                at = self._run(at, 50, "LockApp.exe", "Windows Default Lock Screen", idle=True)
            for i in (sitting, sitting + 1):
                name = FILES[i % len(FILES)]
                at = self._run(at, 12, "Code.exe", f"{name} — shop — Visual Studio Code")
                # api.py comes back in three visits a day; on a planted day, one undoes.
                if offset in self.planted and sitting == 3 and name == "api.py":
                    cue = UNDOING[offset % len(UNDOING)].format(f=name)
                    app = "Code.exe" if "Visual Studio Code" in cue else "WindowsTerminal.exe"
                    at = self._run(at, 2, app, cue)
                    at = self._run(at, 6, "Code.exe", f"{name} — shop — Visual Studio Code")
            app, title, url, minutes = BETWEEN[sitting % len(BETWEEN)]
            at = self._run(at, minutes, app, title, url)

    def build(self) -> list[dict[str, Any]]:
        for offset in range(7):
            self.day(offset)
        return self.records
