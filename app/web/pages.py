"""The pages that show time: the day, its episodes (and their re-label), weeks and
months, search, and a period's report as a file.

Every number and list comes from the tool registry (`dispatch` through
`Services.tool_context`) or from the store's typed reads; nothing here writes SQL.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse

from app.boundary import day_of
from app.errors import InvalidInputError
from app.store.episodes import EpisodeLine
from app.store.web import WebSessionRow
from app.timeutil import month_key, week_key
from app.tools import ToolContext, dispatch
from app.tools.periods import today_of
from app.tools.results import ToolError
from app.tools.sites import site_totals
from app.web.auth import Form, PageError, SessionDep, check_form, services_of
from app.web.charts import hour_bars, stacked_bars
from app.web.day import day_view
from app.web.explore import app_titles, hour_of_day, period_signals
from app.web.i18n import Translator
from app.web.render import PAGE_HEADERS, REPORT_HEADERS, lang_of, page
from app.web.report import (
    PeriodReport,
    build_report,
    narrative_note,
    period_of,
    range_key,
    render_html,
    render_markdown,
)
from app.web.timeline import day_episodes, day_window, timeline

router = APIRouter(include_in_schema=False)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TOP_SITES = 8


def tool_context(request: Request, session: WebSessionRow) -> ToolContext:
    return services_of(request).tool_context(user=session.user, now=datetime.now(UTC))


def _day(text: str) -> date:
    try:
        return day_of(text)
    except ValueError as exc:
        raise PageError(404, "not_found", str(exc)) from exc


def _int(text: str | None) -> int | None:
    return int(text) if text and text.isdigit() and len(text) < 19 else None


@router.get("/")
def home(_: SessionDep) -> RedirectResponse:
    return RedirectResponse("/day", status_code=303)


def _day_page(request: Request, session: WebSessionRow, day: date | None) -> Response:
    ctx = tool_context(request, session)
    services = services_of(request)
    store = services.store
    q = request.query_params
    episode_id = _int(q.get("episode"))
    view = day_view(
        ctx,
        store,
        day=day or today_of(session.user, ctx.now),
        episode_id=episode_id,
        t=Translator(lang_of(request)),
        start=q.get("from"),
        end=q.get("to"),
        records_page=_int(q.get("records")) or 1,
    )
    if (
        view.panel_missing
        and episode_id is not None
        and (moved := _moved(request, session, episode_id))
    ):
        return moved
    return page(
        request,
        "day.html",
        session=session,
        nav="day",
        v=view,
        relabelled=q.get("relabelled") == "1",
        moved_from=_int(q.get("moved")),
        no_model=not services.models.chat_enabled,
    )


def _moved(request: Request, session: WebSessionRow, episode_id: int) -> RedirectResponse | None:
    """An episode id that no longer exists, sent on to the episode now covering its start
    (its day was rebuilt); None when nothing covers it (deleted, or not built yet)."""
    moved = services_of(request).store.episode_moved(user_id=session.user_id, episode_id=episode_id)
    if moved is None or moved.episode_id is None:
        return None
    return RedirectResponse(
        f"/day/{moved.day_local}?episode={moved.episode_id}&moved={episode_id}#panel",
        status_code=303,
    )


@router.get("/day")
def today(request: Request, session: SessionDep) -> Response:
    picked = request.query_params.get("date")
    if picked:  # the date picker's form, without the script
        return RedirectResponse(f"/day/{_day(picked)}", status_code=303)
    return _day_page(request, session, None)


@router.get("/day/{day}")
def one_day(day: str, request: Request, session: SessionDep) -> Response:
    return _day_page(request, session, _day(day))


@router.get("/day/{day}/timeline")
def day_timeline(day: str, request: Request, session: SessionDep) -> JSONResponse:
    """The timeline of a window of the day as JSON (?from=&to=, ISO instants or local
    HH:MM): what the script draws as it zooms and pans."""
    ctx = tool_context(request, session)
    store = services_of(request).store
    q = request.query_params
    window = day_window(_day(day), user=session.user, start=q.get("from"), end=q.get("to"))
    # Runs of records need no episodes; the whole day needs them for its span.
    episodes: list[EpisodeLine] = []
    if window.whole or window.level == "episodes":
        episodes = day_episodes(store, session.user, window)
        window = day_window(
            window.day, user=session.user, start=q.get("from"), end=q.get("to"), episodes=episodes
        )
    tl = timeline(
        ctx,
        store,
        window=window,
        episodes=episodes,
        t=Translator(lang_of(request)),
        selected=_int(q.get("episode")),
    )
    return JSONResponse(tl.as_json(), headers=PAGE_HEADERS)


def _episode_day(request: Request, session: WebSessionRow, episode: str) -> tuple[int, date]:
    episode_id = _int(episode)
    detail = (
        services_of(request).store.episode_detail(user_id=session.user_id, episode_id=episode_id)
        if episode_id
        else None
    )
    if episode_id is None or detail is None:
        raise PageError(404, "episode_gone")
    return episode_id, detail.day_local


@router.get("/episodes/{episode}")
def episode(episode: str, request: Request, session: SessionDep) -> RedirectResponse:
    """An episode's place: its day, with its panel open (search results and evidence
    link here)."""
    gone = _int(episode)
    if gone is not None and (moved := _moved(request, session, gone)):
        return moved
    episode_id, day = _episode_day(request, session, episode)
    return RedirectResponse(f"/day/{day}?episode={episode_id}#panel", status_code=303)


@router.post("/episodes/{episode}/label")
def relabel(episode: str, request: Request, session: SessionDep, form: Form) -> RedirectResponse:
    """Re-label through apply_label, the tools' one write; its days are rebuilt at once."""
    check_form(request, session, form)
    episode_id, day = _episode_day(request, session, episode)
    result = dispatch(
        tool_context(request, session),
        "apply_label",
        {"target": "episode", "id": episode_id, "category": form.get("category"), "note": "web"},
    )
    if isinstance(result, ToolError):
        raise PageError(422, "error", result.error)
    return RedirectResponse(f"/day/{day}?relabelled=1", status_code=303)


def _report(ctx: ToolContext, grain: str, key: str, request: Request) -> PeriodReport:
    try:
        return build_report(ctx, grain=grain, key=key, language=lang_of(request))
    except InvalidInputError as exc:
        raise PageError(404, "not_found", exc.message) from exc


def _period_page(
    request: Request, session: WebSessionRow, grain: str, key: str | None
) -> HTMLResponse:
    ctx = tool_context(request, session)
    today = today_of(session.user, ctx.now)
    key = key or (week_key(today) if grain == "week" else month_key(today))
    report = _report(ctx, grain, key, request)
    first, last = report.first, report.last
    services = services_of(request)
    # One definition of time on a site, as query_stats counts it (app/tools/sites.py).
    sites = site_totals(ctx, day_from=first, day_to=last)[:TOP_SITES]
    if grain == "range":
        length = timedelta(days=(last - first).days + 1)
        prev_key = range_key(first - length, first - timedelta(days=1))
        next_key = range_key(last + timedelta(days=1), last + length)
    else:
        step = week_key if grain == "week" else month_key
        prev_key, next_key = step(first - timedelta(days=1)), step(last + timedelta(days=1))
    hour_rows = hour_of_day(services.store, ctx, first=first, last=last)
    return page(
        request,
        "period.html",
        session=session,
        nav=grain,
        r=report,
        chart=stacked_bars(report.days),
        hour_chart=hour_bars([(h.hour, h.hours) for h in hour_rows]),
        note=narrative_note(report),
        sites=sites,
        prev_key=prev_key,
        next_key=next_key,
    )


def _picked(request: Request, grain: str) -> RedirectResponse | None:
    """The period picker's form, without the script: ?week=2026-W23 or ?month=2026-06."""
    key = request.query_params.get(grain)
    if not key:
        return None
    _report_period(grain, key)
    return RedirectResponse(f"/{grain}/{key}", status_code=303)


def _report_period(grain: str, key: str) -> tuple[date, date]:
    try:
        return period_of(grain, key)
    except InvalidInputError as exc:
        raise PageError(404, "not_found", exc.message) from exc


@router.get("/week")
def this_week(request: Request, session: SessionDep) -> Response:
    return _picked(request, "week") or _period_page(request, session, "week", None)


@router.get("/week/{key}")
def one_week(key: str, request: Request, session: SessionDep) -> HTMLResponse:
    return _period_page(request, session, "week", key)


@router.get("/range")
def pick_range(request: Request, session: SessionDep) -> RedirectResponse:
    """The custom range form: ?from=YYYY-MM-DD&to=YYYY-MM-DD."""
    first, last = _days_asked(request, session)
    key = range_key(first, last)
    _report_period("range", key)
    return RedirectResponse(f"/range/{key}", status_code=303)


@router.get("/range/{key}")
def one_range(key: str, request: Request, session: SessionDep) -> HTMLResponse:
    return _period_page(request, session, "range", key)


@router.get("/month")
def this_month(request: Request, session: SessionDep) -> Response:
    return _picked(request, "month") or _period_page(request, session, "month", None)


@router.get("/month/{key}")
def one_month(key: str, request: Request, session: SessionDep) -> HTMLResponse:
    return _period_page(request, session, "month", key)


@router.get("/report/{grain}/{key}")
def report_file(grain: str, key: str, request: Request, session: SessionDep) -> Response:
    """The period's report as a file to keep: ?format=md or html (self-contained)."""
    report = _report(tool_context(request, session), grain, key, request)
    t = Translator(lang_of(request))
    name = f"timetrace-{grain}-{key}"
    if request.query_params.get("format") == "md":
        return PlainTextResponse(
            render_markdown(report, t=t),
            media_type="text/markdown; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}.md"'},
        )
    return HTMLResponse(
        render_html(report, t=t),
        headers={**REPORT_HEADERS, "Content-Disposition": f'attachment; filename="{name}.html"'},
    )


def _days_asked(request: Request, session: WebSessionRow) -> tuple[date, date]:
    """?from=&to= (days, at most a year apart), else today."""
    q = request.query_params
    today = today_of(session.user, datetime.now(UTC))
    first = _day(q["from"]) if q.get("from") else today
    last = _day(q["to"]) if q.get("to") else first
    if last < first or (last - first).days > 366:
        raise PageError(404, "not_found")
    return first, last


@router.get("/app")
def app_page(request: Request, session: SessionDep) -> HTMLResponse:
    """An app's or a site's titles and their time over the days asked (Top apps/sites)."""
    name = request.query_params.get("name", "").strip()
    if not name or len(name) > 300:
        raise PageError(404, "not_found")
    first, last = _days_asked(request, session)
    services = services_of(request)
    titles = app_titles(
        services.store,
        tool_context(request, session),
        name=name,
        first=first,
        last=last,
        idle_gap_s=services.settings.idle_gap_s,
    )
    return page(request, "app.html", session=session, nav="", a=titles)


@router.get("/signals")
def signals_page(request: Request, session: SessionDep) -> HTMLResponse:
    """Every signal of the days asked, each with its evidence episodes."""
    first, last = _days_asked(request, session)
    rows = period_signals(
        services_of(request).store, tool_context(request, session), first=first, last=last
    )
    return page(
        request, "signals.html", session=session, nav="", first=first, last=last, signals=rows
    )


@router.get("/search")
def search(request: Request, session: SessionDep) -> HTMLResponse:
    """search_episodes, as the agent calls it; each result links to its day."""
    query = request.query_params.get("q", "").strip()
    result = (
        dispatch(tool_context(request, session), "search_episodes", {"query": query, "k": 20})
        if query
        else None
    )
    return page(
        request,
        "search.html",
        session=session,
        nav="search",
        query=query,
        result=result,
        status=422 if isinstance(result, ToolError) else 200,
    )
