"""Signal detectors as pure functions (the golden day covers them on a database)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from app.pyramid.signals import (
    EpisodeFacts,
    MemberFacts,
    detect_day_signals,
    repeated_files,
    rollback_and_rework,
    switch_storms,
)

T0 = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)


def episode(
    i: int, start_min: int, minutes: int, category: str = "work", **kw: object
) -> EpisodeFacts:
    start = T0 + timedelta(minutes=start_min)
    return EpisodeFacts(
        episode_id=i,
        device_id="laptop",
        ts_start=start,
        ts_end=start + timedelta(minutes=minutes),
        category=category,
        active_s=minutes * 60.0,
        interruption_s=0.0,
        **kw,
    )  # type: ignore[arg-type]


def member(i: int, minute: float, text: str, cluster: str = "code") -> MemberFacts:
    return MemberFacts(
        episode_id=i,
        device_id="laptop",
        ts_start=T0 + timedelta(minutes=minute),
        cluster=cluster,
        text=text,
    )


def test_switching_two_apps_every_20_seconds_for_an_hour_is_a_storm() -> None:
    members = [member(1, k / 3, "x", cluster="a" if k % 2 else "b") for k in range(200)]
    storms = switch_storms(members)
    assert len(storms) == 1 and storms[0].severity >= 120
    calm = [member(1, k, "x", cluster="a" if k % 2 else "b") for k in range(60)]
    assert switch_storms(calm) == []


def test_an_undo_storm_needs_ten_undos() -> None:
    ep = episode(1, 0, 30)
    assert [
        s.metrics["pattern"]
        for s in rollback_and_rework([ep], [member(1, 1, "main.py (Undo ×12)")])
    ] == ["undo_storm"]
    assert rollback_and_rework([ep], [member(1, 1, "main.py (Undo ×3)")]) == []


def test_a_rollback_on_screen_for_many_frames_counts_once_and_cues_do_not_double_it() -> None:
    ep = episode(1, 0, 30, cues=("git reset --hard",))
    frames = [member(1, m, "zsh — git reset --hard HEAD~1") for m in (1, 2, 3)]
    (signal,) = rollback_and_rework([ep], frames)
    assert signal.kind == "forced_rollback" and signal.severity == 1.0
    # A cue alone (seen by a vision model, not in any title) still counts.
    (from_cue,) = rollback_and_rework([ep], [member(1, 1, "zsh")])
    assert from_cue.severity == 1.0


def _day(titles: list[tuple[str, str]]) -> tuple[list[EpisodeFacts], list[MemberFacts]]:
    eps = [episode(i, i * 20, 20, category) for i, (category, _) in enumerate(titles, 1)]
    members = [member(i, i * 20 + 1, title) for i, (_, title) in enumerate(titles, 1)]
    return eps, members


def test_one_file_in_three_separate_visits_with_an_undo_is_rework_breaks_do_not_separate() -> None:
    # pay.py, a Slack break, pay.py again: one visit; other work, pay.py: the second.
    two = _day(
        [
            ("work", "pay.py — app"),
            ("social", "Slack"),
            ("work", "pay.py — app"),
            ("work", "other.py — app"),
            ("work", "git checkout -- pay.py — Terminal"),
        ]
    )
    assert repeated_files(*two) == []
    three = _day(
        [
            ("work", "pay.py — app"),
            ("work", "other.py — app"),
            ("work", "pay.py — app"),
            ("work", "notes.md — app"),
            ("work", "git checkout -- pay.py — Terminal"),
        ]
    )
    (signal,) = repeated_files(*three)
    assert signal.metrics == {"pattern": "repeated_edit", "file": "pay.py", "visits": 3}
    assert signal.evidence == {"episode_ids": [1, 3, 5], "cues": ["pay.py", "git checkout"]}


def test_revisiting_files_across_sittings_without_an_undo_is_not_rework() -> None:
    # An ordinary day: the same files again and again, docs and chat and a locked screen
    # between, a passing test run; nothing undone.
    ordinary = _day(
        [
            ("work", "pay.py — app"),
            ("study", "Python docs — Firefox"),
            ("work", "pay.py — app"),
            ("social", "Slack"),
            ("work", "models.py — app"),
            ("system", "LockApp"),
            ("work", "pay.py — app"),
            ("work", "pytest: 42 passed — Terminal"),
            ("work", "models.py — app"),
            ("work", "pay.py — app"),
        ]
    )
    assert repeated_files(*ordinary) == []
    # The same day with tests failing in one of pay.py's visits: rework.
    titles = [("work", "pay.py — app"), ("study", "Python docs — Firefox"),
              ("work", "pay.py — 3 failed — pytest"), ("work", "models.py — app"),
              ("work", "pay.py — app")]  # fmt: skip
    (signal,) = repeated_files(*_day(titles))
    assert signal.evidence["cues"] == ["pay.py", "3 failed"]


def test_detection_is_deterministic_and_ordered() -> None:
    eps = [episode(1, 0, 50), episode(2, 60, 50)]
    members = [member(1, 1, "a.py (Undo ×11)"), member(2, 61, "zsh — git revert abc")]
    first = detect_day_signals(
        eps, members, tz=ZoneInfo("Asia/Shanghai"), cut_hour=4, idle_gap_s=300
    )
    assert first == detect_day_signals(
        list(reversed(eps)), members, tz=ZoneInfo("Asia/Shanghai"), cut_hour=4, idle_gap_s=300
    )
    assert [s.kind for s in first] == sorted(s.kind for s in first)
    assert [s.kind for s in first] == ["focus_block", "focus_block", "forced_rollback", "rework"]
