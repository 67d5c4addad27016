"""TimeTrace installs as a package: declared dependencies match what the code
imports, the pins cover them, the Docker image installs the wheel without test
tools, and a wheel installed into a fresh virtualenv migrates and runs the demo
from outside the repository."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from collections.abc import Iterable
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
FIRST_PARTY = {"app", "tests", "bench"}
# Declared but never imported, each with the reason it is needed.
RUNTIME_UNIMPORTED = {"tzdata": "zoneinfo's data where the OS has none"}
TEST_UNIMPORTED = {
    "mypy": "make typecheck",
    "pytest-xdist": "a pytest plugin: make test runs the suite with -n",
    "ruff": "make lint",
    "schemathesis": "tests/test_api_fuzz.py runs it as a program",
    "setuptools": "builds the wheel below without network",
}
TEST_TOOLS = {"pytest", "hypothesis", "testcontainers", "ruff", "mypy"}


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert match, requirement
    return _normal(match.group(0))


def _normal(distribution: str) -> str:
    return re.sub(r"[-_.]+", "-", distribution).lower()


def _declared(requirements: Iterable[str]) -> set[str]:
    return {_name(r) for r in requirements}


def _imported_distributions(*folders: str) -> dict[str, set[str]]:
    """Third-party distribution -> the files importing it, from every import statement."""
    by_module = packages_distributions()
    found: dict[str, set[str]] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    modules = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    modules = [node.module]
                else:
                    continue
                for module in modules:
                    top = module.partition(".")[0]
                    if top in sys.stdlib_module_names or top in FIRST_PARTY:
                        continue
                    where = str(path.relative_to(ROOT))
                    assert top in by_module, f"{where} imports {top}, which is not installed"
                    for distribution in by_module[top]:
                        found.setdefault(_normal(distribution), set()).add(where)
    return found


def _pins(lock: str) -> set[str]:
    lines = (ROOT / lock).read_text(encoding="utf-8").splitlines()
    return {_name(line) for line in lines if line and not line.startswith(("#", "-r"))}


def test_runtime_dependencies_are_exactly_what_app_imports() -> None:
    declared = _declared(PYPROJECT["project"]["dependencies"])
    imported = _imported_distributions("app")
    undeclared = {d: sorted(files) for d, files in imported.items() if d not in declared}
    assert not undeclared, f"imported by app/ but not in [project] dependencies: {undeclared}"
    unused = declared - imported.keys() - RUNTIME_UNIMPORTED.keys()
    assert not unused, f"declared in [project] dependencies but never imported: {unused}"


def test_test_extra_is_exactly_what_tests_and_bench_import_beyond_runtime() -> None:
    runtime = _declared(PYPROJECT["project"]["dependencies"])
    test = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert not runtime & test, "declared both for runtime and in the test extra"
    imported = _imported_distributions("tests", "bench")
    undeclared = {
        d: sorted(files) for d, files in imported.items() if d not in runtime and d not in test
    }
    assert not undeclared, f"imported by tests/ or bench/ but not declared: {undeclared}"
    unused = test - imported.keys() - TEST_UNIMPORTED.keys()
    assert not unused, f"in the test extra but never imported: {unused}"


def test_locks_pin_every_declared_dependency_and_keep_test_tools_apart() -> None:
    runtime_pins = _pins("requirements.lock")
    test_pins = _pins("requirements-test.lock")
    runtime = _declared(PYPROJECT["project"]["dependencies"])
    test = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert runtime <= runtime_pins, runtime - runtime_pins
    # The test lock installs the runtime lock too (-r), so a test-only import of a
    # package the runtime already pins (httpx2, under the MCP client) is pinned there.
    assert test <= test_pins | runtime_pins, test - test_pins - runtime_pins
    assert not TEST_TOOLS & runtime_pins
    assert not runtime_pins & test_pins, "a package is pinned in both locks"
    test_lock = (ROOT / "requirements-test.lock").read_text(encoding="utf-8")
    assert "-r requirements.lock" in test_lock.splitlines()


def _dockerfile_stages() -> list[str]:
    """Each stage's instructions on one line: comments dropped, continuations joined."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    stages = re.split(r"^FROM\s", joined, flags=re.MULTILINE | re.IGNORECASE)
    return [" ".join(stage.split()) for stage in stages[1:]]


def test_dockerfile_installs_the_wheel_with_runtime_pins_only() -> None:
    stages = _dockerfile_stages()
    assert len(stages) >= 2, "expected a build stage and a final stage"
    build, final = stages[0], stages[-1]
    assert re.search(r"pip wheel .*--no-deps", build), build
    assert "COPY --from=" in final
    assert re.search(r"pip install [^&]*--no-deps [^&]*\.whl", final), final
    assert re.search(r"pip install [^&]*-r \S*requirements\.lock", final), final
    assert not re.search(r"pip install [^&]*(-e|--editable)\s", final), final
    for forbidden in ("requirements-test.lock", "[test]", *sorted(TEST_TOOLS)):
        assert forbidden not in " ".join(stages), f"the image installs {forbidden}"


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
