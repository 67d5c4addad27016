"""The colours of the pages and reports, and the WCAG 2.x contrast rule they meet.

Text needs 4.5:1 against what it sits on (AA for normal text); a category's fill
needs 3:1 against the page (AA for non-text shapes), so a bar is seen without its
label. tests/unit/test_web_render.py checks every pair listed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.rules.categories import CATEGORIES, Category

TEXT_AA = 4.5
SHAPE_AA = 3.0


@dataclass(frozen=True, slots=True)
class Swatch:
    fill: str  # the category's blocks and bars
    text: str  # a label drawn on the fill


CATEGORY_SWATCHES: dict[Category, Swatch] = {
    "work": Swatch(fill="#1d5fa8", text="#ffffff"),
    "study": Swatch(fill="#7c3aed", text="#ffffff"),
    "social": Swatch(fill="#0f766e", text="#ffffff"),
    "entertainment": Swatch(fill="#c2410c", text="#ffffff"),
    "system": Swatch(fill="#7d8ba0", text="#0b1220"),
    "uncategorized": Swatch(fill="#57534e", text="#ffffff"),
}
assert set(CATEGORY_SWATCHES) == set(CATEGORIES)

# The page's own colours, as CSS custom properties (app.css uses only these).
THEME: dict[str, str] = {
    "bg": "#ffffff",
    "fg": "#1f2937",
    "muted": "#4b5563",
    "panel": "#f1f5f9",
    "line": "#64748b",
    "link": "#1d4ed8",
    "focus": "#b45309",
    "error": "#b91c1c",
    "ok": "#166534",
    "button": "#1d4ed8",
    "button-text": "#ffffff",
}

# The same roles for `prefers-color-scheme: dark`, held to the same contrast rule.
DARK_THEME: dict[str, str] = {
    "bg": "#0f172a",
    "fg": "#e5e7eb",
    "muted": "#a3adbb",
    "panel": "#1e293b",
    "line": "#64748b",
    "link": "#93c5fd",
    "focus": "#fbbf24",
    "error": "#fca5a5",
    "ok": "#86efac",
    "button": "#93c5fd",
    "button-text": "#0f172a",
}
assert DARK_THEME.keys() == THEME.keys()

DARK_SWATCHES: dict[Category, Swatch] = {
    "work": Swatch(fill="#60a5fa", text="#0b1220"),
    "study": Swatch(fill="#b79cf8", text="#0b1220"),
    "social": Swatch(fill="#2dd4bf", text="#0b1220"),
    "entertainment": Swatch(fill="#fb923c", text="#0b1220"),
    "system": Swatch(fill="#94a3b8", text="#0b1220"),
    "uncategorized": Swatch(fill="#a8a29e", text="#0b1220"),
}
assert set(DARK_SWATCHES) == set(CATEGORIES)

# Both schemes, for the tests and the stylesheet: (name, page colours, category swatches).
SCHEMES: tuple[tuple[str, dict[str, str], dict[Category, Swatch]], ...] = (
    ("light", THEME, CATEGORY_SWATCHES),
    ("dark", DARK_THEME, DARK_SWATCHES),
)

# Every (text, background) pair of THEME that the stylesheet draws.
THEME_TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    ("fg", "bg"),
    ("fg", "panel"),
    ("muted", "bg"),
    ("muted", "panel"),
    ("link", "bg"),
    ("link", "panel"),
    ("error", "bg"),
    ("error", "panel"),
    ("ok", "bg"),
    ("ok", "panel"),
    ("button-text", "button"),
)
# Shapes that must stand out from the page: focus rings, lines of the charts.
THEME_SHAPE_PAIRS: tuple[tuple[str, str], ...] = (("focus", "bg"), ("line", "bg"))


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def luminance(colour: str) -> float:
    """Relative luminance of a #rrggbb colour (WCAG 2.x)."""
    hex_digits = colour.removeprefix("#")
    if len(hex_digits) != 6:
        raise ValueError(f"expected #rrggbb, got {colour!r}")
    r, g, b = (int(hex_digits[i : i + 2], 16) for i in (0, 2, 4))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(first: str, second: str) -> float:
    """The WCAG contrast ratio of two colours, from 1 to 21."""
    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _declarations(theme: dict[str, str], swatches: dict[Category, Swatch]) -> str:
    lines = [f"--{name}: {value};" for name, value in theme.items()]
    for category, swatch in swatches.items():
        lines += [f"--cat-{category}: {swatch.fill};", f"--cat-{category}-text: {swatch.text};"]
    return "\n  ".join(lines)


def css_variables(*, dark: bool = True) -> str:
    """`:root { --fg: …; --cat-work: …; … }` for the stylesheet, and the dark scheme's
    values under `prefers-color-scheme: dark` (the report file keeps only light)."""
    css = ":root {\n  color-scheme: light" + (" dark" if dark else "") + ";\n  "
    css += _declarations(THEME, CATEGORY_SWATCHES) + "\n}\n"
    if dark:
        css += (
            "@media (prefers-color-scheme: dark) {\n:root {\n  "
            + _declarations(DARK_THEME, DARK_SWATCHES)
            + "\n}\n}\n"
        )
    return css
