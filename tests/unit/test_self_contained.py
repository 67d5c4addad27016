"""The repository documents itself: nothing in it points at files outside it (the design
drafts it grew from) or at a path of the machine it was written on."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"DESIGN\.md|CONVENTIONS\.md|FACTS\.md|\.\./shared|shared/seeds|/work/")


def tracked_text_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / n for n in names if not n.endswith((".png", ".ico", ".woff2", ".js.map"))]


def test_no_file_cites_what_lies_outside_the_repository() -> None:
    hits = []
    for path in tracked_text_files():
        if path == Path(__file__).resolve() or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="ignore")
        hits += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert hits == []
