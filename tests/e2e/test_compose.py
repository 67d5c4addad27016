"""docker-compose.yml read by Docker's own `docker compose config` where the tool
exists; where it does not (this project's CI machine has no Docker engine), by the
static reading of tests/unit/test_deploy.py (`compose_config`). The same facts hold
either way: no password, no start; one port variable everywhere."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any

import pytest

from tests.unit.test_deploy import ROOT, ComposeError, compose_config


def _docker_compose() -> bool:
    docker = shutil.which("docker")
    if docker is None:
        return False
    probe = subprocess.run(
        [docker, "compose", "version"], capture_output=True, text=True, timeout=30
    )
    return probe.returncode == 0


DOCKER = _docker_compose()


def config(env: dict[str, str]) -> dict[str, Any]:
    """The compose file as the compose tool reads it with `env`, or as the static reading
    does where there is no compose tool; ComposeError when it refuses."""
    if not DOCKER:
        return compose_config(env)
    clean = {
        k: v for k, v in os.environ.items() if k not in ("POSTGRES_PASSWORD", "TIMETRACE_PORT")
    }
    run = subprocess.run(
        ["docker", "compose", "-f", str(ROOT / "docker-compose.yml"), "config", "--format", "json"],
        env=clean | env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    if run.returncode != 0:
        raise ComposeError(run.stderr.strip())
    loaded: dict[str, Any] = json.loads(run.stdout)
    return loaded


def test_no_password_no_start_and_one_port_everywhere() -> None:
    with pytest.raises(ComposeError, match="POSTGRES_PASSWORD"):
        config({})
    services = config({"POSTGRES_PASSWORD": "pw", "TIMETRACE_PORT": "9123"})["services"]
    assert {"db", "api", "worker"} <= set(services)
    assert "8787" not in json.dumps(services)
    assert "9123" in json.dumps(services["api"]["ports"])
