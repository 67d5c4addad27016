"""The deployment files, parsed (no Docker engine needed): compose runs the database,
the API and the worker, each with a health check of its own, and every TIMETRACE_*
setting reaches both TimeTrace containers. One port variable everywhere, a required
password, a volume for the rules file, the time zone asked for before the first user,
and an image without the embedded PostgreSQL. tests/e2e/test_compose.py runs
`docker compose config` where the tool exists, and `compose_config` below otherwise."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.cli import main
from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_TEXT = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
COMPOSE: dict[str, Any] = yaml.safe_load(COMPOSE_TEXT)
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
        assert SERVICES[name]["build"]["context"] == "."


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
        # Only the database URL (from POSTGRES_PASSWORD) and the one port are set here;
        # nothing else shadows what timetrace.env says.
        assert set(service["environment"]) == {"TIMETRACE_DATABASE_URL", "TIMETRACE_PORT"}
        assert "${POSTGRES_PASSWORD" in service["environment"]["TIMETRACE_DATABASE_URL"]
    listed = set(re.findall(r"^# (TIMETRACE_[A-Z_]+)=", ENV_EXAMPLE, flags=re.MULTILINE))
    settings = {f"TIMETRACE_{field.upper()}" for field in Settings.model_fields}
    assert listed == settings


def test_the_environment_file_stays_out_of_git_and_the_image() -> None:
    for ignore in (".gitignore", ".dockerignore"):
        lines = (ROOT / ignore).read_text(encoding="utf-8").splitlines()
        assert "timetrace.env" in lines, ignore


_VARIABLE = re.compile(r"\$\{(\w+)(?::([-?])([^}]*))?\}")


class ComposeError(Exception):
    """What compose says when a required variable is unset."""


def compose_config(env: dict[str, str]) -> dict[str, Any]:
    """docker-compose.yml as compose reads it with `env`: `${X}`, `${X:-default}` and
    `${X:?message}` replaced (comments are not read), then parsed."""

    def value(match: re.Match[str]) -> str:
        name, kind, rest = match.groups()
        if env.get(name):
            return env[name]
        if kind == "?":
            raise ComposeError(f"required variable {name} is missing a value: {rest}")
        return rest if kind == "-" else ""

    lines = [line for line in COMPOSE_TEXT.splitlines() if not line.lstrip().startswith("#")]
    loaded: dict[str, Any] = yaml.safe_load(_VARIABLE.sub(value, "\n".join(lines)))
    return loaded


def test_compose_refuses_to_start_without_a_database_password() -> None:
    with pytest.raises(ComposeError, match=r"set POSTGRES_PASSWORD in \.env"):
        compose_config({})
    config = compose_config({"POSTGRES_PASSWORD": "s3cret"})
    assert config["services"]["db"]["environment"]["POSTGRES_PASSWORD"] == "s3cret"
    for name in ("api", "worker"):
        url = config["services"][name]["environment"]["TIMETRACE_DATABASE_URL"]
        assert url == "postgresql://timetrace:s3cret@db:5432/timetrace"


@pytest.mark.parametrize("port", ["8787", "9123"])
def test_one_port_variable_is_published_listened_on_and_checked(port: str) -> None:
    env = {"POSTGRES_PASSWORD": "pw"} | ({"TIMETRACE_PORT": port} if port != "8787" else {})
    services = compose_config(env)["services"]
    api = services["api"]
    assert api["ports"] == [f"127.0.0.1:{port}:{port}"]
    assert f"http://127.0.0.1:{port}/healthz" in " ".join(api["healthcheck"]["test"])
    for name in ("api", "worker"):
        assert str(services[name]["environment"]["TIMETRACE_PORT"]) == port
        assert str(services[name]["build"]["args"]["TIMETRACE_PORT"]) == port
    if port != "8787":
        assert "8787" not in str(services)
    # No port written out anywhere else, comments aside.
    code = "\n".join(line.split("#")[0] for line in COMPOSE_TEXT.splitlines())
    assert code.count("8787") == code.count("${TIMETRACE_PORT:-8787}")


def test_the_image_takes_its_port_from_the_one_variable() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    assert "ARG TIMETRACE_PORT=8787" in text and "TIMETRACE_PORT=${TIMETRACE_PORT}" in text
    assert "EXPOSE ${TIMETRACE_PORT}" in text
    (check,) = [line for line in text.splitlines() if line.startswith("HEALTHCHECK")]
    assert "8787" not in check and "os.environ['TIMETRACE_PORT']" in check


def test_the_rules_file_has_a_volume_that_its_setting_points_into() -> None:
    for name in ("api", "worker"):
        targets = [volume.split(":")[1] for volume in SERVICES[name]["volumes"]]
        assert "/home/timetrace/rules" in targets
    (line,) = [x for x in ENV_EXAMPLE.splitlines() if x.startswith("# TIMETRACE_RULES_FILE=")]
    assert line.split("=", 1)[1].startswith("/home/timetrace/rules/")


def test_the_time_zone_is_asked_for_before_the_first_user_is_made() -> None:
    settings = re.findall(r"^# (TIMETRACE_[A-Z_]+)=", ENV_EXAMPLE, flags=re.MULTILINE)
    assert settings[0] == "TIMETRACE_TIME_ZONE"
    steps = [line for line in COMPOSE_TEXT.splitlines() if line.startswith("#   ")]
    zone = next(i for i, line in enumerate(steps) if "TIMETRACE_TIME_ZONE" in line)
    token = next(i for i, line in enumerate(steps) if "token create" in line)
    assert zone < token
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    assert install.index("TIMETRACE_TIME_ZONE") < install.index("token create")
