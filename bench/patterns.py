"""How long the patterns that meet captured text take on adversarial 4 KiB titles.

    python bench/patterns.py

The same patterns and titles as `tests/unit/test_patterns.py` (every compiled pattern
of the package, the rules' RE2 patterns, each on titles built from its own near-misses),
timed here rather than in the test: the test only compares each title's time with its
time at a sixteenth of the size, so a loaded machine cannot fail it; the milliseconds are
this script's to report.

Ends with one JSON line:
{"patterns": …, "titles": …, "worst_ms": …, "worst": "<pattern>", "worst_growth": …,
 "growth_limit": …}
where `worst_ms` is the slowest title's best of three at 4 KiB and `worst_growth` the
largest ratio of a title's time at 4 KiB to its time at a sixteenth of that.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.pop(0)  # bench/mcp.py would shadow the mcp package the walk imports
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.patterns import capped
from tests.unit.test_patterns import (
    ANCHORED,
    GROWTH_LIMIT,
    _best,
    _steepest,
    shipped_code_patterns,
    shipped_rule_patterns,
    title_pairs,
)


def _uses() -> dict[str, tuple[Callable[[str], object], str, int]]:
    """Each pattern's way of being called, with the source and flags its titles need."""
    uses: dict[str, tuple[Callable[[str], object], str, int]] = {}
    for name, pattern in shipped_code_patterns().items():
        calls = [pattern.match] if name in ANCHORED else [pattern.search, pattern.findall]
        for call in calls:
            uses[f"{name}.{call.__name__}"] = (
                lambda text, call=call: call(capped(text)),
                pattern.pattern,
                pattern.flags,
            )
    for name, linear in shipped_rule_patterns().items():
        uses[name] = (linear.span, linear.source, re.IGNORECASE)
    return uses


def main() -> None:
    worst_s, worst, growth, titles = 0.0, "", 0.0, 0
    uses = _uses()
    for name, (run, source, flags) in uses.items():
        pairs = title_pairs(source, flags)
        titles += len(pairs)
        for _, large in pairs:
            seconds = _best(run, large, 3)
            if seconds > worst_s:
                worst_s, worst = seconds, name
        growth = max(growth, _steepest(run, pairs)[0])
    print(
        json.dumps(
            {
                "patterns": len(uses),
                "titles": titles,
                "worst_ms": round(worst_s * 1e3, 3),
                "worst": worst,
                "worst_growth": round(growth, 1),
                "growth_limit": GROWTH_LIMIT,
            }
        )
    )


if __name__ == "__main__":
    main()
