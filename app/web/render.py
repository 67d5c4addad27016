"""Templates (Jinja2, autoescaped), the two static assets, and the headers every page
carries: nothing is fetched from another origin, no inline script runs."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from app.rules.categories import CATEGORIES
from app.store.web import WebSessionRow
from app.web.i18n import Lang, Translator, negotiate
from app.web.palette import CATEGORY_SWATCHES, css_variables

HERE = Path(__file__).parent
LANG_COOKIE = "tt_lang"

_env = Environment(
    loader=FileSystemLoader(HERE / "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f}"


_env.filters["hours"] = _hours
_env.globals["CATEGORIES"] = CATEGORIES
_env.globals["SWATCHES"] = CATEGORY_SWATCHES

CHART_CSS = (HERE / "static" / "charts.css").read_text(encoding="utf-8")
ASSETS: dict[str, tuple[bytes, str]] = {
    "app.css": (
        "\n".join(
            (css_variables(), CHART_CSS, (HERE / "static" / "app.css").read_text(encoding="utf-8"))
        ).encode(),
        "text/css; charset=utf-8",
    ),
    "app.js": ((HERE / "static" / "app.js").read_bytes(), "text/javascript; charset=utf-8"),
    "favicon.svg": ((HERE / "static" / "favicon.svg").read_bytes(), "image/svg+xml"),
}
ASSET_VERSION = hashlib.sha256(b"".join(body for body, _ in ASSETS.values())).hexdigest()[:12]
_env.globals["ASSET_VERSION"] = ASSET_VERSION

PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
# The report is one file to keep or mail: its styles are inline, and it runs nothing.
REPORT_HEADERS = {
    **PAGE_HEADERS,
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
}


def lang_of(request: Request) -> Lang:
    return negotiate(
        cookie=request.cookies.get(LANG_COOKIE),
        accept_language=request.headers.get("accept-language"),
    )


def render(template: str, **context: Any) -> str:
    return _env.get_template(template).render(**context)


def page(
    request: Request,
    template: str,
    *,
    session: WebSessionRow | None,
    nav: str = "",
    status: int = 200,
    **context: Any,
) -> HTMLResponse:
    """A full page in the browser's language (its template names it), with the
    session's CSRF token for forms."""
    lang = lang_of(request)
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    html = render(
        template,
        t=Translator(lang),
        lang=lang,
        session=session,
        csrf=session.csrf_token if session else "",
        nav=nav,
        here=here,
        generated=datetime.now(UTC),
        **context,
    )
    return HTMLResponse(html, status_code=status, headers=PAGE_HEADERS)
