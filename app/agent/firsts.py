"""When something first began or last ended inside a period: the earliest or the
latest episode of a thing (a category, an app or site by its episodes' titles, or any
activity), from get_episodes.

    FIRSTS["first"](ctx, parts, today).text   # "09:12 on 2003-03-30: the first …"
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from app.agent.lexicon import ACTIVE
from app.agent.parts import Parts
from app.agent.planner import Planned, not_known, period_of, period_words
from app.agent.wording import category_label, t
from app.rules.categories import CATEGORIES
from app.rules.things import loose
from app.tools import ToolContext
from app.tools.reads import Episode, EpisodesResult

Planner = Callable[[ToolContext, Parts, date], Planned | None]


def _matching(items: list[Episode], name: str | None) -> list[Episode]:
    """The episodes of a thing: its category, or a title that names it."""
    if name is None or name in CATEGORIES:
        return items
    key = loose(name.split(".")[0])
    return [i for i in items if key and key in loose(i.title)]


def _edge(ctx: ToolContext, parts: Parts, today: date) -> Planned | None:
    mention = parts.things[0] if parts.things else None
    name = None if mention is None or mention.name in (ACTIVE, "idle") else mention.name
    if mention is not None and mention.name == "idle":
        return None
    spec, defaulted = period_of(parts, today=today, default_days=None)
    planned = Planned(parts.operation, spec, defaulted=defaulted)
    arguments = {**spec.arguments(), "limit": 1000}
    if name in CATEGORIES:
        arguments["category"] = name
    result = planned.call(ctx, "get_episodes", arguments)
    if not isinstance(result, EpisodesResult):
        planned.text = not_known(parts, planned)
        return planned
    active = [i for i in result.items if i.minutes > 0]  # an idle run is no activity
    items = sorted(_matching(active, name), key=lambda i: i.when)
    planned.text = _said(parts, spec_words=period_words(spec, parts.language), items=items)
    return planned


def _said(parts: Parts, *, spec_words: str, items: list[Episode]) -> str:
    lang, first = parts.language, parts.operation == "first"
    what = parts.things[0].text if parts.things else t(lang, "活动", "activity")
    if parts.things and parts.things[0].name in CATEGORIES:
        what = category_label(parts.things[0].name, lang)
    if not items:
        return t(lang, f"{spec_words} 没有{what}的记录。", f"No {what} was recorded {spec_words}.")
    item = items[0] if first else items[-1]
    day, clocks = item.when.split(" ", 1)
    clock = clocks.split("–")[0] if first else clocks.split("–")[-1]
    cited = f"#{item.id} {item.title}"
    edge = "最早从这时开始" if first else "最晚到这时结束"
    return t(
        lang,
        f"{clock}：{spec_words}，{what}{edge}（{cited}，{day}）。",
        f"{clock}: {what} {spec_words} {'first began' if first else 'last ended'} then "
        f"({cited}, {day}).",
    )


FIRSTS: dict[str, Planner] = {"first": _edge, "last": _edge}
