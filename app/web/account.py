"""Signing in and out, the language switch, the static assets, and the privacy page:
deleting a time range (after a step that shows what goes), devices and tokens."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse

from app.errors import InvalidInputError
from app.ingest.records import delete_records
from app.pyramid.retention import size_text, user_storage
from app.runtime.auth import issue_token
from app.store.accounts import DEVICE_ID_PATTERN
from app.store.scope import parse_expiry, parse_scope
from app.store.web import WebSessionRow
from app.timeutil import FIRST_DAY, LAST_DAY, zone
from app.tools import dispatch
from app.tools.coverage import Uncovered, rules_snippet, user_rule_for
from app.tools.stats import StatsResult
from app.web.auth import (
    Form,
    PageError,
    SessionDep,
    check_form,
    check_origin,
    current_session,
    read_form,
    safe_next,
    services_of,
    set_session_cookie,
    sign_in,
    sign_out,
)
from app.web.i18n import LANGS
from app.web.pages import tool_context
from app.web.render import ASSETS, LANG_COOKIE, page
from app.web.timeline import device_names

router = APIRouter(include_in_schema=False)
PREVIEW_EPISODES = 50


@router.get("/static/{name}")
def asset(name: str) -> Response:
    """The stylesheet and the script: no data in them, so no session needed."""
    if name not in ASSETS:
        raise PageError(404, "not_found")
    body, media_type = ASSETS[name]
    return Response(body, media_type=media_type, headers={"Cache-Control": "max-age=86400"})


@router.get("/lang/{code}")
def switch_language(code: str, request: Request) -> RedirectResponse:
    response = RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
    if code in LANGS:
        response.set_cookie(
            LANG_COOKIE,
            code,
            max_age=365 * 86400,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
    return response


def _signin_page(request: Request, *, error: bool = False) -> HTMLResponse:
    return page(
        request,
        "signin.html",
        session=None,
        status=401 if error else 200,
        error=error,
        signed_out=request.query_params.get("out") == "1",
        next=safe_next(request.query_params.get("next")),
    )


@router.get("/signin", response_model=None)
def signin_form(request: Request) -> Response:
    if current_session(request) is not None:
        return RedirectResponse(safe_next(request.query_params.get("next")), status_code=303)
    return _signin_page(request)


@router.post("/signin", response_model=None)
async def signin(request: Request) -> Response:
    check_origin(request)
    form = await read_form(request)
    opened = await run_in_threadpool(sign_in, services_of(request), token=form.get("token", ""))
    if opened is None:
        return _signin_page(request, error=True)
    response = RedirectResponse(safe_next(form.get("next")), status_code=303)
    set_session_cookie(request, response, opened[0])
    return response


@router.post("/signout")
def signout(request: Request, session: SessionDep, form: Form) -> RedirectResponse:
    check_form(request, session, form)
    response = RedirectResponse("/signin?out=1", status_code=303)
    sign_out(request, response)
    return response


def _coverage(request: Request, session: WebSessionRow) -> dict[str, Any]:
    """query_stats metric=uncategorized over the chosen days (last week by default)."""
    chosen = {k: request.query_params.get(k, "") for k in ("cov_from", "cov_to")}
    period: dict[str, Any] = {"period": "last_week"}
    if all(chosen.values()):
        period = {"period": "custom", "date_from": chosen["cov_from"], "date_to": chosen["cov_to"]}
    result = dispatch(
        tool_context(request, session), "query_stats", {"metric": "uncategorized", **period}
    )
    items = result.items or [] if isinstance(result, StatsResult) else []
    return {
        "result": result,
        "snippet": rules_snippet([i for i in items if isinstance(i, Uncovered)]),
        # Each item's "Always count … as …" link to the Rules page (None: nothing to name).
        "user_rules": [user_rule_for(i) if isinstance(i, Uncovered) else None for i in items],
    }


def _privacy_page(request: Request, session: WebSessionRow, **context: Any) -> HTMLResponse:
    store = services_of(request).store
    return page(
        request,
        "privacy.html",
        session=session,
        nav="privacy",
        devices=store.list_devices(user_id=session.user_id),
        tokens=store.list_tokens(user_id=session.user_id),
        erased=request.query_params.get("erased"),
        coverage=_coverage(request, session),
        storage=user_storage(store, user_id=session.user_id, now=datetime.now(UTC)),
        size_text=size_text,
        **context,
    )


@router.get("/privacy")
def privacy(request: Request, session: SessionDep) -> HTMLResponse:
    return _privacy_page(request, session)


def _local(text: str, time_zone: str) -> datetime | None:
    """A datetime-local field (2026-06-02T10:30) in the user's zone, or an ISO instant,
    inside the days TimeTrace keeps."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if not FIRST_DAY <= moment.date() <= LAST_DAY:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=zone(time_zone))


def _range(
    session: WebSessionRow, fields: dict[str, str]
) -> tuple[datetime, datetime, str | None] | None:
    ts_from = _local(fields.get("from", ""), session.time_zone)
    ts_to = _local(fields.get("to", ""), session.time_zone)
    device = fields.get("device") or None
    if ts_from is None or ts_to is None or ts_to <= ts_from:
        return None
    if device is not None and not re.fullmatch(DEVICE_ID_PATTERN, device):
        return None  # a device id (no NUL, no spaces), as the form's choices are
    return ts_from, ts_to, device


@router.get("/privacy/delete")
def delete_preview(request: Request, session: SessionDep) -> HTMLResponse:
    """The confirm step: what the deletion would erase, before anything is erased."""
    chosen = _range(session, dict(request.query_params))
    if chosen is None:
        return _privacy_page(request, session, bad_range=True, status=422)
    ts_from, ts_to, device = chosen
    store = services_of(request).store
    counts = store.records_in_range(
        user_id=session.user_id, ts_from=ts_from, ts_to=ts_to, device_id=device
    )
    episodes = [
        e
        for e in store.list_episodes(
            user_id=session.user_id, ts_from=ts_from, ts_to=ts_to, category=None, limit=500
        )
        if device is None or e.device_id == device
    ]
    return page(
        request,
        "delete.html",
        session=session,
        nav="privacy",
        ts_from=ts_from,
        ts_to=ts_to,
        device=device or "",
        counts=counts,
        total=sum(c.records for c in counts),
        episodes=episodes[:PREVIEW_EPISODES],
        more_episodes=max(0, len(episodes) - PREVIEW_EPISODES),
        tz=zone(session.time_zone),
        names=device_names(store.list_devices(user_id=session.user_id)),
    )


@router.post("/privacy/delete")
def delete_range(request: Request, session: SessionDep, form: Form) -> RedirectResponse:
    """Erase the range, then rebuild its days at once so no page shows it again."""
    check_form(request, session, form)
    chosen = _range(session, form)
    if chosen is None:
        raise PageError(422, "bad_range")
    ts_from, ts_to, device = chosen
    erased = delete_records(
        services_of(request).store,
        user=session.user,
        device_id=device,
        ts_from=ts_from,
        ts_to=ts_to,
        rebuild_now=tool_context(request, session).rebuild,
    )
    return RedirectResponse(f"/privacy?erased={erased}", status_code=303)


@router.post("/privacy/tokens")
def create_token(request: Request, session: SessionDep, form: Form) -> HTMLResponse:
    """A new token, scoped or not (docs/scopes.md): its secret shown on the page once."""
    check_form(request, session, form)
    try:
        words = form.get("scope", "")
        scope = parse_scope(words) if words.strip() else None
        expires = form.get("expires", "").strip()
        expires_at = parse_expiry(expires, now=datetime.now(UTC)) if expires else None
    except InvalidInputError as exc:
        return _privacy_page(request, session, token_error=exc.message, status=422)
    secret = issue_token(
        services_of(request).store,
        user_id=session.user_id,
        name=form.get("name", "").replace("\x00", "")[:200],
        scope=scope,
        expires_at=expires_at,
    )
    return _privacy_page(request, session, new_token=secret)


@router.post("/privacy/tokens/{token_id}/revoke")
def revoke(token_id: str, request: Request, session: SessionDep, form: Form) -> RedirectResponse:
    check_form(request, session, form)
    if not token_id.isdigit() or not services_of(request).store.revoke_token(
        user_id=session.user_id, token_id=int(token_id)
    ):
        raise PageError(404, "not_found")
    return RedirectResponse("/privacy", status_code=303)
