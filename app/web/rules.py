"""The Rules page: a user's own category rules, listed, edited, reordered and deleted,
and the "Always count … as …" action every app, site, title and episode links to.

    GET  /rules                          the list, the days still being recomputed
    GET  /rules/change?op=add&kind=app&pattern=Slack[&category=work]
                                         the change and how many hours of history it moves
    POST /rules/change                   save it: the history is re-categorised
    POST /rules/{id}/move                move a rule up or down (position)
    POST /rules/categories               make a category of the user's under a kind or
                                         another category ("Games" under entertainment)

A change is shown with its preview before it is saved (`op` add, edit or delete; the
same form fields carry it to the save). A save rebuilds the moved days at once when
they are few, else the worker does, and the list says how many are left.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse

from app.errors import InvalidInputError, NotFoundError
from app.pyramid.user_categories import add_category, tree_of
from app.pyramid.user_rules import (
    RulesPreview,
    RulesSaved,
    draft,
    preview_rules,
    save_rules,
    with_added,
    with_edited,
    with_moved,
    without,
)
from app.rules.tree import CategoryTree, label
from app.rules.user import RULE_KINDS
from app.runtime.services import Services
from app.store.accounts import UserContext
from app.store.user_rules import RuleDraft, UserRuleRow
from app.store.web import WebSessionRow
from app.web.auth import Form, PageError, SessionDep, check_form, services_of
from app.web.render import lang_of, page

router = APIRouter(include_in_schema=False)
OPS = ("add", "edit", "delete")


@dataclass(frozen=True, slots=True)
class Change:
    """A change to the list, as the page's form fields carry it."""

    op: str
    rule_id: int | None
    kind: str
    pattern: str
    category: str

    @classmethod
    def of(cls, fields: dict[str, str]) -> Change:
        op = fields.get("op", "add")
        raw_id = fields.get("id", "")
        if op not in OPS:
            raise PageError(422, "error", f"op must be one of {', '.join(OPS)}")
        rule_id = int(raw_id) if raw_id.isdigit() and len(raw_id) < 19 else None
        if op != "add" and rule_id is None:
            raise PageError(422, "error", "say which rule (id)")
        return cls(
            op=op,
            rule_id=rule_id,
            kind=fields.get("kind", "app"),
            pattern=fields.get("pattern", "").strip(),
            category=fields.get("category", ""),
        )

    def drafts(
        self, services: Services, rows: list[UserRuleRow], tree: CategoryTree
    ) -> list[RuleDraft]:
        if self.op == "delete":
            assert self.rule_id is not None
            return without(rows, self.rule_id)
        new = draft(
            rules=services.rules,
            kind=self.kind,
            pattern=self.pattern,
            category=self.category,
            tree=tree,
        )
        if self.op == "edit":
            assert self.rule_id is not None
            return with_edited(rows, self.rule_id, new)
        return with_added(rows, new)

    def query(self) -> str:
        fields = {"op": self.op, "kind": self.kind, "pattern": self.pattern}
        if self.rule_id is not None:
            fields["id"] = str(self.rule_id)
        if self.category:
            fields["category"] = self.category
        return urlencode(fields)


def _rows(services: Services, user: UserContext) -> list[UserRuleRow]:
    return services.store.list_user_rules(user_id=user.user_id)


def _tree_fields(services: Services, user: UserContext, lang: str) -> dict[str, Any]:
    """The user's categories as the page shows them: the tree, and each one's name in
    the page's language, the rule form's choices ("#id" names one)."""
    tree = tree_of(services.store, user_id=user.user_id)
    return {
        "tree": tree.rows,
        "category_labels": {r.category_id: label(r, zh=lang == "zh") for r in tree.rows},
    }


@router.get("/rules")
def rules_page(request: Request, session: SessionDep) -> HTMLResponse:
    services = services_of(request)
    params = request.query_params
    return page(
        request,
        "rules.html",
        session=session,
        nav="rules",
        rules=_rows(services, session.user),
        **_tree_fields(services, session.user, lang_of(request)),
        made=params.get("made", ""),
        kinds=RULE_KINDS,
        pending=services.store.marked_days_count(user_id=session.user_id),
        recategorizing=services.store.recategorizing(user_id=session.user_id),
        saved_days=int(params["days"]) if params.get("days", "").isdigit() else None,
        rebuilt=params.get("rebuilt") == "1",
    )


def _change_page(
    request: Request, session: WebSessionRow, change: Change, *, status: int = 200
) -> HTMLResponse:
    services = services_of(request)
    rows = _rows(services, session.user)
    old = next((r for r in rows if r.rule_id == change.rule_id), None)
    if change.op != "add" and old is None:
        raise PageError(404, "not_found", f"no rule {change.rule_id} of yours")
    if change.op == "edit" and old is not None and not change.pattern:
        category = f"#{old.category_id}" if old.category_id else old.category
        change = Change("edit", old.rule_id, old.kind, old.pattern, change.category or category)
    tree = tree_of(services.store, user_id=session.user_id)
    preview: RulesPreview | None = None
    error = ""
    if change.op == "delete" or change.category:
        try:
            if change.op != "delete":  # shown as it will be saved ("code.exe": the app's name)
                named = draft(
                    rules=services.rules,
                    kind=change.kind,
                    pattern=change.pattern,
                    category=change.category,
                    tree=tree,
                )
                change = replace(change, pattern=named.pattern)
            drafts = change.drafts(services, rows, tree)
            preview = preview_rules(
                services.store, rules=services.rules, user_id=session.user_id, drafts=drafts
            )
        except (InvalidInputError, NotFoundError) as exc:
            error, status = exc.message, 422
    return page(
        request,
        "rules.html",
        session=session,
        nav="rules",
        change=change,
        old=old,
        **_tree_fields(services, session.user, lang_of(request)),
        kinds=RULE_KINDS,
        preview=preview,
        error=error,
        status=status,
    )


@router.get("/rules/change")
def change_form(request: Request, session: SessionDep) -> HTMLResponse:
    """A change with its preview, before it is saved."""
    return _change_page(request, session, Change.of(dict(request.query_params)))


@router.post("/rules/change", response_model=None)
def save_change(
    request: Request, session: SessionDep, form: Form
) -> RedirectResponse | HTMLResponse:
    check_form(request, session, form)
    change = Change.of(form)
    services = services_of(request)
    try:
        tree = tree_of(services.store, user_id=session.user_id)
        drafts = change.drafts(services, _rows(services, session.user), tree)
    except (InvalidInputError, NotFoundError):
        return _change_page(request, session, change, status=422)
    saved = save_rules(
        services.store,
        rules=services.rules,
        settings=services.settings,
        user=session.user,
        drafts=drafts,
        now=datetime.now(UTC),
        background=form.get("long") == "1",  # as the preview found it: a long history waits
    )
    return RedirectResponse(_done(saved), status_code=303)


def _done(saved: RulesSaved) -> str:
    if saved.queued:
        return "/rules?queued=1"
    return "/rules?" + urlencode({"days": len(saved.device_days), "rebuilt": int(saved.rebuilt)})


@router.post("/rules/{rule_id}/move")
def move_rule(rule_id: int, request: Request, session: SessionDep, form: Form) -> RedirectResponse:
    """Try a rule at another place (the form's `position`, 1: first)."""
    check_form(request, session, form)
    services = services_of(request)
    position = form.get("position", "")
    if not position.isdigit() or not 0 < int(position) < 100_000:
        raise PageError(422, "error", "position must be a whole number from 1")
    try:
        drafts = with_moved(_rows(services, session.user), rule_id, position=int(position))
    except NotFoundError as exc:
        raise PageError(404, "not_found", exc.message) from exc
    saved = save_rules(
        services.store,
        rules=services.rules,
        settings=services.settings,
        user=session.user,
        drafts=drafts,
        now=datetime.now(UTC),
    )
    return RedirectResponse(_done(saved), status_code=303)


@router.post("/rules/categories")
def make_category(request: Request, session: SessionDep, form: Form) -> RedirectResponse:
    """A category of the user's under a kind or another category (the form's `under`:
    a kind, or "#id")."""
    check_form(request, session, form)
    services = services_of(request)
    try:
        made = add_category(
            services.store,
            user_id=session.user_id,
            parent=form.get("under", ""),
            name=form.get("name"),
            name_zh=form.get("name_zh"),
            color=form.get("color"),
        )
    except InvalidInputError as exc:
        raise PageError(422, "error", exc.message) from exc
    return RedirectResponse("/rules?" + urlencode({"made": made.path}), status_code=303)
