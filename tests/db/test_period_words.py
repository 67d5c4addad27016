"""Words without a model: with no model configured, get_digest and the week and month
pages give a narrative written by rule from the numbers (summary_by "rules"), in
English and in Chinese, that names the top category and the biggest change against
the previous period; its figures are query_stats' own."""

from __future__ import annotations

from html import unescape
from typing import Any

import pytest

from app.rules.categories import CATEGORY_LABELS_ZH
from app.runtime.services import Services
from app.store import UserContext
from app.tools import dispatch_json
from tests.db.test_web import Browser
from tests.helpers import NOW, SAMPLE_MONTH, Preloaded

pytestmark = pytest.mark.preloaded(SAMPLE_MONTH)

# (grain, key, first day, last day, the previous period's first and last day)
PERIODS = [
    ("week", "2003-W11", "2003-03-10", "2003-03-16", "2003-03-03", "2003-03-09"),
    ("month", "2003-03", "2003-03-01", "2003-03-31", "2003-02-01", "2003-02-28"),
]


def _tool(services: Services, user: UserContext, name: str, **arguments: Any) -> dict[str, Any]:
    result = dispatch_json(services.tool_context(user=user, now=NOW), name, arguments)
    assert "error" not in result, result
    return result


def _hours_by_category(
    services: Services, user: UserContext, first: str, last: str
) -> dict[str, float]:
    stats = _tool(
        services,
        user,
        "query_stats",
        metric="seconds_by_category",
        period="custom",
        date_from=first,
        date_to=last,
    )
    return {item["category"]: item["hours"] for item in stats["items"] if item["hours"]}


def _expected(
    services: Services, user: UserContext, period: tuple[str, ...]
) -> tuple[tuple[str, float], tuple[str, float, float]]:
    """The top category with its hours, and the category whose hours moved most with
    both figures, from query_stats."""
    _, _, first, last, before_first, before_last = period
    now = _hours_by_category(services, user, first, last)
    before = _hours_by_category(services, user, before_first, before_last)
    top = max(now.items(), key=lambda kv: kv[1])
    moved = max(
        {**before, **now},
        key=lambda c: abs(now.get(c, 0.0) - before.get(c, 0.0)),
    )
    return top, (moved, before.get(moved, 0.0), now.get(moved, 0.0))


@pytest.mark.parametrize("period", PERIODS, ids=[p[0] for p in PERIODS])
def test_get_digest_without_a_model_writes_the_numbers_in_english_and_chinese(
    services: Services, preloaded: Preloaded, period: tuple[str, ...]
) -> None:
    grain, key = period[0], period[1]
    (top, top_hours), (moved, before, after) = _expected(services, preloaded.user, period)
    english = _tool(services, preloaded.user, "get_digest", grain=grain, date=key)
    assert english["summary_by"] == "rules"
    assert "narrative_status" not in english  # nothing is pending with no model
    words = english["narrative"]
    assert words.startswith(f"{top.capitalize()} took the most time: {top_hours:.2f} h")
    assert f"{moved} changed the most" in words
    assert f"from {before:.2f} h to {after:.2f} h" in words

    chinese = _tool(services, preloaded.user, "get_digest", grain=grain, date=key, language="zh")
    assert chinese["summary_by"] == "rules"
    zh = chinese["narrative"]
    assert zh.startswith(f"用时最多的是{CATEGORY_LABELS_ZH[top]}：{top_hours:.2f} 小时")  # type: ignore[index]
    assert f"变化最大的是{CATEGORY_LABELS_ZH[moved]}" in zh  # type: ignore[index]
    assert f"从 {before:.2f} 小时" in zh and f"到 {after:.2f} 小时" in zh


@pytest.mark.parametrize("period", PERIODS, ids=[p[0] for p in PERIODS])
def test_the_week_and_month_pages_show_the_words_not_pending(
    services: Services, preloaded: Preloaded, period: tuple[str, ...]
) -> None:
    grain, key = period[0], period[1]
    web = Browser(services, preloaded.user)
    web.sign_in()
    for lang in ("en", "zh"):
        page = unescape(web.client.get(f"/{grain}/{key}", headers={"Accept-Language": lang}).text)
        digest = _tool(services, preloaded.user, "get_digest", grain=grain, date=key, language=lang)
        assert digest["narrative"] in page
        assert 'data-summary-by="rules"' in page
        assert "pending" not in page.lower() and "尚未生成" not in page
