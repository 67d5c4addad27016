"""Editing a user's own category rules, for every door (web, HTTP API, CLI): the list
after an edit, a preview of the history it moves, and the save that re-categorises
the history and rebuilds the days whose categories moved.

    drafts = with_added(store.list_user_rules(user_id=1), kind="app", pattern="Slack",
                        category="work")
    preview_rules(store, rules=rules, user_id=1, drafts=drafts).hours   # 12.5
    save_rules(store, rules=rules, settings=settings, user=user, drafts=drafts, now=now)

A save writes the rules and re-categorises every record they name in one transaction
(the database reads a rule as `app/rules/user.py` does), marks the device-days whose
categories moved, and gives the records of a removed rule back to the file and default
rules. The marked days are rebuilt through the usual path: at once when they are few,
else by the worker's build jobs (their count left is the progress).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from app.errors import NotFoundError
from app.job_requests import build_job, recategorize_job
from app.pyramid.build import PyramidStore, rebuild_days
from app.rules.categories import Rules
from app.rules.things import vocabulary_for
from app.rules.tree import CategoryTree, target
from app.rules.user import check_count, check_kind, normalize_pattern
from app.settings import Settings
from app.store.accounts import UserContext
from app.store.jobs import JobStore
from app.store.tools import DeviceDay
from app.store.user_rules import (
    OrphanText,
    OrphanVerdict,
    RuleDraft,
    RulesWritten,
    UserRuleRow,
    UserRuleStore,
)

# A save rebuilds this many device-days in the request at most; more go to the worker.
INLINE_DEVICE_DAYS = 40
# A change that moves more records than this, or whose user has more live records than
# BACKGROUND_SCANNED (every change reads them all), is re-categorised by a job, not in
# the request: about a second of SQL per 50,000 records on a small machine.
BACKGROUND_RECORDS = 20_000
BACKGROUND_SCANNED = 100_000


class RulesStore(PyramidStore, UserRuleStore, JobStore, Protocol):
    """What editing rules uses: the rules, the records they move, and the rebuild."""


def drafts_of(rows: Sequence[UserRuleRow]) -> list[RuleDraft]:
    return [
        RuleDraft(
            rule_id=r.rule_id,
            kind=r.kind,
            pattern=r.pattern,
            category=r.category,
            category_id=r.category_id,
        )
        for r in rows
    ]


def draft(
    *, rules: Rules, kind: str, pattern: str, category: str, tree: CategoryTree | None = None
) -> RuleDraft:
    """A new rule as a person typed it: its kind and category checked, its app or site
    named as the rules name it ("code.exe" and "VS Code" are Visual Studio Code). The
    category is one of the six kinds or one of the user's categories (`tree`: "games"
    names Games, under entertainment)."""
    checked = check_kind(kind)
    kind_of, category_id = target(tree or CategoryTree([]), category)
    return RuleDraft(
        rule_id=None,
        kind=checked,
        pattern=normalize_pattern(
            kind=checked, text=pattern, vocabulary=vocabulary_for(rules.apps)
        ),
        category=kind_of,
        category_id=category_id,
    )


def _index(rows: Sequence[UserRuleRow], rule_id: int) -> int:
    for i, row in enumerate(rows):
        if row.rule_id == rule_id:
            return i
    raise NotFoundError(f"no rule {rule_id} of yours")


def _placed(drafts: list[RuleDraft], rule: RuleDraft, position: int | None) -> list[RuleDraft]:
    """`rule` put at `position` (1 is tried first; None or past the end: last)."""
    at = len(drafts) if position is None else max(0, min(position - 1, len(drafts)))
    return [*drafts[:at], rule, *drafts[at:]]


def with_added(
    rows: Sequence[UserRuleRow], new: RuleDraft, *, position: int | None = None
) -> list[RuleDraft]:
    """The list with `new` added; a rule of the same kind and pattern takes its category
    instead (and moves when a position is given)."""
    drafts = drafts_of(rows)
    same = next(
        (i for i, d in enumerate(drafts) if (d.kind, d.pattern) == (new.kind, new.pattern)), None
    )
    if same is None:
        check_count(len(drafts) + 1)
        return _placed(drafts, new, position)
    kept = drafts.pop(same).model_copy(
        update={"category": new.category, "category_id": new.category_id}
    )
    return _placed(drafts, kept, same + 1 if position is None else position)


def with_edited(rows: Sequence[UserRuleRow], rule_id: int, edited: RuleDraft) -> list[RuleDraft]:
    drafts = drafts_of(rows)
    at = _index(rows, rule_id)
    drafts[at] = edited.model_copy(update={"rule_id": rule_id})
    return drafts


def with_moved(rows: Sequence[UserRuleRow], rule_id: int, *, position: int) -> list[RuleDraft]:
    return moved(drafts_of(rows), rule_id, position=position)


def moved(drafts: Sequence[RuleDraft], rule_id: int, *, position: int) -> list[RuleDraft]:
    """A list of drafts with one rule put at `position` (1: first)."""
    rest = [d for d in drafts if d.rule_id != rule_id]
    if len(rest) == len(drafts):
        raise NotFoundError(f"no rule {rule_id} of yours")
    return _placed(rest, next(d for d in drafts if d.rule_id == rule_id), position)


def without(rows: Sequence[UserRuleRow], rule_id: int) -> list[RuleDraft]:
    drafts = drafts_of(rows)
    drafts.pop(_index(rows, rule_id))
    return drafts


def _verdicts(rules: Rules, orphans: Sequence[OrphanText]) -> list[OrphanVerdict]:
    """What the file and default rules give texts no user rule names any more."""
    out = []
    for o in orphans:
        verdict = (
            rules.classify(app=o.app_raw, title="", domain=None)
            if o.redacted
            else rules.classify(app=o.app_raw, title=o.window_title, domain=o.domain)
        )
        out.append(
            OrphanVerdict(
                app_raw=o.app_raw,
                window_title=o.window_title,
                domain=o.domain,
                redacted=o.redacted,
                from_category=o.category,
                category=verdict.category,
                source=verdict.source,
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class RulesPreview:
    """The history a list of rules would move: seconds (by the duration rule) whose
    category changes, the records and device-days they are in."""

    seconds: float
    records: int
    device_days: int
    scanned: int = 0

    @property
    def hours(self) -> float:
        return round(self.seconds / 3600, 2)

    @property
    def long(self) -> bool:
        """Too much to re-categorise in a request: a job does it (`save_rules`)."""
        return self.records > BACKGROUND_RECORDS or self.scanned > BACKGROUND_SCANNED


def preview_rules(
    store: UserRuleStore, *, rules: Rules, user_id: int, drafts: Sequence[RuleDraft]
) -> RulesPreview:
    """How much of the history `drafts` (the whole ordered list) would re-categorise."""
    found = store.preview_user_rules(user_id=user_id, rules=drafts)
    back = [
        o
        for o, v in zip(found.orphans, _verdicts(rules, found.orphans), strict=True)
        if v.category != o.category
    ]
    return RulesPreview(
        seconds=found.effect.seconds + sum(o.seconds for o in back),
        records=found.effect.records,
        device_days=found.effect.device_days,
        scanned=found.effect.scanned,
    )


@dataclass(frozen=True, slots=True)
class RulesSaved:
    rules: list[UserRuleRow]
    device_days: list[DeviceDay]  # whose categories moved (none yet when `queued`)
    rebuilt: bool  # rebuilt in this call; else the worker's build jobs rebuild them
    queued: bool = False  # the history is re-categorised by a job (`recategorize_job`)


def _moved_days(
    store: RulesStore, rules: Rules, user_id: int, written: RulesWritten
) -> set[tuple[str, date]]:
    days = {(d.device_id, d.day_local) for d in written.device_days}
    if written.orphans:
        back = store.recategorize_orphans(
            user_id=user_id, verdicts=_verdicts(rules, written.orphans)
        )
        days |= {(d.device_id, d.day_local) for d in back}
    return days


def save_rules(
    store: RulesStore,
    *,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    drafts: Sequence[RuleDraft],
    now: datetime,
    inline_device_days: int = INLINE_DEVICE_DAYS,
    background: bool = False,
) -> RulesSaved:
    """Put `drafts` in place of the user's rules and re-categorise the history: here, and
    the device-days whose categories moved rebuilt at once when at most
    `inline_device_days` (else through build jobs); or, with `background` (a long
    history to go through: see `BACKGROUND_RECORDS`), all of it by a job."""
    check_count(len(drafts))
    if background:
        written = store.write_user_rules(user_id=user.user_id, rules=drafts, apply=False)
        store.defer([recategorize_job(user.user_id)])
        return RulesSaved(rules=written.rules, device_days=[], rebuilt=False, queued=True)
    written = store.write_user_rules(user_id=user.user_id, rules=drafts)
    return _rebuilt(
        store, rules, settings, user, written, now=now, inline_device_days=inline_device_days
    )


def _rebuilt(
    store: RulesStore,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    written: RulesWritten,
    *,
    now: datetime,
    inline_device_days: int,
) -> RulesSaved:
    """The device-days `written` moved, rebuilt here when few, else by build jobs."""
    days = _moved_days(store, rules, user.user_id, written)
    device_days = [DeviceDay(device_id=d, day_local=day) for d, day in sorted(days)]
    if not days:
        return RulesSaved(rules=written.rules, device_days=[], rebuilt=True)
    if len(days) <= inline_device_days:
        rebuild_days(store, user=user, device_days=sorted(days), now=now, settings=settings)
        return RulesSaved(rules=written.rules, device_days=device_days, rebuilt=True)
    store.defer([build_job(user.user_id, device) for device in sorted({d for d, _ in days})])
    return RulesSaved(rules=written.rules, device_days=device_days, rebuilt=False)


def recategorize_now(
    store: RulesStore,
    *,
    rules: Rules,
    settings: Settings,
    user: UserContext,
    now: datetime,
    extra: Sequence[DeviceDay] = (),
    inline_device_days: int = INLINE_DEVICE_DAYS,
) -> RulesSaved:
    """Re-categorise the history by the user's rules as they stand (after a change of
    the category tree) and rebuild the moved device-days, as a save does; `extra` are
    days already marked (their user category moved)."""
    written = store.apply_user_rules(user_id=user.user_id)
    written = written.model_copy(update={"device_days": [*written.device_days, *extra]})
    return _rebuilt(
        store, rules, settings, user, written, now=now, inline_device_days=inline_device_days
    )


def recategorize_history(store: RulesStore, *, rules: Rules, user_id: int) -> int:
    """The job's work: re-categorise the history by the user's rules as they stand and
    ask for the moved device-days' rebuilds. Returns how many device-days moved."""
    days = _moved_days(store, rules, user_id, store.apply_user_rules(user_id=user_id))
    store.defer([build_job(user_id, device) for device in sorted({d for d, _ in days})])
    return len(days)
