"""aw-webui on the door's own origin: `--webui DIR` serves a build next to the API, and
the page it serves calls the API (a query, the settings) same-origin, in Chromium, with
the loopback guard on and no CORS answer needed.

The build is the one the aw-server 0.12.0 wheel ships (`aw_server/static`). That wheel
carries index.html and its styles but not the scripts index.html loads (`/js/…`), so
aw-webui itself cannot render from it; what renders is checked here, the rest by
tests/e2e/test_aw_door_query.py (the same Activity query as aw-server answers)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from app.awdoor.server import door_in_thread
from app.awdoor.webui import webui_folder
from app.cli import main
from app.runtime.services import Services
from tests.aw_real import AW_VENV
from tests.browser import chromium

WHEEL_BUILD = AW_VENV / "lib" / "python3.11" / "site-packages" / "aw_server" / "static"
BUCKET = "aw-watcher-window_laptop"

_CALLS = """async ([bucket]) => {
  const post = (path, body) => fetch(path, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  await post(`/api/0/buckets/${bucket}`,
             {client: "aw-watcher-window", type: "currentwindow", hostname: "laptop"});
  await post(`/api/0/buckets/${bucket}/events`,
             [{timestamp: "2003-07-08T09:00:00+00:00", duration: 90, data: {app: "Code"}}]);
  const query = await post("/api/0/query/", {
    timeperiods: ["2003-07-08T00:00:00+00:00/2003-07-09T00:00:00+00:00"],
    query: [`RETURN = sum_durations(query_bucket("${bucket}"));`]});
  const classes = [{name: ["Work"], rule: {type: "regex", regex: "Code"}}];
  const kept = await post("/api/0/settings/classes", classes);
  const back = await fetch("/api/0/settings/classes");
  return {query: [query.status, await query.json()], kept: kept.status,
          classes: await back.json()};
}"""


def test_the_door_serves_aw_webui_and_its_page_calls_the_api_same_origin(
    services: Services, tmp_path: Path
) -> None:
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    folder = webui_folder(WHEEL_BUILD)
    with door_in_thread(services, user=user, webui=folder) as url, chromium() as browser:
        page = browser.new_page()
        shown = page.goto(f"{url}/")
        assert shown is not None and shown.status == 200
        assert page.title() == "ActivityWatch"
        assert page.evaluate("() => document.querySelector('#app') !== null")
        css = page.request.get(f"{url}/app.css")
        assert css.status == 200 and css.body() == (folder / "app.css").read_bytes()
        answers = page.evaluate(_CALLS, [BUCKET])
        assert answers["query"] == [200, [90.0]]
        assert answers["kept"] == 200
        rule = {"type": "regex", "regex": "Code"}
        assert answers["classes"] == [{"name": ["Work"], "rule": rule}]
        # The API keeps answering beside the files, and a foreign page is still refused.
        assert page.request.get(f"{url}/api/0/info").status == 200
        foreign = page.request.get(f"{url}/api/0/buckets/", headers={"Origin": "https://x.example"})
        assert foreign.status == 403


@pytest.mark.parametrize(
    "args",
    [["aw-door", "--webui", "{dir}"], ["serve", "--aw-port", "5600", "--aw-webui", "{dir}"]],
)
def test_the_commands_refuse_a_folder_that_is_no_build_in_one_line(
    tmp_path: Path, args: list[str]
) -> None:
    result = CliRunner().invoke(main, [a.format(dir=tmp_path) for a in args])
    assert result.exit_code != 0
    assert "no index.html" in result.output
    assert "Traceback" not in result.output
