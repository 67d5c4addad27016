"""The web pages, served by the API's own FastAPI app at `/`: sign-in, the day
timeline, weeks and months, search, Ask (the agent), privacy, and reports.

    mount(app)   # in app.api.create_app; the pages find the services in app.state

Server-rendered Jinja2 templates, one small script and one stylesheet served from
the package, SVG drawn on the server; nothing is fetched from another origin.
"""

from __future__ import annotations

from urllib.parse import quote

from fastapi import FastAPI, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.web import account, ask, pages, rules
from app.web.auth import PageError, SignInRequired, current_session
from app.web.i18n import Translator
from app.web.render import lang_of, page


def _error_page(request: Request, exc: PageError) -> HTMLResponse:
    return page(
        request,
        "error.html",
        session=current_session(request) if exc.status != 401 else None,
        status=exc.status,
        message=Translator(lang_of(request))(exc.message_key),
        detail=exc.detail,
    )


async def _on_sign_in_required(request: Request, _: Exception) -> Response:
    """A page asks the browser to sign in and come back; a write without a session is 401."""
    if request.method == "GET":
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/signin?next={quote(target, safe='/')}", status_code=303)
    return _error_page(request, PageError(401, "signin_required"))


async def _on_page_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, PageError)
    return await run_in_threadpool(_error_page, request, exc)


def mount(app: FastAPI) -> None:
    """Add the pages to an app whose `state.services` is set."""
    app.add_exception_handler(SignInRequired, _on_sign_in_required)
    app.add_exception_handler(PageError, _on_page_error)
    app.include_router(account.router)
    app.include_router(pages.router)
    app.include_router(ask.router)
    app.include_router(rules.router)
