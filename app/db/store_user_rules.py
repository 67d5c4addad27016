"""Each user's category rules and their effect on the history (mixed into PostgresStore)."""

from __future__ import annotations

from collections.abc import Sequence

from psycopg import errors

from app.db.base import Queries, fetch_all
from app.db.connection import Connection
from app.db.named import Params, method
from app.db.queries import QUERIES
from app.errors import InvalidInputError
from app.store.tools import DeviceDay
from app.store.user_rules import (
    OrphanText,
    OrphanVerdict,
    RuleDraft,
    RuleEffect,
    RulePreview,
    RulesWritten,
    UserRuleRow,
    UserRuleStore,
)

# New rules are added above every position in use, then the list is numbered 1..n.
_ABOVE = 1_000_000


class _Rollback(Exception):
    """Leaves a preview's transaction without keeping anything."""


def _replace_rules(conn: Connection, user_id: int, rules: Sequence[RuleDraft]) -> list[int]:
    """Put `rules`, in their order, in place of the user's: a few statements, however
    many rules. Returns the kept rules that now name another user category (their
    records' days are rebuilt though no record changes)."""
    current = {
        r.rule_id: (r.kind, r.pattern, r.category, r.category_id)
        for r in fetch_all(conn, UserRuleRow, QUERIES["list_user_rules"], {"user_id": user_id})
    }
    named = [r.rule_id for r in rules if r.rule_id is not None]
    unknown = sorted(set(named) - set(current))
    if unknown:
        raise InvalidInputError(f"no rule {unknown[0]} of yours")
    if len(set(named)) != len(named):
        raise InvalidInputError("a rule is listed twice")
    if len({(r.kind, r.pattern) for r in rules}) != len(rules):
        raise InvalidInputError("two rules name the same thing: keep one")
    user = {"user_id": user_id}
    conn.execute(QUERIES["delete_user_rules_but"], {**user, "kept": named})
    edited = [
        r
        for r in rules
        if r.rule_id is not None
        and current[r.rule_id] != (r.kind, r.pattern, r.category, r.category_id)
    ]
    retargeted = [
        r.rule_id
        for r in edited
        if r.rule_id is not None and current[r.rule_id][3] != r.category_id
    ]
    new = [(n, r) for n, r in enumerate(rules) if r.rule_id is None]
    try:
        with conn.transaction():
            if edited:
                ids = [r.rule_id for r in edited]
                conn.execute(QUERIES["park_user_rules"], {**user, "rule_ids": ids})
                conn.execute(
                    QUERIES["edit_user_rules"], {**user, "rule_ids": ids, **_columns(edited)}
                )
            made = _insert(conn, user_id, [(_ABOVE + n, r) for n, r in new])
    except errors.CheckViolation as exc:
        raise InvalidInputError("a rule's pattern is empty or too long") from exc
    order = [r.rule_id if r.rule_id is not None else made[_ABOVE + n] for n, r in enumerate(rules)]
    conn.execute(QUERIES["order_user_rules"], {**user, "rule_ids": order})
    return retargeted


def _insert(conn: Connection, user_id: int, new: list[tuple[int, RuleDraft]]) -> dict[int, int]:
    """New rules at their positions; each position's new rule id."""
    if not new:
        return {}
    params = {"user_id": user_id, "positions": [p for p, _ in new]}
    found = conn.execute(QUERIES["insert_user_rules"], params | _columns([r for _, r in new]))
    return {int(row["position"]): int(row["rule_id"]) for row in found}


def _columns(rules: Sequence[RuleDraft]) -> dict[str, list[str] | list[int | None]]:
    return {
        "kinds": [r.kind for r in rules],
        "patterns": [r.pattern for r in rules],
        "categories": [r.category for r in rules],
        "category_ids": [r.category_id for r in rules],
    }


def _orphans(conn: Connection, user_id: int) -> list[OrphanText]:
    return fetch_all(conn, OrphanText, QUERIES["user_rule_orphans"], {"user_id": user_id})


def mark_days(conn: Connection, user_id: int, days: list[DeviceDay]) -> None:
    if days:
        conn.execute(
            QUERIES["mark_device_days"],
            {
                "user_id": user_id,
                "devices": [d.device_id for d in days],
                "days": [d.day_local for d in days],
                "first_ts": [None] * len(days),
                "first_gone": [None] * len(days),
            },
        )


def _apply(conn: Connection, user_id: int, retargeted: Sequence[int] = ()) -> RulesWritten:
    user = {"user_id": user_id}
    days = fetch_all(conn, DeviceDay, QUERIES["apply_user_rules"], user)
    if retargeted:
        found = fetch_all(
            conn,
            DeviceDay,
            QUERIES["rule_device_days"],
            {**user, "rule_ids": list(retargeted)},
        )
        both = {(d.device_id, d.day_local): d for d in [*days, *found]}
        days = [both[k] for k in sorted(both)]
    mark_days(conn, user_id, days)
    return RulesWritten(
        rules=fetch_all(conn, UserRuleRow, QUERIES["list_user_rules"], user),
        device_days=days,
        orphans=_orphans(conn, user_id),
    )


class PostgresUserRuleStore(Queries):
    def _preview(self, params: Params) -> RulePreview:
        user_id = params["user_id"]
        found: RulePreview | None = None
        try:
            with self.pool.connection() as conn, conn.transaction():
                _replace_rules(conn, user_id, params["rules"])
                effect = fetch_all(
                    conn, RuleEffect, QUERIES["user_rule_effects"], {"user_id": user_id}
                )[0]
                found = RulePreview(effect=effect, orphans=_orphans(conn, user_id))
                raise _Rollback
        except _Rollback:
            pass
        assert found is not None
        return found

    preview_user_rules = method(UserRuleStore.preview_user_rules, _preview)

    def _write(self, params: Params) -> RulesWritten:
        user_id = params["user_id"]
        user = {"user_id": user_id}
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(QUERIES["lock_records"], user)
            retargeted = _replace_rules(conn, user_id, params["rules"])
            if params["apply"]:
                return _apply(conn, user_id, retargeted)
            rules = fetch_all(conn, UserRuleRow, QUERIES["list_user_rules"], user)
            return RulesWritten(rules=rules, device_days=[], orphans=[])

    write_user_rules = method(UserRuleStore.write_user_rules, _write)

    def _apply_now(self, params: Params) -> RulesWritten:
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(QUERIES["lock_records"], {"user_id": params["user_id"]})
            return _apply(conn, params["user_id"])

    apply_user_rules = method(UserRuleStore.apply_user_rules, _apply_now)

    def _recategorize(self, params: Params) -> list[DeviceDay]:
        user_id = params["user_id"]
        verdicts: Sequence[OrphanVerdict] = params["verdicts"]
        if not verdicts:
            return []
        columns = {
            "apps_raw": [v.app_raw for v in verdicts],
            "titles": [v.window_title for v in verdicts],
            "domains": [v.domain for v in verdicts],
            "redacted": [v.redacted for v in verdicts],
            "from_categories": [v.from_category for v in verdicts],
            "categories": [v.category for v in verdicts],
            "sources": [v.source for v in verdicts],
        }
        with self.pool.connection() as conn, conn.transaction():
            conn.execute(QUERIES["lock_records"], {"user_id": user_id})
            days = fetch_all(
                conn, DeviceDay, QUERIES["recategorize_orphans"], {"user_id": user_id, **columns}
            )
            mark_days(conn, user_id, days)
        return days

    recategorize_orphans = method(UserRuleStore.recategorize_orphans, _recategorize)
