"""No pattern that meets captured text takes more than linear time on a title, whatever
the title: every shipped pattern (found by walking the package, so a new one cannot slip
past) and a user's rules, each on titles built from its own near-misses repeated to 4 KiB
— the shape that makes a backtracking engine rescan the same text from every start.

Time is compared, never asserted: each title is timed at 4 KiB and at a sixteenth of
that, built from the same fragment. Linear work grows 16 times; quadratic work 256 times
(and a catastrophic pattern far more). The bound sits between them, 4 times from each,
so a loaded machine, which slows both sizes alike, cannot fail a linear pattern.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import app
from app.errors import ConfigError
from app.patterns import MAX_PATTERN_CHARS, LinearPattern, capped
from app.rules.categories import load_rules

pytestmark = pytest.mark.heavy

TITLE_CHARS = 4_096
SMALL_CHARS = TITLE_CHARS // 16
# How much slower a title may be at TITLE_CHARS than at SMALL_CHARS: 16 for linear work
# (less where a call's fixed cost shows), 256 for quadratic.
GROWTH_LIMIT = 64
# Characters tried for a class; the first one the class accepts stands for it.
_CHARS = ["a", "Z", "1", " ", ".", "-", "_", "/", "(", ")", "修", "\u3000", "é", ":", "\n", "#"]
# Generic fragments every pattern also meets.
_GENERIC = ["a", " ", "a.", "1 ", "修", "a ", "(1", " - ", "1:", ".-", "a" * 7 + " "]

_parser: Any = getattr(re, "_parser")  # noqa: B009 - sre's parser, to build near-misses
_compiler: Any = getattr(re, "_compiler")  # noqa: B009
_c: Any = getattr(re, "_constants")  # noqa: B009


def _one_char(node: tuple[Any, Any], flags: int) -> str:
    state = _parser.State()
    state.flags = flags
    compiled = _compiler.compile(_parser.SubPattern(state, [node]), flags)
    return next((ch for ch in _CHARS if compiled.fullmatch(ch)), "")


def _sample(nodes: Any, flags: int) -> str:
    """One short string that matches the node sequence (empty where none is easy)."""
    out = []
    for op, arg in nodes:
        if op is _c.LITERAL:
            out.append(chr(arg))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)):
            low, high, sub = arg
            out.append(_sample(sub, flags) * max(low, min(high, 2)))
        elif op is _c.SUBPATTERN:
            out.append(_sample(arg[-1], flags))
        elif op is getattr(_c, "ATOMIC_GROUP", None):
            out.append(_sample(arg, flags))
        elif op is _c.BRANCH:
            out.append(_sample(arg[1][0], flags))
        elif op in (_c.IN, _c.ANY, _c.NOT_LITERAL, _c.CATEGORY):
            out.append(_one_char((op, arg), flags))
    return "".join(out)


_REPEATS = {_c.MAX_REPEAT, _c.MIN_REPEAT, getattr(_c, "POSSESSIVE_REPEAT", None)}


def _prefixes(nodes: Any, flags: int, depth: int = 0) -> list[str]:
    """Strings that match a growing prefix of the node sequence, going into branches,
    groups and repeats (their own prefixes after what comes before them)."""
    out: list[str] = []
    head = ""
    for op, arg in nodes:
        out.append(head)
        inner: list[Any] = []
        if op is _c.BRANCH:
            inner = list(arg[1])
        elif op is _c.SUBPATTERN:
            inner = [arg[-1]]
        elif op in _REPEATS:
            inner = [arg[2]]
        if depth < 4:
            for alternative in inner:
                out += [head + p for p in _prefixes(alternative, flags, depth + 1)]
        head += _sample([(op, arg)], flags)
    out.append(head)
    return out


def near_misses(source: str, flags: int = 0) -> list[str]:
    """Fragments that match a growing prefix of each alternative of the pattern."""
    try:
        tree = _parser.parse(source, flags)
    except re.error:  # RE2-only syntax (\\pL, \\x{…}): the generic fragments still run
        return []
    found = dict.fromkeys(p for p in _prefixes(list(tree), tree.state.flags) if p)
    return list(found)[:400]


def adversarial_titles(source: str, flags: int = 0, *, chars: int = TITLE_CHARS) -> list[str]:
    """Titles of at most `chars` characters, each a near-miss fragment repeated (in one
    order whatever `chars` is, so the titles of two sizes pair up)."""
    titles = []
    for fragment in [*near_misses(source, flags), *_GENERIC]:
        for glue in ("", " ", "."):
            unit = fragment + glue
            # Whole units: both sizes end alike, so neither finds a match the other misses.
            titles.append(unit * max(1, (chars - 1) // len(unit)) + "!")
    return titles


def title_pairs(source: str, flags: int = 0) -> list[tuple[str, str]]:
    """Each adversarial title at SMALL_CHARS and at TITLE_CHARS."""
    small = adversarial_titles(source, flags, chars=SMALL_CHARS)
    return list(zip(small, adversarial_titles(source, flags), strict=True))


# Patterns only ever matched at one position (`.match(text, pos)`), timed that way.
ANCHORED = {
    "app.importers.jsonstream._BETWEEN[0]",
    "app.awdoor.canonical._HEAD[0]",  # fullmatch from the query's start
    "app.awdoor.canonical._MERGES_THEN[0]",  # fullmatch from where the merges start
    "app.awdoor.webui_shape._HEAD[0]",  # fullmatch from the query's start
    "app.awdoor.webui_shape._TAIL[0]",  # fullmatch from where the merges start
}
# Patterns that never meet captured text, with why.
NOT_CAPTURED = {
    "app.enrich.quality._DATES": "reads a model's answer (at most 4,000 characters); linear",
    "app.agent.dates": "reads only the asker's question (at most 4,000 characters)",
    "app.agent.intents": "reads only the asker's question (at most 4,000 characters)",
    "app.agent.intent_words": "reads only the asker's question (at most 4,000 characters)",
    "app.agent.followups": "reads only the asker's question (at most 4,000 characters)",
    "app.agent.parts": "reads only the asker's question (at most 4,000 characters)",
    "app.agent.windows": "reads only the asker's question (at most 4,000 characters)",
    "app.agent.lexicon": "reads only the asker's question (at most 4,000 characters)",
    "app.enrich.negotiation": "reads a model server's error message",
    "app.db": "reads the SQL files and migration names shipped with the code",
    "app.tools.instants": "fullmatches one instant argument, cut to 80 characters",
}


def _walk() -> tuple[dict[str, re.Pattern[str]], dict[str, LinearPattern]]:
    """Every compiled pattern held at module level anywhere in the package, alone or in a
    tuple, list or dict: Python's and RE2's."""
    found: dict[str, re.Pattern[str]] = {}
    linear: dict[str, LinearPattern] = {}
    for info in pkgutil.walk_packages(app.__path__, prefix="app."):
        if any(info.name.startswith(prefix) for prefix in NOT_CAPTURED):
            continue
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if f"{info.name}.{name}" in NOT_CAPTURED:
                continue
            items = value if isinstance(value, tuple | list) else [value]
            if isinstance(value, dict):
                items = [*value.keys(), *value.values()]
            for index, item in enumerate(items):
                for sub in item if isinstance(item, tuple) else [item]:
                    if isinstance(sub, re.Pattern) and isinstance(sub.pattern, str):
                        found[f"{info.name}.{name}[{index}]"] = sub
                    elif isinstance(sub, LinearPattern):
                        linear[f"{info.name}.{name}[{index}]"] = sub
    return found, linear


def shipped_code_patterns() -> dict[str, re.Pattern[str]]:
    return _walk()[0]


def shipped_rule_patterns(user_file: Path | None = None) -> dict[str, LinearPattern]:
    """Every RE2 pattern: the code's own, and the rules' (categories, privacy, browser
    suffixes, sites)."""
    rules = load_rules(user_file=user_file)
    found: dict[str, LinearPattern] = dict(_walk()[1])
    for rule in [*rules.excludes, *rules.categories]:
        for field, pattern in rule.patterns:
            found[f"rule {rule.name}.{field}"] = pattern
    for index, suffix in enumerate(rules.apps.suffixes):
        found[f"browser_suffix[{index}]"] = suffix
    for site in rules.apps.sites:
        if site.title is not None:
            found[f"site {site.domain}"] = site.title
    return found


def _best(run: Callable[[str], object], title: str, tries: int, *, calls: int = 1) -> float:
    """The best time of `calls` calls in a row, per call, over `tries` tries."""
    best = float("inf")
    for _ in range(tries):
        started = time.perf_counter()
        for _ in range(calls):
            run(title)
        best = min(best, (time.perf_counter() - started) / calls)
    return best


# The small title is timed over this many calls in a row, so that both sizes are timed
# over about the same stretch of time: a pause of the machine is as likely in either.
SMALL_CALLS = TITLE_CHARS // SMALL_CHARS


def _steepest(run: Callable[[str], object], pairs: list[tuple[str, str]]) -> tuple[float, str]:
    """The largest growth in time from a small title to its large twin, with the large
    title. A pair over the limit is timed again, a few tries a size, keeping each
    size's best time: a busy machine's pause is not taken for growth."""
    worst, worst_title = 0.0, ""
    for small, large in pairs:
        small_s = _best(run, small, 1, calls=SMALL_CALLS)
        large_s = _best(run, large, 1)
        for _ in range(5):
            if large_s / small_s < GROWTH_LIMIT:
                break
            small_s = min(small_s, _best(run, small, 3, calls=SMALL_CALLS))
            large_s = min(large_s, _best(run, large, 5))
        if large_s / small_s > worst:
            worst, worst_title = large_s / small_s, large
    return worst, worst_title


def test_the_walk_finds_the_patterns_that_meet_titles() -> None:
    code = shipped_code_patterns()
    names = set(code)
    for expected in ("app.pyramid.signals.SOURCE_FILE", "app.text._TITLE_NOISE", "app.rules.apps"):
        assert any(name.startswith(expected) for name in names), expected
    rules = shipped_rule_patterns()
    assert "rule private-window-title.title" in rules and "browser_suffix[0]" in rules
    assert "app.pyramid.signals.FAILURE[0]" in rules
    assert len(code) >= 30 and len(rules) >= 20


def test_the_growth_check_tells_quadratic_from_linear() -> None:
    """A pattern that rescans the rest of the title from every start grows about 256
    times from the small titles to the large; one that does not, about 16 at most."""
    quadratic = re.compile(r"\w+@")  # every start runs to the end of a word of 4 KiB
    # A few titles: each is timed again and again, since each stays over the limit. A
    # busy machine inflates the small titles' runs most (which hides growth more than it
    # fakes it): a few tries, and one that shows it is enough.
    pairs = title_pairs(quadratic.pattern)[:3]
    assert any(_steepest(quadratic.search, pairs)[0] >= GROWTH_LIMIT for _ in range(5))
    linear = re.compile(r"(?<!\w)\w+@")  # only a word's first character starts a scan
    assert _steepest(linear.search, title_pairs(linear.pattern))[0] < GROWTH_LIMIT


@pytest.mark.parametrize("name", sorted(shipped_code_patterns()))
def test_code_pattern_is_linear_on_adversarial_titles(name: str) -> None:
    pattern = shipped_code_patterns()[name]
    pairs = title_pairs(pattern.pattern, pattern.flags)

    uses: list[Callable[[str], object]] = (
        [pattern.match] if name in ANCHORED else [pattern.search, pattern.findall]
    )
    for use in uses:
        worst, title = _steepest(lambda text, use=use: use(capped(text)), pairs)  # type: ignore[misc]
        where = f"{name}.{use.__name__}"
        assert worst < GROWTH_LIMIT, f"{where}: {worst:.0f}x slower on {title[:40]!r}…"


def test_rule_patterns_are_linear_on_adversarial_titles(tmp_path: Path) -> None:
    user_file = tmp_path / "rules.toml"
    # Classic catastrophic patterns a person might write; RE2 runs them in linear time.
    user_file.write_text(
        "[[category]]\nname = 'nested'\ncategory = 'work'\ntitle = '^(a+)+$'\n"
        "[[exclude]]\nname = 'words'\naction = 'redact'\ntitle = '^(\\w+\\s?)*$'\n"
        "[[category]]\nname = 'alternation'\ncategory = 'study'\napp = '(a|aa)+b'\n",
        encoding="utf-8",
    )
    patterns = shipped_rule_patterns(user_file)
    assert {"rule nested.title", "rule words.title", "rule alternation.app"} <= set(patterns)
    slow = []
    for name, pattern in patterns.items():
        worst, title = _steepest(pattern.span, title_pairs(pattern.source, re.IGNORECASE))
        if worst >= GROWTH_LIMIT:
            slow.append(f"{name}: {worst:.0f}x slower on {title[:40]!r}…")
    assert not slow


def test_the_rules_decide_a_hostile_title_quickly(tmp_path: Path) -> None:
    """The whole decision (app identity, site from the title, privacy, category) on
    titles shaped against the browser suffixes and title clean-up."""
    rules = load_rules(user_file=None)

    def hostile(chars: int) -> list[str]:
        return [
            "(1 " * (chars // 3) + " - Google Chrome",
            " " * chars + "- Mozilla Firefox",
            "a - " * (chars // 4),
            "(" + "1" * (chars - 1),
        ]

    pairs = list(zip(hostile(SMALL_CHARS), hostile(TITLE_CHARS), strict=True))
    worst, title = _steepest(
        lambda text: rules.classify(app="chrome.exe", title=text, domain=None), pairs
    )
    assert worst < GROWTH_LIMIT, f"{worst:.0f}x slower on {title[:40]!r}…"


def test_a_user_rule_re2_cannot_run_is_a_config_error_naming_it(tmp_path: Path) -> None:
    user_file = tmp_path / "rules.toml"
    user_file.write_text(
        "[[category]]\nname = 'lookahead'\ncategory = 'work'\ntitle = 'foo(?!bar)'\n",
        encoding="utf-8",
    )
    with pytest.raises(ConfigError, match=r"lookahead.*RE2"):
        load_rules(user_file=user_file)


def test_patterns_see_at_most_the_cap() -> None:
    pattern = LinearPattern.compile("needle")
    assert pattern.matches("x" * (MAX_PATTERN_CHARS - 6) + "needle")
    assert not pattern.matches("x" * MAX_PATTERN_CHARS + "needle")
    assert pattern.span("修改 needle") == (3, 9)  # characters, not UTF-8 bytes
