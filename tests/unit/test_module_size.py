"""No module of app/ is over 600 lines: past that a module holds more than one job
(the house rule; the importer and the door were split by concern to meet it)."""

from __future__ import annotations

from pathlib import Path

import app

LONGEST = 600


def test_no_module_of_app_is_over_six_hundred_lines() -> None:
    root = Path(app.__file__).parent
    sizes = {
        str(path.relative_to(root.parent)): len(path.read_text(encoding="utf-8").splitlines())
        for path in root.rglob("*.py")
    }
    assert len(sizes) > 150  # the walk found the package
    too_long = {name: n for name, n in sizes.items() if n > LONGEST}
    assert not too_long, too_long
