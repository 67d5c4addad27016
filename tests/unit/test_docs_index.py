"""docs/index.md links every page of docs/, and every relative link of the README and
the docs pages leads to a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")


def links(page: Path) -> list[str]:
    """The relative targets of a page's Markdown links, anchors cut off."""
    found = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "#", "mailto:")):
            continue
        found.append(target.split("#", 1)[0])
    return found


def test_the_index_links_every_page_of_docs() -> None:
    linked = {(DOCS / target).resolve() for target in links(DOCS / "index.md")}
    pages = {page.resolve() for page in DOCS.glob("*.md")} - {(DOCS / "index.md").resolve()}
    missing = sorted(p.name for p in pages - linked)
    assert not missing, f"docs/index.md does not link: {missing}"


def test_every_relative_link_leads_to_a_file() -> None:
    broken = [
        f"{page.relative_to(ROOT)} -> {target}"
        for page in [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
        for target in links(page)
        if target and not (page.parent / target).exists()
    ]
    assert not broken, broken


def test_the_readme_links_the_index() -> None:
    assert "docs/index.md" in links(ROOT / "README.md")
