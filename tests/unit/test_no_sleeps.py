"""No test waits by sleeping. A test waits on the thing itself: an event, a poll of the
real condition with a deadline (`tests/faults.py`'s `wait_for`), or a clock it moves (the
queue's timestamps in `tests/e2e/test_jobs_fair.py`). A sleep stays only where time is
the behaviour under test, and each one is listed below with the reason."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"

SLEEP = re.compile(
    r"\b(?:time|asyncio)\.sleep\s*\("  # time.sleep(...), asyncio.sleep(...)
    r"|\bfrom\s+(?:time|asyncio)\s+import\b[^\n]*\bsleep\b"  # a bare `sleep` imported
)

# How many sleeps each file may hold, and why time is what is tested there.
ALLOWED = {
    # `wait_for`, the one poll loop: it checks a real condition `interval` apart until its
    # deadline (a process, a socket or another database has no event to wait on).
    "tests/faults.py": 1,
    # The scripted model's pace, `answer_delay` and `stream_delay`: a slow model (calls
    # overlapping, a slot held, a client leaving mid-stream) is what those tests test.
    "tests/fake_openai.py": 2,
    # Workers are killed at a random instant inside a running job: the instant is the input.
    "tests/e2e/test_crash.py": 1,
    # The database is away for a given time, and a capture client honours Retry-After.
    "tests/e2e/test_faults.py": 2,
}


def sleeps_by_file() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted(TESTS.rglob("*.py")):
        count = len(SLEEP.findall(path.read_text(encoding="utf-8")))
        if count and path != Path(__file__).resolve():
            found[path.relative_to(ROOT).as_posix()] = count
    return found


def test_no_test_sleeps_outside_the_listed_files() -> None:
    unlisted = {name: n for name, n in sleeps_by_file().items() if n > ALLOWED.get(name, 0)}
    assert unlisted == {}, (
        "wait on an event or poll the real condition with tests.faults.wait_for; "
        "a sleep where time itself is tested goes into ALLOWED with its reason"
    )


def test_the_allow_list_holds_no_stale_entry() -> None:
    assert sleeps_by_file() == ALLOWED


def test_the_pattern_sees_each_way_of_sleeping() -> None:
    seen = "time.sleep(1)\nawait asyncio.sleep(0.1)\nfrom time import monotonic, sleep\n"
    assert len(SLEEP.findall(seen)) == 3
    unseen = "asleep(ts)\nfake.sleep_s = 1\n# no sleep here\nfrom time import monotonic\n"
    assert SLEEP.findall(unseen) == []
