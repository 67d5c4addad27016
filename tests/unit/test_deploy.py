"""The deployment files, parsed (no Docker engine needed): compose runs the database,
the API and the worker, each with a health check of its own, and every TIMETRACE_*
setting reaches both TimeTrace containers."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from app.cli import main
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
ENV_EXAMPLE = (ROOT / "timetrace.env.example").read_text(encoding="utf-8")
SERVICES = COMPOSE["services"]


def _command(test: list[str]) -> list[str]:
    assert test[0] in ("CMD", "CMD-SHELL"), test
    return test[1:]


def test_compose_runs_the_database_the_api_and_the_worker() -> None:
    assert set(SERVICES) == {"db", "api", "worker"}
    assert SERVICES["db"]["image"].startswith("pgvector/pgvector:")
    assert SERVICES["api"]["command"] == ["timetrace", "serve"]
    assert SERVICES["worker"]["command"][:2] == ["timetrace", "worker"]
    for name in ("api", "worker"):
        assert SERVICES[name]["depends_on"] == {"db": {"condition": "service_healthy"}}
        assert SERVICES[name]["build"] == "."


def test_each_service_has_a_health_check_of_its_own() -> None:
    checks = {name: _command(service["healthcheck"]["test"]) for name, service in SERVICES.items()}
    assert "pg_isready" in checks["db"][0]
    # urlopen raises on /healthz's 503 (degraded), so the check fails then.
    assert "urlopen" in " ".join(checks["api"]) and "/healthz" in " ".join(checks["api"])
    # The worker listens on no port: `timetrace status` runs /healthz's check and exits 1
    # when degraded.
    worker = checks["worker"]
    assert worker[:2] == ["timetrace", "status"] and "8787" not in " ".join(worker)
    command = main.commands["status"]
    options = {opt for param in command.params for opt in getattr(param, "opts", [])}
    assert set(worker[2:]) <= options


def test_every_timetrace_setting_reaches_both_containers() -> None:
    for name in ("api", "worker"):
        service = SERVICES[name]
        assert service["env_file"] == [{"path": "timetrace.env", "required": False}]
        # Only the database URL is set here (from POSTGRES_PASSWORD); nothing else
        # shadows what timetrace.env says.
        assert set(service["environment"]) == {"TIMETRACE_DATABASE_URL"}
        assert "${POSTGRES_PASSWORD" in service["environment"]["TIMETRACE_DATABASE_URL"]
    listed = set(re.findall(r"^# (TIMETRACE_[A-Z_]+)=", ENV_EXAMPLE, flags=re.MULTILINE))
    settings = {f"TIMETRACE_{field.upper()}" for field in Settings.model_fields}
    assert listed == settings


def test_the_environment_file_stays_out_of_git_and_the_image() -> None:
    for ignore in (".gitignore", ".dockerignore"):
        lines = (ROOT / ignore).read_text(encoding="utf-8").splitlines()
        assert "timetrace.env" in lines, ignore
