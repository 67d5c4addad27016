"""`--webui DIR`: a folder that is no aw-webui build is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.awdoor.webui import webui_folder
from app.errors import ConfigError


def test_a_folder_without_index_html_is_no_build(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"no index\.html"):
        webui_folder(tmp_path)
    (tmp_path / "index.html").write_text("<!doctype html>", encoding="utf-8")
    assert webui_folder(tmp_path) == tmp_path.resolve()
