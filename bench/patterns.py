"""How long the patterns that meet captured text take on adversarial 4 KiB titles.

    python bench/patterns.py

The same patterns and titles as `tests/unit/test_patterns.py` (every compiled pattern
of the package, the rules' RE2 patterns and a user's rules such as `(a+)+$`, each on
titles built from its own near-misses), timed here rather than in the test: the test
only compares each title's time with its time at a sixteenth of the size, so a loaded
machine cannot fail it; the milliseconds are this script's to report.

Ends with one JSON line:
{"patterns": …, "titles": …, "worst_ms": …, "worst": "<pattern>",
 "slowest_titles_growth": …, "worst_growth_as_tested": …, "growth_limit": …}
where `worst_ms` is the slowest title's best of three at 4 KiB; `slowest_titles_growth`
the largest ratio, over the patterns, of the time of a pattern's slowest title at 4 KiB
to its time at a sixteenth of that (best of five each; 16 is linear, 256 quadratic);
and `worst_growth_as_tested` the largest ratio the test's own check ends with (it
times a pair again while it is over the limit, so this sits below the limit whenever
the test passes).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.pop(0)  # bench/mcp.py would shadow the mcp package the walk imports
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.patterns import capped
from tests.unit.test_patterns import (
    ANCHORED,
    GROWTH_LIMIT,
    SMALL_CALLS,
    _best,
    _steepest,
    shipped_code_patterns,
    shipped_rule_patterns,
    title_pairs,
)

# The test's catastrophic rules a person might write; RE2 runs them in linear time.
USER_RULES = (
    "[[category]]\nname = 'nested'\ncategory = 'work'\ntitle = '^(a+)+$'\n"
    "[[exclude]]\nname = 'words'\naction = 'redact'\ntitle = '^(\\w+\\s?)*$'\n"
    "[[category]]\nname = 'alternation'\ncategory = 'study'\napp = '(a|aa)+b'\n"
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
    with tempfile.TemporaryDirectory() as home:
        user_file = Path(home) / "rules.toml"
        user_file.write_text(USER_RULES, encoding="utf-8")
        rules = shipped_rule_patterns(user_file)
    for name, linear in rules.items():
        uses[name] = (linear.span, linear.source, re.IGNORECASE)
    return uses


def main() -> None:
    worst_s, worst, growth, slowest_growth, titles = 0.0, "", 0.0, 0.0, 0
    uses = _uses()
    for name, (run, source, flags) in uses.items():
        pairs = title_pairs(source, flags)
        titles += len(pairs)
        timed = [(_best(run, large, 3), small, large) for small, large in pairs]
        seconds, small, large = max(timed)
        if seconds > worst_s:
            worst_s, worst = seconds, name
        # This pattern's slowest title, timed with care at both sizes (no early stop).
        slowest_growth = max(
            slowest_growth,
            _best(run, large, 5) / _best(run, small, 5, calls=SMALL_CALLS),
        )
        growth = max(growth, _steepest(run, pairs)[0])
    print(
        json.dumps(
            {
                "patterns": len(uses),
                "titles": titles,
                "worst_ms": round(worst_s * 1e3, 3),
                "worst": worst,
                "slowest_titles_growth": round(slowest_growth, 1),
                "worst_growth_as_tested": round(growth, 1),
                "growth_limit": GROWTH_LIMIT,
            }
        )
    )


if __name__ == "__main__":
    main()
