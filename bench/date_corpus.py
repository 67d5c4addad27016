"""Period and clock phrases the offline answerer must read, each inside a question
the way people ask, with the days (and the clock time) it means, seen from one
fixed day: Wednesday 2026-06-17. Used by bench/dates.py (the libraries against our
rules) and by the tests of app/agent/dates.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

TODAY = date(2026, 6, 17)  # a Wednesday: this week began on Monday 06-15


def d(month: int, day: int) -> date:
    return date(2026, month, day)


@dataclass(frozen=True, slots=True)
class DateCase:
    question: str
    first: date
    last: date
    clock: tuple[int, int] | None = None
    language: str = "en"


def _en(
    question: str, first: date, last: date | None = None, clock: tuple[int, int] | None = None
) -> DateCase:
    return DateCase(question, first, last or first, clock, "en")


def _zh(
    question: str, first: date, last: date | None = None, clock: tuple[int, int] | None = None
) -> DateCase:
    return DateCase(question, first, last or first, clock, "zh")


CORPUS: tuple[DateCase, ...] = (
    # English: days back, weeks back, named weeks and months.
    _en("how long did I code 3 days ago", d(6, 14)),
    _en("what did I do two days ago?", d(6, 15)),
    _en("hours on youtube the day before yesterday", d(6, 15)),
    _en("what was I up to a week ago", d(6, 10)),
    _en("how much gaming 2 weeks ago", d(6, 1), d(6, 7)),
    _en("how much time in Slack in June 2026?", d(6, 1), d(6, 30)),
    _en("entertainment hours in May", d(5, 1), d(5, 31)),
    _en("how many hours did I work the first week of June", d(6, 1), d(6, 7)),
    _en("time on bilibili over the past 5 days", d(6, 13), d(6, 17)),
    _en("how much did I study in the last 3 days", d(6, 15), d(6, 17)),
    _en("coding hours between Monday and Wednesday", d(6, 15), d(6, 17)),
    _en("what did I do on Monday", d(6, 15)),
    _en("how long was I in zoom last Monday", d(6, 8)),
    _en("what did I do on Friday?", d(6, 12)),
    _en("gaming last weekend", d(6, 13), d(6, 14)),
    _en("how long did I work yesterday afternoon", d(6, 16)),
    _en("how much entertainment this year", d(1, 1), d(6, 17)),
    _en("what did I do on June 3", d(6, 3)),
    _en("hours of work on 3 June", d(6, 3)),
    _en("work hours from June 1 to June 5", d(6, 1), d(6, 5)),
    _en("how much did I study since Monday", d(6, 15), d(6, 17)),
    _en("entertainment last month", d(5, 1), d(5, 31)),
    _en("how long did I work this week", d(6, 15), d(6, 17)),
    _en("what was on my screen at 2:30 pm yesterday", d(6, 16), clock=(14, 30)),
    _en("what was I looking at at 10am today", d(6, 17), clock=(10, 0)),
    # Chinese.
    _zh("3天前我写了多久代码", d(6, 14)),
    _zh("三天前干了啥", d(6, 14)),
    _zh("大前天玩了多久游戏", d(6, 14)),
    _zh("前天B站看了多久", d(6, 15)),
    _zh("一周前我在做什么", d(6, 10)),
    _zh("两周前娱乐多少小时", d(6, 1), d(6, 7)),
    _zh("上上周工作了多久", d(6, 1), d(6, 7)),
    _zh("本月初学习了几个小时", d(6, 1), d(6, 10)),
    _zh("6月的第一周工作了多久", d(6, 1), d(6, 7)),
    _zh("2026年6月玩了多久", d(6, 1), d(6, 30)),
    _zh("5月份娱乐花了多少时间", d(5, 1), d(5, 31)),
    _zh("过去5天B站看了多久", d(6, 13), d(6, 17)),
    _zh("最近三天学习多久", d(6, 15), d(6, 17)),
    _zh("周一到周三写代码多少小时", d(6, 15), d(6, 17)),
    _zh("上周五干了什么", d(6, 12)),
    _zh("这周一用了多久微信", d(6, 15)),
    _zh("周五我在做什么", d(6, 12)),
    _zh("上周末玩游戏多久", d(6, 13), d(6, 14)),
    _zh("上个月娱乐多少小时", d(5, 1), d(5, 31)),
    _zh("今年一共工作了多久", d(1, 1), d(6, 17)),
    _zh("6月3日做了什么", d(6, 3)),
    _zh("6月1日到6月5日学习多久", d(6, 1), d(6, 5)),
    _zh("昨天下午3点半我在看什么", d(6, 16), clock=(15, 30)),
    _zh("今天上午10点屏幕上是什么", d(6, 17), clock=(10, 0)),
    _zh("前天晚上9点在干嘛", d(6, 15), clock=(21, 0)),
    # The future, rarely asked of a memory but part of the same vocabulary.
    _zh("大后天是几号", d(6, 20)),
    _zh("下周一有什么安排", d(6, 22)),
    _en("what about next Monday", d(6, 22)),
)
