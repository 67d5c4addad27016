"""aw-webui, ActivityWatch's own web UI, served by the door from a build folder, next to
the API on the door's own origin: the UI's requests are same-origin, so no CORS answer
is needed and the loopback, Host and Origin rules stay as they are.

    routes.append(webui_mount(webui_folder(Path("aw-webui/dist"))))

A build is a folder with `index.html` and its bundles: ActivityWatch's release has one
(the folder of its server that holds `index.html`); `npm run build` in aw-webui makes
one in `dist/`.
"""

from __future__ import annotations

from pathlib import Path

from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from app.errors import ConfigError


def webui_folder(folder: Path) -> Path:
    """The build folder, checked: ConfigError unless it holds an `index.html`."""
    folder = folder.expanduser().resolve()
    if not (folder / "index.html").is_file():
        raise ConfigError(f"{folder} is not an aw-webui build: it has no index.html")
    return folder


def webui_mount(folder: Path) -> Mount:
    """The build's files from `/` (index.html there), after the API's routes."""
    return Mount("/", app=StaticFiles(directory=folder, html=True), name="aw-webui")
