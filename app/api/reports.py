"""Reports: a day, week or month from its digests and signals, as JSON, Markdown or
one self-contained HTML file (inline SVG chart)."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse

from app.api.deps import ServicesDep, UserDep
from app.api.errors import AUTHED, errors
from app.tools.registry import to_json
from app.web.i18n import Lang, Translator
from app.web.render import REPORT_HEADERS, lang_of
from app.web.report import build_report, render_html, render_markdown

router = APIRouter(prefix="/api/v1/reports", tags=["reports"], responses=AUTHED)


@router.get("/{grain}/{scope}", responses=errors(422))
def get_report(
    grain: Literal["day", "week", "month"],
    scope: str,
    request: Request,
    services: ServicesDep,
    user: UserDep,
    format: Literal["json", "md", "html"] = "json",
    lang: Lang | None = None,
) -> Response:
    """A period (`day/2026-06-02`, `week/2026-W23`, `month/2026-06`) from its digests
    and signals, never raw frames. `lang` (en, zh) defaults to the Accept-Language."""
    t = Translator(lang or lang_of(request))
    report = build_report(
        services.tool_context(user=user, now=datetime.now(UTC)),
        grain=grain,
        key=scope,
        language=t.lang,
    )
    if format == "md":
        return PlainTextResponse(render_markdown(report, t=t), media_type="text/markdown")
    if format == "html":
        return HTMLResponse(render_html(report, t=t), headers=REPORT_HEADERS)
    return JSONResponse(json.loads(to_json(dataclasses.asdict(report))))
