"""The web pages over HTTP (no browser): sign-in sessions, CSRF and origin checks,
language, the report in three formats (API and CLI), the delete confirm step, and
errors as pages. The palette, the charts and the messages are tested without a
database in tests/unit/test_web_render.py, the pages in a browser in
tests/e2e/test_web_browser.py."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from app.api import create_app
from app.cli import main
from app.runtime.services import Services
from app.store import UserContext
from app.tools import dispatch_json
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded, events_of, new_token_for

DAY = "2003-03-04"
WEEK = "2003-W10"
CSRF = re.compile(r'name="csrf" value="([^"]+)"')


class Browser:
    """A cookie-keeping client of the pages, acting for the sample's user."""

    def __init__(self, services: Services, user: UserContext) -> None:
        self.services = services
        self.user = user
        self.token = new_token_for(services, user, name="web test")
        self.client = TestClient(
            create_app(services=services), raise_server_exceptions=False, follow_redirects=False
        )

    def sign_in(self, token: str | None = None) -> str:
        """Sign in; the CSRF token of the session."""
        reply = self.client.post("/signin", data={"token": token or self.token, "next": "/day"})
        assert reply.status_code == 303, reply.text
        return self.csrf()

    def csrf(self) -> str:
        match = CSRF.search(self.client.get(f"/day/{DAY}").text)
        assert match, "no form carries a CSRF token"
        return match.group(1)

    def tool(self, name: str, **arguments: Any) -> dict[str, Any]:
        ctx = self.services.tool_context(user=self.user, now=NOW)
        result = dispatch_json(ctx, name, arguments)
        assert "error" not in result, result
        return result

    def episode(self, *, day: str, category: str) -> int:
        items = self.tool("get_episodes", period="custom", date_from=day, date_to=day)["items"]
        return int(next(i["id"] for i in items if i["category"] == category))


@pytest.fixture
def web(services: Services, preloaded: Preloaded) -> Browser:
    return Browser(services, preloaded.user)


pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)

PAGES = [
    "/",
    "/day",
    f"/day/{DAY}",
    f"/day/{DAY}?episode=1",
    "/week",
    f"/week/{WEEK}",
    "/month/2003-03",
    "/search?q=timetrace",
    "/privacy",
    "/privacy/delete?from=2003-03-04T09:00&to=2003-03-04T10:00",
    "/episodes/1",
    f"/report/week/{WEEK}?format=md",
    "/ask",
    "/ask?conversation=1",
]


def test_without_a_session_pages_send_the_browser_to_sign_in_and_writes_are_refused(
    web: Browser,
) -> None:
    for path in PAGES:
        reply = web.client.get(path)
        assert reply.status_code == 303, path
        assert reply.headers["location"] == f"/signin?next={quote(path, safe='/')}", path
    episode = web.episode(day=DAY, category="entertainment")
    writes = [
        (f"/episodes/{episode}/label", {"category": "work"}),
        ("/privacy/delete", {"from": "2003-03-04T00:00", "to": "2003-03-05T00:00"}),
        ("/privacy/tokens/1/revoke", {}),
        ("/signout", {}),
    ]
    for path, form in writes:
        reply = web.client.post(path, data=form)
        assert reply.status_code == 401, path
        assert reply.headers["content-type"].startswith("text/html")
    detail = web.services.store.episode_detail(user_id=web.user.user_id, episode_id=episode)
    assert detail is not None and detail.category == "entertainment"
    assert web.tool("query_stats", period="custom", date_from=DAY, date_to=DAY)[
        "total_seconds"
    ] == round(sum(s for (d, _), s in SAMPLE_MONTH.data().seconds.items() if str(d) == DAY))
    # The sign-in page and the two assets carry no data and need no session.
    assert web.client.get("/signin").status_code == 200
    assert web.client.get("/static/app.css").headers["content-type"].startswith("text/css")


def test_signing_in_sets_an_httponly_strict_session_cookie_that_sign_out_ends(
    web: Browser,
) -> None:
    reply = web.client.post("/signin", data={"token": web.token, "next": f"/day/{DAY}"})
    assert reply.status_code == 303 and reply.headers["location"] == f"/day/{DAY}"
    cookie = reply.headers["set-cookie"]
    assert cookie.startswith("tt_session=")
    for attribute in ("HttpOnly", "SameSite=strict", "Path=/", "Max-Age=2592000"):
        assert attribute in cookie, cookie
    value = cookie.split(";")[0].removeprefix("tt_session=")
    assert web.token not in cookie and len(value) >= 40

    page = web.client.get(f"/day/{DAY}")
    assert page.status_code == 200 and "sample" in page.text
    assert page.headers["cache-control"] == "no-store"
    assert "script-src 'self'" in page.headers["content-security-policy"]

    csrf = web.csrf()
    out = web.client.post("/signout", data={"csrf": csrf})
    assert out.status_code == 303 and out.headers["location"] == "/signin?out=1"
    assert 'tt_session=""' in out.headers["set-cookie"]
    # The session is gone on the server: the old cookie replayed gets nothing.
    web.client.cookies.set("tt_session", value)
    assert web.client.get(f"/day/{DAY}").status_code == 303


def test_a_wrong_token_is_refused_and_revoking_a_token_ends_its_sessions(web: Browser) -> None:
    wrong = web.client.post("/signin", data={"token": "tt_not-a-token"})
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    assert "unknown or revoked" in wrong.text

    csrf = web.sign_in()
    (listed,) = [t for t in web.services.store.list_tokens(user_id=web.user.user_id)]
    assert listed.name == "web test" and listed.web_sessions == 1
    assert web.token not in web.client.get("/privacy").text  # never shown again
    revoked = web.client.post(f"/privacy/tokens/{listed.token_id}/revoke", data={"csrf": csrf})
    assert revoked.status_code == 303
    assert web.client.get("/privacy").headers["location"] == "/signin?next=/privacy"
    api = web.client.get("/api/v1/me", headers={"Authorization": f"Bearer {web.token}"})
    assert api.status_code == 401


def _seconds(web: Browser, category: str) -> int:
    stats = web.tool("query_stats", period="custom", date_from=DAY, date_to=DAY, category=category)
    return int(stats["items"][0]["seconds"])


def test_writes_need_the_sessions_csrf_token_and_this_origin(web: Browser) -> None:
    csrf = web.sign_in()
    episode = web.episode(day=DAY, category="entertainment")
    work_before, entertainment_before = _seconds(web, "work"), _seconds(web, "entertainment")
    refused = [
        web.client.post(f"/episodes/{episode}/label", data={"category": "work"}),
        web.client.post(f"/episodes/{episode}/label", data={"category": "work", "csrf": "x" * 43}),
        web.client.post(
            f"/episodes/{episode}/label",
            data={"category": "work", "csrf": csrf},
            headers={"Origin": "https://evil.example"},
        ),
        web.client.post(f"/episodes/{episode}/label", data={"category": "work", "csrf": "令牌"}),
    ]
    assert [r.status_code for r in refused] == [403, 403, 403, 403]
    assert "came from another site" in refused[0].text
    store = web.services.store
    unchanged = store.episode_detail(user_id=web.user.user_id, episode_id=episode)
    assert unchanged is not None and unchanged.category == "entertainment"
    done = web.client.post(
        f"/episodes/{episode}/label",
        data={"category": "work", "csrf": csrf},
        headers={"Origin": str(web.client.base_url)},
    )
    assert done.status_code == 303 and done.headers["location"] == f"/day/{DAY}?relabelled=1"
    # The day was rebuilt at once: the episode keeps its id (it starts where it did), and
    # more of the day is work.
    relabelled = store.episode_detail(user_id=web.user.user_id, episode_id=episode)
    assert relabelled is not None and relabelled.category == "work"
    assert _seconds(web, "work") > work_before
    assert _seconds(web, "entertainment") < entertainment_before


def test_the_chat_takes_the_pages_session_cookie_only_with_its_csrf_header(web: Browser) -> None:
    """The Ask page's script calls the agent's chat with its cookie and CSRF header."""
    csrf = web.sign_in()
    chat = "/api/v1/agent/chat"
    question = {"question": "2003年3月4日工作了多少小时？"}  # DAY
    for headers in ({}, {"X-CSRF-Token": "x" * 43}, {"X-CSRF-Token": "caf\xe9".encode("latin-1")}):
        refused = web.client.post(chat, json=question, headers=headers)
        assert refused.status_code == 401, headers
        assert "X-CSRF-Token" in refused.json()["error"]
    # The header without the cookie is nobody; a bearer token decides alone when sent.
    cookieless = TestClient(create_app(services=web.services))
    assert cookieless.post(chat, json=question, headers={"X-CSRF-Token": csrf}).status_code == 401
    wrong_bearer = {"X-CSRF-Token": csrf, "Authorization": "Bearer tt_unknown"}
    assert web.client.post(chat, json=question, headers=wrong_bearer).status_code == 401
    assert web.services.store.list_conversations(user_id=web.user.user_id, limit=5) == []

    reply = web.client.post(chat, json=question, headers={"X-CSRF-Token": csrf})
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/event-stream")
    events = events_of(reply.text)
    assert [kind for kind, _ in events] == ["step", "step", "token", "done"]
    first = events[-1][1]
    assert f"{round(_seconds(web, 'work') / 3600, 2)} 小时" in first["answer"]
    assert first["mode"] == "offline" and events[2][1]["text"] == first["answer"]
    # The conversation goes on by its id, in English; its page lists both turns.
    again = {
        "question": f"How many hours of social on {DAY}?",
        "conversation_id": first["conversation_id"],
    }
    second = events_of(web.client.post(chat, json=again, headers={"X-CSRF-Token": csrf}).text)
    assert second[-1][1]["conversation_id"] == first["conversation_id"]
    assert second[-1][1]["turn"] == 2
    assert f"{round(_seconds(web, 'social') / 3600, 2)} hours of social" in second[-1][1]["answer"]
    shown = unescape(web.client.get(f"/ask?conversation={first['conversation_id']}").text)
    assert question["question"] in shown and again["question"] in shown
    assert shown.count("Called query_stats · ") == 2


def test_the_language_follows_the_browser_until_the_switch_chooses(web: Browser) -> None:
    chinese = web.client.get("/signin", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert '<html lang="zh-CN">' in chinese.text and "粘贴一次 API 令牌" in chinese.text
    english = web.client.get("/signin", headers={"Accept-Language": "fr-FR,en;q=0.5,zh;q=0.4"})
    assert '<html lang="en">' in english.text and "Paste an API token once" in english.text

    switched = web.client.get("/lang/zh?next=/signin")
    assert switched.status_code == 303 and switched.headers["location"] == "/signin"
    again = web.client.get("/signin", headers={"Accept-Language": "en"})
    assert "粘贴一次 API 令牌" in again.text
    # The switch goes back to a page of this site only.
    for target in ("https://evil.example/", "//evil.example/x", "/\\evil.example"):
        assert web.client.get(f"/lang/en?next={quote(target)}").headers["location"] == "/day"


def test_report_api_gives_json_markdown_and_one_self_contained_html_file(web: Browser) -> None:
    auth = {"Authorization": f"Bearer {web.token}"}
    digest = web.tool("get_digest", grain="week", date=WEEK)
    report = web.client.get(f"/api/v1/reports/week/{WEEK}", headers=auth).json()
    assert report["first"] == "2003-03-03" and report["last"] == "2003-03-09"
    assert report["hours_by_category"] == digest["metrics"]["hours_by_category"]
    assert report["episodes"] == digest["metrics"]["episodes"] == 172
    assert [d["day"] for d in report["days"]] == [f"2003-03-0{i}" for i in range(3, 10)]
    monday = web.tool("get_digest", grain="day", date="2003-03-03")["metrics"]
    assert report["days"][0]["hours"] == monday["hours_by_category"]
    signals = web.tool("get_signals", period="custom", date_from="2003-03-03", date_to="2003-03-09")
    assert [h["name"] for h in report["habits"]] == list(signals["patterns"])
    assert report["narrative_status"] == "rules"  # no model: words written by rule
    assert report["narrative"] == digest["narrative"] and digest["summary_by"] == "rules"

    markdown = web.client.get(f"/api/v1/reports/week/{WEEK}?format=md", headers=auth)
    assert markdown.headers["content-type"].startswith("text/markdown")
    text = markdown.text
    assert text.startswith(f"# TimeTrace report — Week {WEEK} (Mon 3 Mar 2003 – Sun 9 Mar 2003)")
    work = digest["metrics"]["hours_by_category"]["work"]
    assert f"| Work | {work:.2f} |" in text
    assert "- **Forced rollback** — 1 times on 1 days" in text

    month = web.client.get("/api/v1/reports/month/2003-03?format=md", headers=auth)
    assert month.text.startswith("# TimeTrace report — Month 2003-03 (Sat 1 Mar 2003 – ")

    html = web.client.get(f"/api/v1/reports/week/{WEEK}?format=html&lang=zh", headers=auth)
    assert (
        html.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    )
    page = html.text
    assert page.startswith("<!doctype html>") and "<svg" in page and "工作" in page
    assert page.count('<rect class="bar-hit"') == 7
    for outside in ("<script", "src=", "http://", "https://", "<link", "@import", "url("):
        assert outside not in page, outside


def test_report_refuses_a_bad_period_naming_the_field(web: Browser) -> None:
    auth = {"Authorization": f"Bearer {web.token}"}
    bad_week = web.client.get("/api/v1/reports/week/2003-13", headers=auth)
    assert bad_week.status_code == 422
    assert bad_week.json()["error"] == (
        "scope: a week is written YYYY-Www, e.g. 2026-W23, got '2003-13'"
    )
    bad_grain = web.client.get("/api/v1/reports/year/2003", headers=auth)
    assert bad_grain.status_code == 422 and bad_grain.json()["error"].startswith(
        "invalid input: grain"
    )
    assert web.client.get(f"/api/v1/reports/week/{WEEK}").status_code == 401


def test_cli_report_prints_markdown_and_writes_html(
    web: Browser, db_url: str, tmp_path: Path
) -> None:
    env = {"TIMETRACE_DATABASE_URL": db_url}
    runner = CliRunner()
    shown = runner.invoke(main, ["report", "month", "2003-03", "--user", "sample"], env=env)
    assert shown.exit_code == 0, shown.output
    digest = web.tool("get_digest", grain="month", date="2003-03")["metrics"]
    assert shown.output.startswith("# TimeTrace report — Month 2003-03")
    assert f"| Entertainment | {digest['hours_by_category']['entertainment']:.2f} |" in shown.output
    target = tmp_path / "week.html"
    written = runner.invoke(
        main,
        [
            "report",
            "week",
            WEEK,
            "--user",
            "sample",
            "--format",
            "html",
            "--lang",
            "zh",
            "-o",
            str(target),
        ],
        env=env,
    )
    assert written.exit_code == 0 and f"wrote {target}" in written.output
    assert "<svg" in target.read_text(encoding="utf-8")
    refused = runner.invoke(main, ["report", "week", "2003-W99", "--user", "sample"], env=env)
    assert refused.exit_code == 1
    assert (
        refused.output
        == "Error: scope: a week is written YYYY-Www, e.g. 2026-W23, got '2003-W99'\n"
    )


def test_the_delete_step_shows_what_goes_and_erases_nothing_until_confirmed(web: Browser) -> None:
    csrf = web.sign_in()
    store, user_id = web.services.store, web.user.user_id
    start = datetime(2003, 3, 5, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai
    end = datetime(2003, 3, 5, 2, 0, tzinfo=UTC)
    before = store.records_in_range(user_id=user_id, ts_from=start, ts_to=end, device_id=None)
    total = sum(c.records for c in before)
    assert total > 20
    preview = web.client.get("/privacy/delete?from=2003-03-05T09:00&to=2003-03-05T10:00")
    assert preview.status_code == 200
    assert f"{total} records will be erased" in preview.text
    for count in before:
        assert f'data-device="{count.device_id}" data-records="{count.records}"' in preview.text
    assert store.records_in_range(user_id=user_id, ts_from=start, ts_to=end, device_id=None) == (
        before
    )
    backwards = web.client.get("/privacy/delete?from=2003-03-05T10:00&to=2003-03-05T09:00")
    assert "Give a start and an end, the end after the start." in backwards.text
    done = web.client.post(
        "/privacy/delete",
        data={"csrf": csrf, "from": start.isoformat(), "to": end.isoformat(), "device": ""},
    )
    assert done.status_code == 303 and done.headers["location"] == f"/privacy?erased={total}"
    assert store.records_in_range(user_id=user_id, ts_from=start, ts_to=end, device_id=None) == []


def test_unknown_days_periods_and_episodes_are_html_pages_not_errors(web: Browser) -> None:
    web.sign_in()
    for path in (
        "/day/2003-02-30",
        "/day/yesterday",
        "/week/2003-W60",
        "/month/2003-13",
        "/episodes/999999",
        "/episodes/abc",
        "/ask?conversation=999999",
        "/ask?conversation=abc",
        "/static/nope.js",
    ):
        reply = web.client.get(path)
        assert reply.status_code == 404, path
        assert reply.headers["content-type"].startswith("text/html"), path


def test_the_privacy_page_lists_uncategorized_apps_with_rules_as_query_stats(
    web: Browser,
) -> None:
    web.sign_in()
    coverage = web.tool(
        "query_stats",
        metric="uncategorized",
        period="custom",
        date_from="2003-03-01",
        date_to="2003-03-31",
    )
    assert coverage["items"], "the sample month has uncategorized time"
    page = web.client.get("/privacy?cov_from=2003-03-01&cov_to=2003-03-31").text
    assert f'data-uncategorized="{coverage["uncategorized_seconds"]}"' in page
    rows = re.findall(r'<tr data-seconds="(\d+)"><td>([^<]*)</td>', page)
    assert rows == [(str(i["seconds"]), i["app"]) for i in coverage["items"]]
    rules = [f"<code>{i['rule']}</code>" for i in coverage["items"] if "rule" in i]
    assert rules and all(rule in unescape(page) for rule in rules)
    assert "[[category]]" in page  # the snippet to paste
