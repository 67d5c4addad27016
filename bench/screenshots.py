"""Screenshots of every page at 1280 and 390 px wide, light and dark, for a reviewer.

    python bench/screenshots.py [--out build/screenshots] [--lang en]

Loads the sample month (March 2003, the tests' sample) through the real ingest code,
builds the pyramid, starts `timetrace serve` in its own process, signs in with Debian's
Chromium (driven by Playwright) and writes one full-page PNG per page, width and colour
scheme: OUT/<page>-<width>-<scheme>.png. Ends with one JSON line:
{"screenshots": N, "out": "…"}.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import quote

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playwright.sync_api import sync_playwright

from app.demo.sample import generate_sample
from app.pyramid.build import backfill
from app.runtime.auth import hash_token, new_token
from app.runtime.services import open_services
from bench._common import api_process, bench_database, load_sample

DAY = date(2003, 3, 5)
WIDTHS = (1280, 390)
SCHEMES: tuple[Literal["light", "dark"], ...] = ("light", "dark")
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--no-first-run"]


def pages(episode_id: int) -> dict[str, str]:
    return {
        "signin": "/signin",
        "day": f"/day/{DAY}",
        "day-zoomed": f"/day/{DAY}?from=10:00&to=10:30",
        "drawer": f"/day/{DAY}?episode={episode_id}#panel",
        "empty-day": "/day/2003-02-01",
        "week": "/week/2003-W10",
        "month": "/month/2003-03",
        "range": "/range/2003-03-03..2003-03-12",
        "app": f"/app?name={quote('Visual Studio Code')}&from=2003-03-01&to=2003-03-31",
        "signals": "/signals?from=2003-03-01&to=2003-03-31",
        "search": "/search?q=" + quote("哔哩哔哩"),
        "ask": "/ask",
        "privacy": "/privacy",
        "rules": "/rules",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("build/screenshots"))
    parser.add_argument("--lang", choices=("en", "zh"), default="en")
    args = parser.parse_args()
    executable = shutil.which("chromium")
    if executable is None:
        raise SystemExit("no chromium: apt-get install -y chromium fonts-noto-cjk")
    args.out.mkdir(parents=True, exist_ok=True)

    with (
        bench_database("timetrace_bench_shots") as (url, settings),
        open_services(settings, url=url, auto_migrate=False) as services,
    ):
        data = generate_sample(start=date(2003, 3, 1), days=31, seed=5)
        user = load_sample(services, data)
        backfill(services.store, now=datetime.now(UTC), settings=settings)
        token = new_token()
        services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name="shots")
        episode = services.store.list_episodes(
            user_id=user.user_id,
            ts_from=datetime(2003, 3, 5, 2, tzinfo=UTC),
            ts_to=datetime(2003, 3, 5, 12, tzinfo=UTC),
            category=None,
            limit=10,
        )[0]
        written = 0
        with api_process(url) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            locale = "zh-CN" if args.lang == "zh" else "en-US"
            for scheme in SCHEMES:
                for width in WIDTHS:
                    context = browser.new_context(
                        locale=locale, color_scheme=scheme, viewport={"width": width, "height": 900}
                    )
                    page = context.new_page()
                    page.goto(f"{base}/signin")
                    page.fill("#token", token)
                    page.click("#signin-form button[type=submit]")
                    page.wait_for_url("**/day")
                    for name, path in pages(episode.episode_id).items():
                        if name == "signin":
                            context.clear_cookies()
                        page.goto(base + path)
                        page.screenshot(
                            path=args.out / f"{name}-{width}-{scheme}.png", full_page=True
                        )
                        written += 1
                        if name == "signin":
                            page.fill("#token", token)
                            page.click("#signin-form button[type=submit]")
                            page.wait_for_url("**/day")
                    context.close()
            browser.close()
    print(f"{written} screenshots in {args.out}", file=sys.stderr)
    print(json.dumps({"screenshots": written, "out": str(args.out)}))


if __name__ == "__main__":
    main()
