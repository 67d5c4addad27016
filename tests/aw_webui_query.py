"""aw-webui's own Activity query, as its vendored build (tests/fixtures/aw-webui,
`js/1172.*.js`: `fullDesktopQuery`, `canonicalEvents`, `browserEvents`) writes it and
its `querystr_to_array` splits it into the statements of `POST /api/0/query/`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

# The build's browsers (in its order), their exact app names and their regexes.
BROWSERS: dict[str, list[str]] = {
    "chrome": ["com.google.Chrome", "com.google.ChromeDev", "org.chromium.Chromium"],
    "firefox": ["org.mozilla.firefox", "io.gitlab.librewolf-community", "net.waterfox.waterfox"],
    "opera": ["com.opera.Opera"],
    "brave": ["com.brave.Browser"],
    "edge": ["com.microsoft.Edge", "com.microsoft.EdgeDev"],
    "arc": [],
    "vivaldi": ["com.vivaldi.Vivaldi"],
    "orion": ["Orion"],
    "yandex": ["ru.yandex.Browser"],
    "zen": ["app.zen_browser.zen"],
    "floorp": ["one.ablaze.floorp"],
    "helium": ["net.imput.helium"],
}
REGEX: dict[str, str] = {
    "chrome": "(?i)^(google[-_ ]?chrome|chrome|chromium)",
    "firefox": "(?i)(firefox|librewolf|waterfox|nightly)",
    "opera": "(?i)(opera)",
    "brave": "(?i)(brave)",
    "edge": "(?i)^(microsoft[-_ ]?edge|msedge)",
    "arc": "(?i)^arc(\\.exe)?$",
    "vivaldi": "(?i)(vivaldi)",
    "orion": "(?i)(orion)",
    "yandex": "(?i)(yandex)",
    "zen": "(?i)(zen)",
    "floorp": "(?i)(floorp)",
    "helium": "(?i)(helium)",
}
LIMIT = 100


def _js(value: object) -> str:
    """JSON.stringify."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _bucket(bid: str) -> str:
    return f'query_bucket(find_bucket("{bid}"))' if bid.endswith("_") else f'query_bucket("{bid}")'


def _browsers(bid_browsers: Sequence[str]) -> str:
    code = "\n    browser_events = [];\n  "
    for name, apps in BROWSERS.items():
        bucket = next((b for b in bid_browsers if name in b), None)
        if bucket is None:
            continue
        code += (
            f'events_{name} = flood(query_bucket("{bucket}"));\n'
            f'       window_{name} = filter_keyvals(events, "app", {_js(apps)});'
            f'\n       window_{name}_re = filter_keyvals_regex(events, "app", {_js(REGEX[name])});'
            f"\n       window_{name} = sort_by_timestamp(concat(window_{name}, window_{name}_re));"
            f"\n       events_{name} = filter_period_intersect(events_{name}, window_{name});"
            f"\n       events_{name} = split_url_events(events_{name});"
            f"\n       browser_events = concat(browser_events, events_{name});"
            "\n       browser_events = sort_by_timestamp(browser_events);"
        )
    return code


def _canonical(p: dict[str, Any]) -> str:
    categories = _js(p["categories"]).replace("\\\\", "\\")
    always = p.get("always_active_pattern")
    not_afk = (
        f"not_afk = flood({_bucket(p['bid_afk'])});\n"
        '         not_afk = filter_keyvals(not_afk, "status", ["not-afk"]);'
    )
    if always:
        not_afk += (
            f'not_treat_as_afk = filter_keyvals_regex(events, "app", "{always}");\n'
            "             not_afk = period_union(not_afk, not_treat_as_afk);\n"
            f'             not_treat_as_afk = filter_keyvals_regex(events, "title", "{always}");\n'
            "             not_afk = period_union(not_afk, not_treat_as_afk);"
        )
    audible = (
        'audible_events = filter_keyvals(browser_events, "audible", [true]);\n'
        "             not_afk = period_union(not_afk, audible_events);"
    )
    stopwatch = p.get("bid_stopwatch")
    return "\n".join([
        f"events = flood({_bucket(p['bid_window'])});",
        "",
        not_afk,
        _browsers(p["bid_browsers"]) + (audible if p.get("include_audible") else ""),
        "events = filter_period_intersect(events, not_afk);" if p["filter_afk"] else "",
        f'stopwatch_events = query_bucket("{stopwatch}");\n'
        "         events = union_no_overlap(stopwatch_events, events);"
        if stopwatch else "stopwatch_events = [];",
        f"events = categorize(events, {categories});",
        f'events = filter_keyvals(events, "$category", {_js(p["filter_categories"])});'
        if p.get("filter_categories") else "",
        "",
    ])  # fmt: skip


def _tail() -> str:
    return f"""
    title_events = sort_by_duration(merge_events_by_keys(events, ["app", "title"]));
    app_events   = sort_by_duration(merge_events_by_keys(title_events, ["app"]));
    cat_events   = sort_by_duration(merge_events_by_keys(events, ["$category"]));

    app_events  = limit_events(app_events, {LIMIT});
    title_events  = limit_events(title_events, {LIMIT});
    duration = sum_durations(events);

    browser_events = split_url_events(browser_events);
    browser_urls = merge_events_by_keys(browser_events, ["url"]);
    browser_urls = sort_by_duration(browser_urls);
    browser_urls = limit_events(browser_urls, {LIMIT});
    browser_domains = merge_events_by_keys(browser_events, ["$domain"]);
    browser_domains = sort_by_duration(browser_domains);
    browser_domains = limit_events(browser_domains, {LIMIT});
    browser_titles = merge_events_by_keys(browser_events, ["title"]);
    browser_titles = sort_by_duration(browser_titles);
    browser_titles = limit_events(browser_titles, {LIMIT});
    browser_duration = sum_durations(browser_events);
    stopwatch_events = merge_events_by_keys(stopwatch_events, ["label"]);
    stopwatch_events = sort_by_duration(stopwatch_events);
    stopwatch_events = limit_events(stopwatch_events, {LIMIT});

    RETURN = {{
        "window": {{
            "app_events": app_events,
            "title_events": title_events,
            "cat_events": cat_events,
            "active_events": not_afk,
            "duration": duration
        }},
        "browser": {{
            "domains": browser_domains,
            "urls": browser_urls,
            "titles": browser_titles,
            "duration": browser_duration
        }},
        "stopwatch": {{
            "stopwatch_events": stopwatch_events
        }}
    }};"""


def statements(text: str) -> list[str]:
    """`querystr_to_array`: split at `;` outside strings, each statement trimmed."""
    out: list[str] = []
    current, in_string, escaped = "", False, False
    for char in text:
        if escaped:
            current, escaped = current + char, False
        elif char == "\\" and in_string:
            current, escaped = current + char, True
        elif char == '"':
            current, in_string = current + char, not in_string
        elif char == ";" and not in_string:
            if current.strip():
                out.append(current.strip() + ";")
            current = ""
        else:
            current += char
    if current.strip():
        out.append(current.strip() + ";")
    return out


def webui_activity_query(
    *,
    window: str,
    afk: str,
    browsers: Sequence[str],
    categories: Sequence[Any],
    filter_afk: bool = True,
    include_audible: bool = True,
    always_active_pattern: str | None = None,
    filter_categories: list[list[str]] | None = None,
    stopwatch: str | None = None,
) -> list[str]:
    """The statements aw-webui's Activity view sends (its defaults: afk filtered,
    audible tabs count, no stopwatch bucket, no category filter)."""
    params = {
        "bid_window": window.replace('"', '\\"'),
        "bid_afk": afk.replace('"', '\\"'),
        "bid_browsers": [b.replace('"', '\\"') for b in browsers],
        "bid_stopwatch": stopwatch,
        "filter_afk": filter_afk,
        "categories": list(categories),
        "filter_categories": filter_categories,
        "include_audible": include_audible,
        "always_active_pattern": always_active_pattern,
    }
    return statements("\n    " + _canonical(params) + _tail())
