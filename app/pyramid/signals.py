"""Behaviour signals of one logical day, detected from its episodes and their
members' text. Pure functions; `app/pyramid/build.py` feeds and stores them.

Each detector looks for concrete, observed events (a hard reset in a terminal
title, failing test runs between edits, an entertainment break inside work),
never a soft guess. Episode cues written by the LLM layer are read as text
too, so the detectors get better when summaries exist and work without them.

| kind | detected from | severity |
|---|---|---|
| forced_rollback | git reset --hard, revert, restore, checkout -- (titles, cues) | rollbacks |
| rework | undo storms; error→retry loops; one file in ≥ 3 visits, one undoing (UNDOING) | events |
| context_switch_storm | ≥ 120 app/site switches inside 60 minutes on a device | switches/hour |
| focus_block | work/study episodes in a row, ≥ 45 active minutes | minutes |
| distraction | entertainment breaks inside work/study episodes | minutes |
| late_night | active time between 23:00 and the day's cut hour | minutes |
| idle_gap | ≥ 30 minutes with no activity on any device, inside the day | minutes |
"""

from __future__ import annotations

import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, time, timedelta
from typing import NamedTuple
from zoneinfo import ZoneInfo

from app.patterns import LinearPattern, capped
from app.store.digests import EpisodeFacts, MemberFacts, SignalDraft
from app.store.documents import DigestMetrics
from app.timeutil import logical_day

FOCUS = frozenset({"work", "study"})
FOCUS_MIN_S = 45 * 60
IDLE_GAP_SIGNAL_S = 30 * 60
STORM_SWITCHES = 120
STORM_WINDOW_S = 3_600
FILE_VISITS = 3
UNDO_STORM_MIN = 10
LATE_NIGHT_FROM = time(23, 0)

# Search-only patterns with many alternatives run on RE2 (linear time, and fast where
# Python's engine tries every alternative at every position); see app/patterns.py.
ROLLBACK = LinearPattern.compile(
    r"git\s+reset\s+(?:\S+\s+){0,4}--hard|git\s+revert\b|git\s+restore\b|git\s+checkout\s+--(?:\s|$)"
    r"|git\s+stash\s+drop|强制回滚|回滚提交"
)
UNDO = re.compile(r"(?:undo|撤销|ctrl\s*\+\s*z|⌘\s*z)\s*[×x*]\s*(\d+)", re.IGNORECASE)
FAILURE = LinearPattern.compile(
    r"\b\d+\s+failed\b|\bfailed\b|\berror\b|\bexception\b|traceback|编译失败|报错|错误|失败"
)
# What makes a file's revisits rework: something in the visits undid work or showed tests
# failing. Returning to the same files across sittings is an ordinary day (reading docs,
# a chat, a locked screen between), not rework.
UNDOING = LinearPattern.compile(
    r"\bgit\s+(?:reset|revert|restore|checkout|stash)\b|\b(?:undo|undid|reverted|reverting"
    r"|rollback|rolled\s+back|discard(?:ed|ing)?(?:\s+(?:all\s+)?changes)?)\b"
    r"|\brevert\b|\breset\s+--hard|\b\d+\s+failed\b|\btests?\s+failed\b|\bfailed\s+tests?\b"
    r"|\bfailing\s+tests?\b|撤销|回滚|还原|放弃(?:更改|修改)|丢弃(?:更改|修改)|测试失败|用例失败"
)
# A file name: a run of name characters up to its last source extension. Entered only
# where a run starts: `[\w.-]+\.(?:py|…)\b` alone is retried from every character of a
# long run, each retry rescanning the run (quadratic: 65 ms for 4,096 characters).
SOURCE_FILE = re.compile(
    r"(?<![\w.-])[\w.-]+\.(?:py|ts|tsx|js|jsx|go|rs|java|kt|c|cc|cpp|h|hpp|rb|php|swift|md|sql"
    r"|toml|ya?ml|json|css|html|vue)(?!\w)"
)


class TextFacts(NamedTuple):
    """What the detectors look for in one text (each depends on the text alone)."""

    rollback: str | None  # the first rollback command, as `ROLLBACK.first` finds it
    undos: tuple[int, ...]
    failing: bool
    files: tuple[str, ...]
    undoing: str | None  # the first undoing cue (UNDOING), if any


@functools.lru_cache(maxsize=8_192)
def text_facts(text: str) -> TextFacts:
    """Every pattern of the detectors over one text, once: a day's member titles repeat
    (a title stays on screen for many records), so a year's build meets each text many
    times. Same answers as the patterns themselves; a few thousand texts bound the
    memory."""
    seen = capped(text)
    return TextFacts(
        rollback=ROLLBACK.first(seen),
        undos=tuple(int(m.group(1)) for m in UNDO.finditer(seen)),
        failing=FAILURE.matches(seen),
        files=tuple(SOURCE_FILE.findall(seen)),
        undoing=UNDOING.first(seen),
    )


def _runs(flags: Iterable[bool]) -> int:
    """Number of runs of consecutive True values."""
    return sum(1 for value, _ in itertools.groupby(flags) if value)


def _by_episode(members: Sequence[MemberFacts]) -> dict[int, list[MemberFacts]]:
    out: dict[int, list[MemberFacts]] = {}
    for m in members:
        out.setdefault(m.episode_id, []).append(m)
    return out


def _texts(episode: EpisodeFacts, members: Sequence[MemberFacts]) -> list[str]:
    return [capped(m.text) for m in members] + [capped(c) for c in episode.cues]


def _never() -> None:
    return None


def rollback_and_rework(
    episodes: Sequence[EpisodeFacts],
    members: Sequence[MemberFacts],
    *,
    checkpoint: Callable[[], None] = _never,
) -> list[SignalDraft]:
    by_episode = _by_episode(members)
    out: list[SignalDraft] = []
    for ep in episodes:
        checkpoint()
        own = by_episode.get(ep.episode_id, [])
        texts = _texts(ep, own)
        # A title that stays on screen for many frames is one rollback, not many; cues
        # (from summaries) count only for what the frames themselves do not show.
        rollbacks = max(
            _runs(text_facts(m.text).rollback is not None for m in own),
            sum(1 for c in ep.cues if text_facts(c).rollback is not None),
        )
        if rollbacks:
            cues = sorted({cue for t in texts if (cue := text_facts(t).rollback)})
            out.append(
                SignalDraft(
                    kind="forced_rollback",
                    key=f"episode:{ep.episode_id}",
                    ts_start=ep.ts_start,
                    ts_end=ep.ts_end,
                    severity=float(rollbacks),
                    metrics={"rollbacks": rollbacks},
                    evidence={"episode_ids": [ep.episode_id], "cues": cues[:5]},
                )
            )
        undos = [n for t in texts for n in text_facts(t).undos]
        if undos and max(undos) >= UNDO_STORM_MIN:
            out.append(
                SignalDraft(
                    kind="rework",
                    key=f"undo:{ep.episode_id}",
                    ts_start=ep.ts_start,
                    ts_end=ep.ts_end,
                    severity=float(max(undos)),
                    metrics={"pattern": "undo_storm", "undos": max(undos)},
                    evidence={"episode_ids": [ep.episode_id], "cues": [f"undo ×{max(undos)}"]},
                )
            )
        failing = [text_facts(m.text).failing for m in own if not m.is_idle]
        failures = _runs(failing)
        if failures >= 2:
            out.append(
                SignalDraft(
                    kind="rework",
                    key=f"retry:{ep.episode_id}",
                    ts_start=ep.ts_start,
                    ts_end=ep.ts_end,
                    severity=float(failures),
                    metrics={"pattern": "error_retry", "failures": failures},
                    evidence={
                        "episode_ids": [ep.episode_id],
                        "cues": sorted({m.text for m in own if text_facts(m.text).failing})[:5],
                    },
                )
            )
    return out


def repeated_files(
    episodes: Sequence[EpisodeFacts],
    members: Sequence[MemberFacts],
    *,
    checkpoint: Callable[[], None] = _never,
) -> list[SignalDraft]:
    """One file edited in several separate visits on a device, with an undoing cue (an
    undo, revert, reset, checkout, discard or failed tests: UNDOING) for it in one of
    those visits (a cue naming files is for those files only). A visit ends when other
    work (a work/study episode without the file) comes between; breaks do not count.
    Revisits alone are ordinary work."""
    by_episode = _by_episode(members)
    out: list[SignalDraft] = []
    for device, device_eps in itertools.groupby(
        sorted(episodes, key=lambda e: (e.device_id, e.ts_start)), key=lambda e: e.device_id
    ):
        ordered = [e for e in device_eps if e.category in FOCUS]
        files_of: dict[int, set[str]] = {}
        undone: dict[int, list[TextFacts]] = {}
        for e in ordered:
            checkpoint()
            own = by_episode.get(e.episode_id, [])
            files_of[e.episode_id] = {f for m in own for f in text_facts(m.text).files}
            undone[e.episode_id] = [f for t in _texts(e, own) if (f := text_facts(t)).undoing]
        for name in sorted(set().union(*files_of.values()) if files_of else set()):
            flags = [name in files_of.get(e.episode_id, set()) for e in ordered]
            visits = _runs(flags)
            hits = [e for e, hit in zip(ordered, flags, strict=True) if hit]
            # A cue that names files undoes those; one that names none, its sitting's.
            cue = next(
                (f.undoing for e in hits for f in undone[e.episode_id]
                 if not f.files or name in f.files),
                None,
            )  # fmt: skip
            if visits >= FILE_VISITS and cue is not None:
                out.append(
                    SignalDraft(
                        kind="rework",
                        key=f"file:{device}:{name}",
                        ts_start=hits[0].ts_start,
                        ts_end=hits[-1].ts_end,
                        severity=float(visits),
                        metrics={"pattern": "repeated_edit", "file": name, "visits": visits},
                        evidence={"episode_ids": [e.episode_id for e in hits], "cues": [name, cue]},
                    )
                )
    return out


_device_then_start = operator.attrgetter("device_id", "ts_start")


def switch_storms(members: Sequence[MemberFacts]) -> list[SignalDraft]:
    out: list[SignalDraft] = []
    # attrgetter: the same key as a lambda's tuple, built in C (a year has millions).
    ordered = sorted((m for m in members if not m.is_idle), key=_device_then_start)
    for device, group in itertools.groupby(ordered, key=lambda m: m.device_id):
        items = list(group)
        switches = [b.ts_start for a, b in itertools.pairwise(items) if a.cluster != b.cluster]
        storm_start: datetime | None = None
        storm_end: datetime | None = None
        peak = 0
        left = 0
        for right, ts in enumerate(switches):
            while (ts - switches[left]).total_seconds() >= STORM_WINDOW_S:
                left += 1
            count = right - left + 1
            if count >= STORM_SWITCHES:
                if storm_start is None:
                    storm_start = switches[left]
                storm_end = ts
                peak = max(peak, count)
            elif (
                storm_start is not None
                and storm_end is not None
                and ((ts - storm_end).total_seconds() >= STORM_WINDOW_S)
            ):
                out.append(_storm(device, storm_start, storm_end, peak, items))
                storm_start = storm_end = None
                peak = 0
        if storm_start is not None and storm_end is not None:
            out.append(_storm(device, storm_start, storm_end, peak, items))
    return out


def _storm(
    device: str, start: datetime, end: datetime, peak: int, items: Sequence[MemberFacts]
) -> SignalDraft:
    ids = sorted({m.episode_id for m in items if start <= m.ts_start <= end})
    return SignalDraft(
        kind="context_switch_storm",
        key=f"storm:{device}:{start.isoformat()}",
        ts_start=start,
        ts_end=end,
        severity=float(peak),
        metrics={"switches_per_hour": peak},
        evidence={"episode_ids": ids},
    )


def focus_and_distraction(
    episodes: Sequence[EpisodeFacts], *, idle_gap_s: float
) -> list[SignalDraft]:
    out: list[SignalDraft] = []
    ordered = sorted(episodes, key=lambda e: (e.device_id, e.ts_start))
    for _, group in itertools.groupby(ordered, key=lambda e: e.device_id):
        block: list[EpisodeFacts] = []
        for ep in [*group, None]:
            joins = (
                ep is not None
                and ep.category in FOCUS
                and block
                and (ep.ts_start - block[-1].ts_end).total_seconds() <= idle_gap_s
            )
            if joins:
                block.append(ep)  # type: ignore[arg-type]
                continue
            focused = sum(e.active_s - e.interruption_s for e in block)
            if block and focused >= FOCUS_MIN_S:
                minutes = round(focused / 60, 1)
                out.append(
                    SignalDraft(
                        kind="focus_block",
                        key=f"focus:{block[0].episode_id}",
                        ts_start=block[0].ts_start,
                        ts_end=block[-1].ts_end,
                        severity=minutes,
                        metrics={"minutes": minutes, "episodes": len(block)},
                        evidence={"episode_ids": [e.episode_id for e in block]},
                    )
                )
            block = [ep] if ep is not None and ep.category in FOCUS else []
    broken = [e for e in episodes if e.category in FOCUS and e.interruption_s > 0]
    if broken:
        seconds = sum(e.interruption_s for e in broken)
        count = sum(len(e.interruptions) for e in broken)
        minutes = round(seconds / 60, 1)
        out.append(
            SignalDraft(
                kind="distraction",
                key="day",
                ts_start=min(e.ts_start for e in broken),
                ts_end=max(e.ts_end for e in broken),
                severity=minutes,
                metrics={"minutes": minutes, "interruptions": count},
                evidence={
                    "episode_ids": sorted(e.episode_id for e in broken),
                    "cues": sorted(
                        {str(i.get("app", "")) for e in broken for i in e.interruptions}
                    )[:5],
                },
            )
        )
    return out


def late_night(
    episodes: Sequence[EpisodeFacts], *, tz: ZoneInfo, cut_hour: int
) -> list[SignalDraft]:
    """Active time between 23:00 and the cut hour of the next morning."""
    seconds = 0.0
    hits: list[EpisodeFacts] = []
    for ep in episodes:
        if ep.category == "system" or ep.active_s <= 0:
            continue
        day = logical_day(ep.ts_start, tz=tz, cut_hour=cut_hour)
        window_start = datetime.combine(day, LATE_NIGHT_FROM, tz)
        window_end = datetime.combine(day + timedelta(days=1), time(cut_hour), tz)
        overlap = (min(ep.ts_end, window_end) - max(ep.ts_start, window_start)).total_seconds()
        if overlap > 0:
            span = (ep.ts_end - ep.ts_start).total_seconds() or 1.0
            seconds += ep.active_s * min(1.0, overlap / span)
            hits.append(ep)
    if not hits:
        return []
    minutes = round(seconds / 60, 1)
    return [
        SignalDraft(
            kind="late_night",
            key="day",
            ts_start=min(e.ts_start for e in hits),
            ts_end=max(e.ts_end for e in hits),
            severity=minutes,
            metrics={"minutes": minutes},
            evidence={"episode_ids": sorted(e.episode_id for e in hits)},
        )
    ]


def idle_gaps(episodes: Sequence[EpisodeFacts]) -> list[SignalDraft]:
    """Stretches of 30 minutes or more without activity on any device, inside the day."""
    spans = sorted(
        (e.ts_start, e.ts_end) for e in episodes if e.category != "system" and e.active_s > 0
    )
    out: list[SignalDraft] = []
    if not spans:
        return out
    reach = spans[0][1]
    for start, end in spans[1:]:
        gap = (start - reach).total_seconds()
        if gap >= IDLE_GAP_SIGNAL_S:
            minutes = round(gap / 60, 1)
            out.append(
                SignalDraft(
                    kind="idle_gap",
                    key=f"gap:{reach.isoformat()}",
                    ts_start=reach,
                    ts_end=start,
                    severity=minutes,
                    metrics={"minutes": minutes},
                    evidence={"episode_ids": []},
                )
            )
        reach = max(reach, end)
    return out


def detect_day_signals(
    episodes: Sequence[EpisodeFacts],
    members: Sequence[MemberFacts],
    *,
    tz: ZoneInfo,
    cut_hour: int,
    idle_gap_s: float,
    checkpoint: Callable[[], None] = _never,
) -> list[SignalDraft]:
    """Every signal of one logical day, in a stable order. `checkpoint` is called before
    each episode's text is read (a job's clock may stop the detection there)."""
    signals = [
        *rollback_and_rework(episodes, members, checkpoint=checkpoint),
        *repeated_files(episodes, members, checkpoint=checkpoint),
        *switch_storms(members),
        *focus_and_distraction(episodes, idle_gap_s=idle_gap_s),
        *late_night(episodes, tz=tz, cut_hour=cut_hour),
        *idle_gaps(episodes),
    ]
    return sorted(signals, key=lambda s: (s.kind, s.ts_start, s.key))


def signal_metrics(signals: Sequence[SignalDraft]) -> DigestMetrics:
    """The signal-derived numbers of a day digest."""

    def minutes(kind: str) -> float:
        return round(sum(s.severity for s in signals if s.kind == kind), 1)

    counts: dict[str, int] = {}
    for s in signals:
        counts[s.kind] = counts.get(s.kind, 0) + 1
    return DigestMetrics(
        focus_minutes=minutes("focus_block"),
        distraction_minutes=minutes("distraction"),
        late_night_minutes=minutes("late_night"),
        signal_counts=dict(sorted(counts.items())),
    )
