"""The OpenAPI docs in a browser: offline, and without putting the token in a page.

Open `/docs?token=…` once: the token is checked, kept in an HttpOnly,
SameSite=Strict cookie scoped to /docs, and the browser is sent on to `/docs`,
so the token leaves the address bar and the history. The page, its start-up
script and Swagger UI itself (shipped inside the fastapi-offline package) come
from this server; no CDN, no inline script (a Content-Security-Policy forbids
both). To call routes from the page, paste the token into "Authorize".
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import fastapi_offline
from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response

from app.api.deps import DOCS_COOKIE, DocsTokenDep, DocsUserDep, ServicesDep
from app.runtime.auth import user_for_token

_SWAGGER = Path(fastapi_offline.__file__).parent / "static"
_ASSETS: dict[str, tuple[Path, str]] = {
    "swagger-ui-bundle.js": (_SWAGGER / "swagger-ui-bundle.js", "text/javascript"),
    "swagger-ui.css": (_SWAGGER / "swagger-ui.css", "text/css"),
    "favicon.png": (_SWAGGER / "favicon.png", "image/png"),
}
_START = (
    'window.ui = SwaggerUIBundle({url: "/docs/openapi.json", dom_id: "#swagger-ui", '
    "deepLinking: true, persistAuthorization: false});\n"
)
_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>TimeTrace API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon.png">
</head><body><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/start.js"></script>
</body></html>
"""
# Every answer under /docs: not stored, not sent on as a referrer, not framed, and no
# script but this server's own files.
PRIVATE = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'",
}

router = APIRouter(prefix="/docs", include_in_schema=False)


@router.get("")
def docs_page(
    request: Request,
    services: ServicesDep,
    given: DocsTokenDep,
    token: Annotated[str | None, Query()] = None,
) -> Response:
    """The Swagger UI page. With ?token= it sets the session cookie and redirects."""
    if token is None:
        user_for_token(services.store, token=given)
        return Response(_PAGE, media_type="text/html; charset=utf-8", headers=PRIVATE)
    user_for_token(services.store, token=token)
    redirect = RedirectResponse("/docs", status_code=303, headers=PRIVATE)
    redirect.set_cookie(
        DOCS_COOKIE,
        token,
        path="/docs",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return redirect


@router.get("/openapi.json")
def docs_openapi(_: DocsUserDep, request: Request) -> JSONResponse:
    app: FastAPI = request.app
    return JSONResponse(app.openapi(), headers=PRIVATE)


@router.get("/assets/{name}")
def docs_asset(_: DocsUserDep, name: str) -> Response:
    if name == "start.js":
        return Response(_START, media_type="text/javascript", headers=PRIVATE)
    found = _ASSETS.get(name)
    if found is None:
        return JSONResponse({"error": f"no asset {name!r}"}, status_code=404, headers=PRIVATE)
    path, media_type = found
    return FileResponse(path, media_type=media_type, headers=PRIVATE)
