"""How each sample device names what it shows, in the formats real capture tools
emit: the laptop is a Mac (app names, URLs from the browser), the desktop a Windows
PC recorded by ActivityWatch (executables, browser suffixes in titles, and a Firefox
without the URL extension), the phone an Android phone (package names). Raw names
come from the real-format corpus (`app/demo/corpus.tsv`), so the demo and the
benchmarks see what the rules see on real machines.

    render_record("desktop", app="Google Chrome", title="lofi - YouTube", url="https://…",
                  incognito=False, n=3)
    # ("firefox.exe", "lofi - YouTube — Mozilla Firefox", None, False)

Only names change: the category of every record stays what the plan says, which
`tests/unit/test_sample.py` checks against the rules.
"""

from __future__ import annotations

from functools import cache

from app.demo.corpus import Platform, load_corpus
from app.rules.apps import AppIdentities, load_app_identities

DEVICE_PLATFORM: dict[str, Platform] = {"laptop": "macos", "desktop": "windows", "phone": "android"}
# Windows window titles end with the browser's name; a private Firefox window says so
# in the title only (ActivityWatch on Windows sends no incognito flag).
_WINDOWS_BROWSERS = {
    "Google Chrome": ("chrome.exe", " - Google Chrome", " - Google Chrome (Incognito)"),
    "Firefox": ("firefox.exe", " — Mozilla Firefox", " — Mozilla Firefox Private Browsing"),
}
# Every third browser page on the desktop is in a Firefox without the URL extension.
FIREFOX_EVERY = 3


@cache
def _apps() -> AppIdentities:
    return load_app_identities(user_data=None)


@cache
def _canonical(app: str) -> str:
    # A year of sample records names a few dozen apps: look each up once.
    return _apps().canonical(app)


@cache
def _raw_names() -> dict[tuple[str, Platform], str]:
    """(canonical app, platform) -> the first raw name the corpus shows for it there."""
    names: dict[tuple[str, Platform], str] = {}
    for entry in load_corpus():
        names.setdefault((_canonical(entry.app), entry.platform), entry.app)
    return names


def real_app(device: str, app: str) -> str:
    """The name `device`'s capture tool reports for `app` (unchanged when unknown)."""
    platform = DEVICE_PLATFORM.get(device)
    if platform is None:
        return app
    return _raw_names().get((_canonical(app), platform), app)


def render_record(
    device: str, *, app: str, title: str, url: str | None, incognito: bool, n: int
) -> tuple[str, str, str | None, bool]:
    """(app, title, url, incognito) as `device` would report this record (`n`: its number)."""
    canonical = _canonical(app)
    if DEVICE_PLATFORM.get(device) == "windows" and canonical in _WINDOWS_BROWSERS:
        browser = "Firefox" if n % FIREFOX_EVERY == 0 else canonical
        exe, suffix, private_suffix = _WINDOWS_BROWSERS[browser]
        if browser == "Firefox":
            url, incognito_sent = None, False  # no extension: no URL, no flag
        else:
            incognito_sent = incognito
        return exe, title + (private_suffix if incognito else suffix), url, incognito_sent
    return real_app(device, app), title, url, incognito
