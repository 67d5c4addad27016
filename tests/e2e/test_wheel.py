"""A wheel built from the sources installs into a fresh virtualenv and, from outside the
repository, migrates and runs the demo on its own embedded server."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _copy_sources(destination: Path) -> None:
    # Built from a copy: an in-place build leaves build/ and *.egg-info in the checkout.
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, destination / name)
    for name in ("app", "sql"):
        shutil.copytree(ROOT / name, destination / name, ignore=ignore)


def _run(command: list[str | Path], *, cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, (
        f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv_and_runs_outside_the_repo(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TIMETRACE_", "PYTHON"))}
    source, dist, outside = tmp_path / "source", tmp_path / "dist", tmp_path / "outside"
    for folder in (source, outside):
        folder.mkdir()
    _copy_sources(source)
    # No build isolation and no index: the build must work offline.
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    _run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", dist, source],
        cwd=outside,
        env=env,
    )
    (wheel,) = dist.glob("timetrace-*.whl")

    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "app").rglob("*.py")}
    assert modules <= names, sorted(modules - names)
    migrations = {f"app/sql/migrations/{p.name}" for p in (ROOT / "sql/migrations").glob("*.sql")}
    assert len(migrations) >= 5 and migrations <= names, sorted(migrations - names)
    queries = {f"app/sql/queries/{p.name}" for p in (ROOT / "sql/queries").glob("*.sql")}
    assert len(queries) >= 5 and queries <= names, sorted(queries - names)
    assert "app/rules/default.toml" in names
    pages = {
        p.relative_to(ROOT).as_posix()
        for folder in ("templates", "static")
        for p in (ROOT / "app/web" / folder).iterdir()
    }
    assert pages and pages <= names, sorted(pages - names)  # templates and static files

    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    _run(
        [*pip, "--python", python, "install", "--no-deps", "--no-index", wheel],
        cwd=outside,
        env=env,
    )
    # The dependencies come from this interpreter's environment: a path listed in a .pth
    # is added as is, so this environment's editable `app` (a .pth hook there) stays out.
    site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            cwd=outside,
            env=env,
        ).strip()
    )
    here = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "timetrace-deps.pth").write_text("".join(f"{p}\n" for p in sorted(here)))

    where = _run([python, "-c", "import app; print(app.__file__)"], cwd=outside, env=env)
    assert Path(where.strip()).resolve().is_relative_to(target.resolve()), where

    env["TIMETRACE_DATA_DIR"] = str(tmp_path / "data")
    timetrace = target / "bin" / "timetrace"
    try:
        migrated = _run([timetrace, "migrate"], cwd=outside, env=env)
        applied = " ".join(migrated.split())
        assert all(p.stem in applied for p in (ROOT / "sql/migrations").glob("*.sql")), applied
        shown = _run([timetrace, "demo", "--days", "2"], cwd=outside, env=env)
        assert "Built the pyramid with no model" in " ".join(shown.split()), shown
    finally:
        if (tmp_path / "data" / "pgdata" / "postmaster.pid").exists():
            from app.db.embedded import start_embedded

            start_embedded(pgdata=tmp_path / "data" / "pgdata").cleanup()
