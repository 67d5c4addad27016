"""Reading periods from questions: three libraries against the offline answerer's own
rules, on the corpus of bench/date_corpus.py (English and Chinese, seen from
Wednesday 2026-06-17).

    python bench/dates.py            # the libraries that are installed, and ours

A case is a hit when the first period found in the question is exactly its days
(first and last logical day) and, where the case names a clock time, that time.
A library that returns one instant for a range ("in June 2026") misses it. The
libraries are not dependencies of TimeTrace: install them to measure
(dateparser, jionlp, recognizers-text-date-time with emoji<2). Ends with one
JSON line per reader: {"reader": …, "hits": …, "cases": …, "en": …, "zh": …,
"import_s": …, "misses": […]}.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.agent.dates import find_clocks, find_period
from bench.date_corpus import CORPUS, TODAY, DateCase

BASE = datetime(TODAY.year, TODAY.month, TODAY.day, 12, 0)
Found = tuple[date, date, tuple[int, int] | None] | None


def ours(case: DateCase) -> Found:
    period = find_period(case.question, today=TODAY)
    if period is None:
        return None
    clocks = find_clocks(case.question)
    return period.date_from, period.date_to, clocks[0] if clocks else None


# The libraries are loaded by name: they are measured here, not depended on, and a
# checkout without them still runs this script (it says which are not installed).


def dateparser_reader() -> Callable[[DateCase], Found]:
    search_dates = importlib.import_module("dateparser.search").search_dates

    def read(case: DateCase) -> Found:
        settings: Any = {"RELATIVE_BASE": BASE, "PREFER_DATES_FROM": "past"}
        found = search_dates(case.question, languages=[case.language], settings=settings)
        if not found:
            return None
        moment = found[0][1]
        return moment.date(), moment.date(), (moment.hour, moment.minute)

    return read


def jionlp_reader() -> Callable[[DateCase], Found]:
    jionlp = importlib.import_module("jionlp")

    base = time.mktime(BASE.timetuple())

    def read(case: DateCase) -> Found:
        found = jionlp.ner.extract_time(case.question, time_base=base)
        if not found:
            return None
        first, last = (datetime.fromisoformat(t) for t in found[0]["detail"]["time"][:2])
        return first.date(), last.date(), (first.hour, first.minute)

    return read


def recognizers_reader() -> Callable[[DateCase], Found]:
    recognizers = importlib.import_module("recognizers_date_time")
    culture_of, recognize_datetime = recognizers.Culture, recognizers.recognize_datetime

    def read(case: DateCase) -> Found:
        culture = culture_of.Chinese if case.language == "zh" else culture_of.English
        found = recognize_datetime(case.question, culture, reference=BASE)
        if not found:
            return None
        values = found[0].resolution["values"]
        # An ambiguous date comes as two values, the past and the future one: a memory
        # is asked about the past.
        past = [v for v in values if str(v.get("start", v.get("value", ""))) <= BASE.isoformat()]
        value = (past or values)[0]
        if "start" in value:  # a range's end is exclusive
            first = datetime.fromisoformat(value["start"])
            last = datetime.fromisoformat(value["end"]) - timedelta(days=1)
            return first.date(), last.date(), None
        moment = datetime.fromisoformat(value["value"])
        return moment.date(), moment.date(), (moment.hour, moment.minute)

    return read


def hit(case: DateCase, found: Found) -> bool:
    if found is None or (found[0], found[1]) != (case.first, case.last):
        return False
    return case.clock is None or found[2] == case.clock


def measure(name: str, make: Callable[[], Callable[[DateCase], Found]]) -> dict[str, Any]:
    started = time.perf_counter()
    read = make()
    imported = time.perf_counter() - started
    hits: dict[str, int] = {"en": 0, "zh": 0}
    misses = []
    for case in CORPUS:
        try:
            found = read(case)
        except Exception as exc:  # a library's own failure is a miss, not a crash
            found, misses = None, [*misses, f"{case.question} ({type(exc).__name__})"]
        if hit(case, found):
            hits[case.language] += 1
        elif not misses or not misses[-1].startswith(case.question):
            misses.append(case.question)
    cases = {lang: sum(c.language == lang for c in CORPUS) for lang in hits}
    return {
        "reader": name,
        "hits": sum(hits.values()),
        "cases": len(CORPUS),
        "en": f"{hits['en']}/{cases['en']}",
        "zh": f"{hits['zh']}/{cases['zh']}",
        "import_s": round(imported, 2),
        "misses": misses,
    }


def main() -> None:
    readers: list[tuple[str, str, Callable[[], Callable[[DateCase], Found]]]] = [
        ("dateparser", "dateparser", dateparser_reader),
        ("jionlp", "jionlp", jionlp_reader),
        ("recognizers-text", "recognizers_date_time", recognizers_reader),
    ]
    for name, module, make in readers:
        if importlib.util.find_spec(module) is None:
            print(json.dumps({"reader": name, "installed": False}))
            continue
        print(json.dumps(measure(name, make), ensure_ascii=False))
    print(json.dumps(measure("timetrace rules", lambda: ours), ensure_ascii=False))


if __name__ == "__main__":
    main()
