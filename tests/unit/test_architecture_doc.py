"""docs/architecture.md's module map names every module of app/ and nothing else: a
new, moved or deleted module fails here until the map says so."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
SECTION = "## Module map"
ROW = re.compile(r"^\| `(app/[^`]*)` \|")


def documented(text: str) -> list[str]:
    """The first column of the module map's rows: `app/x.py` or a package `app/x/`."""
    body = text.split(f"\n{SECTION}\n", 1)[1].split("\n## ", 1)[0]
    return [m.group(1) for line in body.splitlines() if (m := ROW.match(line))]


def modules(app: Path) -> set[str]:
    """Every package of app/ (as `app/x/`) and every other module (as `app/x/y.py`)."""
    found = set()
    for path in app.rglob("*.py"):
        name = path.relative_to(app.parent).as_posix()
        found.add(name.removesuffix("__init__.py") if path.name == "__init__.py" else name)
    return found


def mismatch(named: list[str], tree: set[str]) -> list[str]:
    twice = sorted({n for n in named if named.count(n) > 1})
    return (
        [f"named twice in {SECTION}: {n}" for n in twice]
        + [f"in {SECTION} but not in app/: {n}" for n in sorted(set(named) - tree)]
        + [f"in app/ but not in {SECTION}: {n}" for n in sorted(tree - set(named))]
    )


def test_the_module_map_names_every_module_of_app_and_nothing_else() -> None:
    problems = mismatch(documented(DOC.read_text(encoding="utf-8")), modules(ROOT / "app"))
    assert problems == [], "docs/architecture.md is out of date:\n" + "\n".join(problems)


def test_the_check_names_what_is_missing_and_what_is_extra(tmp_path: Path) -> None:
    app = tmp_path / "app"
    (app / "store").mkdir(parents=True)
    for name in ("__init__.py", "cli.py", "store/__init__.py", "store/rows.py"):
        (app / name).write_text("", encoding="utf-8")
    doc = (
        "# x\n\n## Module map\n\n| module | what |\n|---|---|\n"
        "| `app/` | p |\n| `app/cli.py` | c |\n| `app/cli.py` | c |\n"
        "| `app/store.py` | gone |\n| `app/store/` | s |\n\n"
        "## Later\n\n| `app/rows.py` | not in the map |\n"
    )
    assert mismatch(documented(doc), modules(app)) == [
        "named twice in ## Module map: app/cli.py",
        "in ## Module map but not in app/: app/store.py",
        "in app/ but not in ## Module map: app/store/rows.py",
    ]
