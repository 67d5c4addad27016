"""A user's own category rules over HTTP: the same rules `timetrace rules` and the web's
Rules page edit. Every write re-categorises the history it names and rebuilds the days
whose categories moved (at once when they are few, else the worker's build jobs do:
`rebuilt` says which); a preview answers the hours first.

    GET    /api/v1/rules
    POST   /api/v1/rules/preview   {"kind": "app", "pattern": "VS Code", "category": "study"}
    POST   /api/v1/rules           the same body (and "position": 1 to try it first)
    PATCH  /api/v1/rules/{id}      {"category": "work"} or {"position": 1}, …
    DELETE /api/v1/rules/{id}
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, status
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, WITH_BODY, errors
from app.errors import NotFoundError
from app.pyramid.user_categories import tree_of
from app.pyramid.user_rules import (
    RulesPreview,
    draft,
    moved,
    preview_rules,
    save_rules,
    with_added,
    with_edited,
    without,
)
from app.rules.user import PATTERN_MAX, RuleKind
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.tools import DeviceDay
from app.store.user_rules import RuleDraft, UserRuleRow

router = APIRouter(prefix="/api/v1/rules", tags=["rules"], responses=AUTHED)
Pattern = Annotated[str, Field(min_length=1, max_length=PATTERN_MAX)]
Position = Annotated[int, Field(ge=1, description="1: tried first")]
CategoryText = Annotated[
    str,
    Field(
        min_length=1,
        max_length=300,
        description="one of the six kinds (work, study, social, entertainment, system, "
        "uncategorized) or a category of yours by its name, path or #id (docs/rules.md)",
    ),
]


class RulePublic(UserRuleRow):
    """A rule as the API returns it (the store's row)."""


class RuleIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: RuleKind
    pattern: Pattern = Field(
        description="an app by any of its names, a site's domain or name, or text a window "
        "title contains (`*`: any run of characters)"
    )
    category: CategoryText
    position: Position | None = None


class RuleChange(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: RuleKind | None = None
    pattern: Pattern | None = None
    category: CategoryText | None = None
    position: Position | None = None


class PreviewOut(BaseModel):
    seconds: float = Field(description="active seconds whose category changes")
    hours: float
    records: int
    device_days: int


class SavedOut(BaseModel):
    rules: list[RulePublic]
    changed: PreviewOut = Field(description="what the save re-categorised, as previewed")
    days: list[DeviceDay] = Field(description="device-days whose categories moved")
    rebuilt: bool = Field(description="false: the worker rebuilds `days` in the background")
    queued: bool = Field(
        description="true: a long history is re-categorised by the worker (`days` empty)"
    )


def _out(preview: RulesPreview) -> PreviewOut:
    return PreviewOut(
        seconds=round(preview.seconds, 3),
        hours=preview.hours,
        records=preview.records,
        device_days=preview.device_days,
    )


def _save(services: Services, user: UserContext, drafts: list[RuleDraft]) -> SavedOut:
    store = services.store
    preview = preview_rules(store, rules=services.rules, user_id=user.user_id, drafts=drafts)
    saved = save_rules(
        store,
        rules=services.rules,
        settings=services.settings,
        user=user,
        drafts=drafts,
        now=datetime.now(UTC),
        background=preview.long,
    )
    return SavedOut(
        rules=[RulePublic.model_validate(r, from_attributes=True) for r in saved.rules],
        changed=_out(preview),
        days=saved.device_days,
        rebuilt=saved.rebuilt,
        queued=saved.queued,
    )


def _added(services: Services, user: UserContext, body: RuleIn) -> list[RuleDraft]:
    new = draft(
        rules=services.rules,
        kind=body.kind,
        pattern=body.pattern,
        category=body.category,
        tree=tree_of(services.store, user_id=user.user_id),
    )
    rows = services.store.list_user_rules(user_id=user.user_id)
    return with_added(rows, new, position=body.position)


@router.get("", response_model=list[RulePublic])
def list_rules(services: ServicesDep, user: UserDep) -> list[RulePublic]:
    """Your rules in the order they are tried, before the rules file's and the defaults."""
    return [
        RulePublic.model_validate(r, from_attributes=True)
        for r in services.store.list_user_rules(user_id=user.user_id)
    ]


@router.post("/preview", response_model=PreviewOut, responses=WITH_BODY)
def preview_rule(body: RuleIn, services: ServicesDep, user: UserDep) -> PreviewOut:
    """How much of the history adding this rule would re-categorise; nothing is saved."""
    drafts = _added(services, user, body)
    return _out(
        preview_rules(services.store, rules=services.rules, user_id=user.user_id, drafts=drafts)
    )


@router.post("", response_model=SavedOut, status_code=status.HTTP_201_CREATED, responses=WITH_BODY)
def add_rule(body: RuleIn, services: ServicesDep, user: UserDep) -> SavedOut:
    """Always count an app, a site or matching titles as a category, from now on and in
    the history. The same kind and pattern again changes that rule's category."""
    return _save(services, user, _added(services, user, body))


# `:int`: "/preview" is no rule id (PATCH there is 405, not a 422 about the id).
@router.patch("/{rule_id:int}", response_model=SavedOut, responses={**WITH_BODY, **errors(404)})
def change_rule(rule_id: int, body: RuleChange, services: ServicesDep, user: UserDep) -> SavedOut:
    """Change a rule's kind, pattern or category, or move it (`position`)."""
    rows = services.store.list_user_rules(user_id=user.user_id)
    old = next((r for r in rows if r.rule_id == rule_id), None)
    if old is None:
        raise NotFoundError(f"no rule {rule_id} of yours")
    drafts = with_edited(
        rows,
        rule_id,
        draft(
            rules=services.rules,
            kind=body.kind or old.kind,
            pattern=body.pattern if body.pattern is not None else old.pattern,
            category=body.category or (f"#{old.category_id}" if old.category_id else old.category),
            tree=tree_of(services.store, user_id=user.user_id),
        ),
    )
    if body.position is not None:
        drafts = moved(drafts, rule_id, position=body.position)
    return _save(services, user, drafts)


@router.delete("/{rule_id:int}", response_model=SavedOut, responses=errors(404, 422))
def delete_rule(rule_id: int, services: ServicesDep, user: UserDep) -> SavedOut:
    """Delete a rule: the records it named go back to the rules file and the defaults."""
    rows = services.store.list_user_rules(user_id=user.user_id)
    return _save(services, user, without(rows, rule_id))
