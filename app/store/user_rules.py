"""Each user's own category rules (`UserRuleStore`), and what they do to the history:
a preview of the time they would move, and the re-categorising that marks the days
whose categories moved for a rebuild."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from app.store.row import Row
from app.store.tools import DeviceDay


class UserRuleRow(Row):
    rule_id: int
    position: int  # 1, 2, …: the order rules are tried in
    kind: str  # app | site | title | regex (app/rules/user.py)
    pattern: str
    category: str  # one of the six kinds
    category_id: int | None = None  # the user category it names (migration 0034)
    created: datetime
    updated: datetime


class RuleDraft(Row):
    """One rule of a proposed list: an existing rule (its id) or a new one (None)."""

    rule_id: int | None
    kind: str
    pattern: str
    category: str
    category_id: int | None = None


class RuleEffect(Row):
    """What the user's rules move in the history: seconds by the duration rule, records
    and device-days whose category changes."""

    seconds: float
    records: int
    device_days: int
    scanned: int = 0  # the user's live records read to find them


class OrphanText(Row):
    """Records a user rule categorised that no user rule names any more, by their text
    (as ingest stored it), with their seconds: the file and default rules decide again."""

    app_raw: str
    window_title: str
    domain: str | None
    redacted: bool
    category: str
    seconds: float


class OrphanVerdict(Row):
    """An orphan text and the category the file and default rules now give it."""

    app_raw: str
    window_title: str
    domain: str | None
    redacted: bool
    from_category: str
    category: str
    source: str


class RulePreview(Row):
    effect: RuleEffect
    orphans: list[OrphanText]


class RulesWritten(Row):
    rules: list[UserRuleRow]
    device_days: list[DeviceDay]  # marked for a rebuild: their categories moved
    orphans: list[OrphanText]


class UserRuleStore(Protocol):
    """A user's category rules; every call is scoped to one user."""

    def list_user_rules(self, *, user_id: int) -> list[UserRuleRow]: ...

    def preview_user_rules(self, *, user_id: int, rules: Sequence[RuleDraft]) -> RulePreview:
        """What the history would become with `rules` (the whole ordered list) in place
        of the user's: computed in a transaction that is rolled back."""
        ...

    def write_user_rules(
        self, *, user_id: int, rules: Sequence[RuleDraft], apply: bool = True
    ) -> RulesWritten:
        """Put `rules` (the whole ordered list) in place of the user's: rules named by id
        are changed, the others added, the missing ones deleted. With `apply`, in the same
        transaction, `apply_user_rules`. InvalidInputError when an id is not the user's
        rule or one kind and pattern comes twice."""
        ...

    def apply_user_rules(self, *, user_id: int) -> RulesWritten:
        """Every record the user's rules name takes its first rule's category; the
        device-days whose categories moved are marked for a rebuild. Returns them, and
        the orphans (records of a removed rule) for the file rules to decide."""
        ...

    def recategorizing(self, *, user_id: int) -> bool:
        """Whether a re-categorising job of the user waits or runs."""
        ...

    def recategorize_orphans(
        self, *, user_id: int, verdicts: Sequence[OrphanVerdict]
    ) -> list[DeviceDay]:
        """Give orphan texts their new categories; mark and return the device-days whose
        categories moved."""
        ...

    def live_records_beyond(self, *, user_id: int, n: int) -> bool:
        """Whether the user keeps more than `n` live records (read no further)."""
        ...

    def marked_days_count(self, *, user_id: int) -> int:
        """Device-days marked for a rebuild that no build has done yet."""
        ...
