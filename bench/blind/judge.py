"""Truth by SQL over the records layer (v_record_durations: the duration rule) at run
time, and the check of one answer against it.

    judge = Judge(conn, user_id=1, today=date(2026, 12, 5), zone=ZoneInfo("Asia/Shanghai"))
    verdict = judge.verdict(question)      # .expected (words), .check(answer) -> bool
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import partial
from typing import Any
from zoneinfo import ZoneInfo

from bench.blind import parse, spec
from bench.blind.spec import Span, Thing

NONE_EN = ("no ", "No ", "not ", "never", "nothing", "Nothing", "none", "None", "couldn't",
           "can't find", "cannot find", "don't see", "zero", "Zero")  # fmt: skip
NONE_ZH = ("没有", "没", "无", "未", "找不到", "不存在", "零")
ZERO = re.compile(
    r"(?<![\d.])0(?:\.0+)?\s*(?:天|days?\b|h\b|hours?|小时|min|分钟|%)", re.IGNORECASE
)
# An answer that says a thing the data holds does not exist is wrong whatever else it
# lists (its "closest names" must not pass for a ranking).
REFUSAL = re.compile(
    r"no (?:app|site|category|record of)\b|called [“\"]|没有叫|从来没有|不存在", re.IGNORECASE
)
AVERAGE = re.compile(r"(?:average|avg|mean|daily|平均|日均|每天)\W{0,12}$", re.IGNORECASE)
PER_DAY = re.compile(r"\s*(?:/\s*(?:day|d|天)|(?:per|a|each) day|每天|一天|/日)", re.IGNORECASE)
TOTAL = re.compile(r"(?:total|in all|together|combined|sum|合计|总共|一共|加起来|共计|=)\W{0,12}$")


@dataclass(frozen=True, slots=True)
class Verdict:
    expected: str
    check: Callable[[str], bool]


def any_of(verdicts: list[Verdict]) -> Verdict:
    return Verdict(
        " | ".join(v.expected for v in verdicts),
        lambda answer: any(v.check(answer) for v in verdicts),
    )


def hm(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h ({seconds / 60:.0f} min)"


class Judge:
    """The truth of each kind of fact, over one user's records."""

    def __init__(self, conn: Any, *, user_id: int, today: date, zone: ZoneInfo) -> None:
        self.conn, self.user_id, self.today, self.zone = conn, user_id, today, zone

    # -- SQL ---------------------------------------------------------------------------
    def _rows(self, sql: str, params: list[object]) -> list[dict[str, Any]]:
        return list(self.conn.execute(sql, params))

    def seconds_by_day(self, thing: Thing, span: Span) -> dict[date, float]:
        rows = self._rows(
            "SELECT day_local, sum(duration_s) AS s FROM v_record_durations "
            "WHERE user_id = %s AND NOT is_idle AND day_local BETWEEN %s AND %s "
            f"AND {thing.where} GROUP BY day_local",
            [self.user_id, *span, *thing.params],
        )
        return {r["day_local"]: float(r["s"]) for r in rows}

    def seconds(self, thing: Thing, span: Span) -> float:
        return sum(self.seconds_by_day(thing, span).values())

    def active_days(self, span: Span) -> int:
        return len(self.seconds_by_day(spec.SCREEN, span))

    def signal_days(self, kinds: tuple[str, ...], span: Span) -> set[date]:
        rows = self._rows(
            "SELECT DISTINCT day_local FROM signals WHERE user_id = %s AND NOT stale "
            "AND kind = ANY(%s) AND day_local BETWEEN %s AND %s",
            [self.user_id, list(kinds), *span],
        )
        return {r["day_local"] for r in rows}

    def spans_of(self, thing: Thing, span: Span) -> list[tuple[datetime, datetime, date]]:
        """The thing's records as (start, end, logical day), in order."""
        rows = self._rows(
            "SELECT ts_start, ts_start + duration_s * interval '1 second' AS ts_end, day_local "
            "FROM v_record_durations WHERE user_id = %s AND NOT is_idle "
            f"AND day_local BETWEEN %s AND %s AND {thing.where} AND duration_s > 0 "
            "ORDER BY ts_start",
            [self.user_id, *span, *thing.params],
        )
        return [(r["ts_start"], r["ts_end"], r["day_local"]) for r in rows]

    def window_seconds(self, start: datetime, end: datetime, column: str) -> dict[str, float]:
        rows = self._rows(
            f"SELECT {column} AS name, sum(extract(epoch FROM least(ts_start "
            "+ duration_s * interval '1 second', %s) - greatest(ts_start, %s))) AS s "
            "FROM v_record_durations WHERE user_id = %s AND NOT is_idle AND ts_start < %s "
            "AND ts_start + duration_s * interval '1 second' > %s GROUP BY 1",
            [end, start, self.user_id, end, start],
        )
        return {r["name"]: float(r["s"]) for r in rows}

    # -- verdicts ------------------------------------------------------------------------
    def verdict(self, q: spec.Q) -> Verdict:
        handler: dict[type, Callable[[Any, bool], Verdict]] = {
            spec.Amount: self._amount,
            spec.Share: self._share,
            spec.Average: self._average,
            spec.Top: self._top,
            spec.Days: self._days,
            spec.Contest: self._contest,
            spec.Threshold: self._threshold,
            spec.LastFirst: self._last_first,
            spec.Window: self._window,
            spec.Signals: self._signals,
            spec.Unknown: self._unknown,
            spec.NoPeriod: self._no_period,
        }
        return handler[type(q.truth)](q.truth, q.zh)

    def amount_verdict(self, thing: Thing, span: Span, *, minutes: bool, zh: bool) -> Verdict:
        secs = self.seconds(thing, span)

        def check(answer: str) -> bool:
            if REFUSAL.search(answer):
                return False
            found = parse.stated_durations(answer, total=TOTAL)
            if secs < 30:
                return _says_none(answer, zh) or any(d.seconds < 60 for d in found)
            return any(parse.duration_matches(d, secs, minutes=minutes) for d in found)

        return Verdict(f"{thing.label} {span[0]}..{span[1]}: {hm(secs)}", check)

    def _amount(self, t: spec.Amount, zh: bool) -> Verdict:
        return any_of([
            self.amount_verdict(t.thing, s, minutes=t.minutes, zh=zh)
            for s in t.period.spans(self.today)
        ])  # fmt: skip

    def _share(self, t: spec.Share, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            whole = self.seconds(t.whole, span)
            pct = 100 * self.seconds(t.thing, span) / whole if whole else 0.0
            out.append(Verdict(
                f"{t.thing.label}/{t.whole.label} {span[0]}..{span[1]}: {pct:.1f}%",
                partial(_percent_near, pct),
            ))  # fmt: skip
        return any_of(out)

    def _average(self, t: spec.Average, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            secs = self.seconds(t.thing, span)
            calendar_days = (span[1] - span[0]).days + 1
            for n in sorted({calendar_days, max(1, self.active_days(span))}):
                avg = secs / n
                out.append(Verdict(
                    f"{t.thing.label} {span[0]}..{span[1]} /{n} d: {hm(avg)}",
                    partial(_average_near, avg),
                ))  # fmt: skip
        return any_of(out)

    def _top(self, t: spec.Top, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            ranked, names = self.ranking(t.group, span)
            top = ranked[: t.n]

            def check(
                answer: str, top: list[str] = top, names: dict[str, tuple[str, ...]] = names
            ) -> bool:
                if REFUSAL.search(answer):
                    return False
                seen = parse.first_mentions(answer, names)
                places = [seen.get(label) for label in top]
                return all(p is not None for p in places) and places == sorted(places)  # type: ignore[type-var]

            out.append(Verdict(f"top {t.n} {t.group} {span[0]}..{span[1]}: {top}", check))
        return any_of(out)

    def ranking(self, group: str, span: Span) -> tuple[list[str], dict[str, tuple[str, ...]]]:
        """Labels of `group` by seconds in `span`, most first, and the names of each."""
        catalogue = {"apps": spec.APPS, "sites": spec.SITES, "categories": spec.CATEGORIES}
        things = list(catalogue[group])
        if group == "apps":
            known = {t.label for t in things}
            rows = self._rows(
                "SELECT DISTINCT app FROM records WHERE user_id = %s AND NOT is_idle",
                [self.user_id],
            )
            things += [spec.app(r["app"]) for r in rows if r["app"] not in known]
        secs = {t.label: self.seconds(t, span) for t in things}
        ranked = sorted((label for label in secs if secs[label] > 0), key=lambda k: -secs[k])
        return ranked, {t.label: t.names for t in things}

    def _days(self, t: spec.Days, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            by_day = self.seconds_by_day(t.thing, span)
            active = set(self.seconds_by_day(spec.SCREEN, span))
            present = {d for d, s in by_day.items() if s > 0 and s >= 60 * t.min_minutes}
            days = present if t.present else active - present
            out.append(self.days_verdict(days, span, count=t.count, zh=zh))
        return any_of(out)

    def days_verdict(self, days: set[date], span: Span, *, count: bool, zh: bool) -> Verdict:
        listed = ", ".join(d.isoformat() for d in sorted(days)) or "none"
        if count:
            return Verdict(
                f"{len(days)} days ({listed})",
                lambda a: (
                    not REFUSAL.search(a)
                    and (
                        len(days) in parse.day_counts(a)
                        or (not days and _says_none(a, zh) and not any(parse.day_counts(a)))
                    )
                ),
            )
        in_week = span[0].weekday() <= span[1].weekday() and (span[1] - span[0]).days < 7
        week = span if in_week else None

        def check(answer: str) -> bool:
            claimed = {
                d for d in parse.dates(answer, today=self.today, week=week)
                if span[0] <= d <= span[1]
            }  # fmt: skip
            return claimed == days and (bool(days) or _says_none(answer, zh))

        return Verdict(f"days: {listed}", check)

    def _contest(self, t: spec.Contest, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            a, b = self.seconds(t.a, span), self.seconds(t.b, span)
            winner = t.a.label if a >= b else t.b.label
            names = {t.a.label: t.a.names, t.b.label: t.b.names}

            def check(
                answer: str, winner: str = winner, names: dict[str, tuple[str, ...]] = names
            ) -> bool:
                return not REFUSAL.search(answer) and parse.claimed_winner(answer, names) == winner

            out.append(Verdict(
                f"{winner} wins {span[0]}..{span[1]} ({t.a.label} {hm(a)} vs {t.b.label} {hm(b)})",
                check,
            ))  # fmt: skip
        return any_of(out)

    def _threshold(self, t: spec.Threshold, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            secs = self.seconds(t.thing, span)
            yes = secs > t.hours * 3600 if t.over else secs < t.hours * 3600
            out.append(Verdict(
                f"{'yes' if yes else 'no'} ({t.thing.label} {span[0]}..{span[1]}: {hm(secs)})",
                partial(_starts_with, yes),
            ))  # fmt: skip
        return any_of(out)

    def _last_first(self, t: spec.LastFirst, zh: bool) -> Verdict:
        span = t.period.first(self.today)
        records = self.spans_of(t.thing, span)
        if not records:
            return Verdict(f"never in {span[0]}..{span[1]}", lambda a: _says_none(a, zh))
        blocks = _blocks(records)
        if t.last:
            moments = [(blocks[-1][1], blocks[-1][2]), (blocks[-1][0], blocks[-1][2])]
        else:
            moments = [(blocks[0][0], blocks[0][2])]
        one_day = span[0] == span[1]
        verdicts = [self.moment_verdict(at, logical, one_day=one_day) for at, logical in moments]
        return any_of(verdicts)

    def moment_verdict(self, at: datetime, logical: date, *, one_day: bool) -> Verdict:
        local = at.astimezone(self.zone)
        wanted = local.hour * 60 + local.minute
        days = {logical, local.date()}

        def check(answer: str) -> bool:
            near = any(
                min(abs(m - wanted), 1440 - abs(m - wanted)) <= 5
                for m in parse.clock_minutes(answer)
            )
            return near and (one_day or self._names_day(answer, days))

        return Verdict(f"{local:%Y-%m-%d %H:%M} (logical day {logical})", check)

    def _names_day(self, answer: str, days: set[date]) -> bool:
        if parse.dates(answer, today=self.today) & days:
            return True
        relative = {
            self.today: ("today", "今天", "今日"),
            self.today - timedelta(1): ("yesterday", "昨天", "昨晚", "昨日"),
            self.today - timedelta(2): ("day before yesterday", "前天"),
        }
        if any(w in answer.lower() for d in days for w in relative.get(d, ())):
            return True
        recent = (self.today - timedelta(6), self.today)
        return bool(parse.dates(answer, today=self.today, week=recent) & days)

    def _window(self, t: spec.Window, zh: bool) -> Verdict:
        return any_of([self.window_verdict(s[0], t.start, t.end, zh=zh)
                       for s in t.day.spans(self.today)])  # fmt: skip

    def window_verdict(self, day: date, start_at: str, end_at: str, *, zh: bool) -> Verdict:
        start = datetime.combine(day, time.fromisoformat(start_at), self.zone)
        end = datetime.combine(day, time.fromisoformat(end_at), self.zone)
        if end <= start:
            end += timedelta(days=1)
        apps = self.window_seconds(start, end, "app")
        cats = self.window_seconds(start, end, "category")
        if not apps:
            return Verdict(f"nothing {start}..{end}", lambda a: _says_none(a, zh))
        top_app, top_cat = max(apps, key=lambda k: apps[k]), max(cats, key=lambda k: cats[k])
        names = {t.label: t.names for t in (*spec.APPS, *spec.CATEGORIES)}
        names.setdefault(top_app, (top_app,))

        def check(answer: str) -> bool:
            seen = parse.first_mentions(answer, names)
            if REFUSAL.search(answer) or not seen:
                return False
            return min(seen, key=lambda k: seen[k]) in (top_app, top_cat)

        return Verdict(f"{start:%m-%d %H:%M}..{end:%m-%d %H:%M}: {top_app} / {top_cat}", check)

    def _signals(self, t: spec.Signals, zh: bool) -> Verdict:
        out = []
        for span in t.period.spans(self.today):
            days = self.signal_days(t.kinds, span)
            if t.mode == "yesno":
                yes = bool(days)
                out.append(Verdict(
                    f"{'yes' if yes else 'no'} ({sorted(d.isoformat() for d in days)})",
                    partial(_starts_with, yes),
                ))  # fmt: skip
            else:
                out.append(self.days_verdict(days, span, count=t.mode == "count", zh=zh))
        return any_of(out)

    def _unknown(self, t: spec.Unknown, zh: bool) -> Verdict:
        def check(answer: str) -> bool:
            found = parse.durations(answer)
            if any(d.seconds >= 60 for d in found):
                return False
            return bool(REFUSAL.search(answer)) or _says_none(answer, zh) or bool(found)

        return Verdict(f"no such activity: {t.name}", check)

    def _no_period(self, t: spec.NoPeriod, zh: bool) -> Verdict:
        def check(answer: str) -> bool:
            period = stated_period(answer, self.today)
            if period is None:
                return False
            return any(
                self.amount_verdict(t.thing, s, minutes=False, zh=zh).check(answer)
                for s in period.spans(self.today)
            )

        choices = [("today", spec.day(0)), ("last 7 days", spec.last_days(7)),
                   ("this week", spec.week(0)), ("this month", spec.month(0))]  # fmt: skip
        expected = "; ".join(
            f"{words}: {hm(self.seconds(t.thing, p.first(self.today)))}" for words, p in choices
        )
        return Verdict(f"a stated period, then {t.thing.label} over it ({expected})", check)


_PERIOD_WORDS: tuple[tuple[tuple[str, ...], spec.Period], ...] = (
    (("today", "今天", "今日"), spec.day(0)),
    (("7 days", "7 天", "7天", "七天", "seven days", "一周内", "近一周"), spec.last_days(7)),
    (("this week", "本周", "这周", "这一周", "这星期", "本星期"), spec.week(0)),
    (("this month", "本月", "这个月", "这月"), spec.month(0)),
)


_ISO_SPAN = re.compile(
    r"(\d{4}-\d{2}-\d{2})(?:\s*(?:to|至|–|—|~|-)\s*(\d{4}-\d{2}-\d{2}))?|(\d{4})-W(\d{2})"
)


def stated_span(answer: str, today: date) -> spec.Period | None:
    """The period an answer states as dates ("2026-12-05", "2026-11-29 to 2026-12-05",
    "2026-W49"), when it is one of today / the last 7 days / this week / this month."""
    m = _ISO_SPAN.search(answer)
    if m is None:
        return None
    if m.group(3):
        monday = date.fromisocalendar(int(m.group(3)), int(m.group(4)), 1)
        span: Span = (monday, min(today, monday + timedelta(6)))
    else:
        first = date.fromisoformat(m.group(1))
        span = (first, date.fromisoformat(m.group(2)) if m.group(2) else first)
    for _, period in _PERIOD_WORDS:
        if span in period.spans(today):
            return period
    return None


def stated_period(answer: str, today: date) -> spec.Period | None:
    """The first of today / the last 7 days / this week / this month that `answer` states,
    in words or as dates."""
    lowered = answer.lower()
    found = [
        (lowered.find(w), period)
        for words, period in _PERIOD_WORDS
        for w in words
        if lowered.find(w) >= 0
    ]
    return min(found, key=lambda p: p[0])[1] if found else stated_span(answer, today)


Stamped = tuple[datetime, datetime, date]


def _blocks(records: list[Stamped]) -> list[Stamped]:
    """Runs of records with gaps under five minutes: (start, end, logical day of the start)."""
    blocks: list[Stamped] = []
    for start, end, day in records:
        if blocks and start - blocks[-1][1] <= timedelta(minutes=5):
            first, last, first_day = blocks[-1]
            blocks[-1] = (first, max(last, end), first_day)
        else:
            blocks.append((start, end, day))
    return blocks


def _says_none(answer: str, zh: bool) -> bool:
    """Says there is none, in the question's language, and does not deny the thing."""
    if REFUSAL.search(answer):
        return False
    return bool(ZERO.search(answer)) or any(w in answer for w in (NONE_ZH if zh else NONE_EN))


def _percent_near(pct: float, answer: str) -> bool:
    return any(abs(p - pct) <= 1 for p in parse.percents(answer))


def _average_near(avg: float, answer: str) -> bool:
    found = parse.stated_durations(answer, total=AVERAGE, after=PER_DAY)
    return any(parse.duration_matches(d, avg, minutes=False) for d in found)


def _starts_with(yes: bool, answer: str) -> bool:
    return parse.leading_yes_no(answer) is yes
