"""aw-webui's own Activity query, recognised: the text its build sends, not aw-client's.

    shape = recognise_webui(text)   # None: not that query (the engine, or the other form)

aw-webui's `queries.ts` (`fullDesktopQuery`, the Activity view) writes a query that
differs from aw-client's builder (app/awdoor/canonical.py): it reads the window and afk
buckets by id (`query_bucket("…")`, or `find_bucket` for an id ending in `_`), matches a
browser's windows by a regular expression as well as by name, may count "always active"
apps and titles as not-afk, sets `stopwatch_events` (empty, or a stopwatch bucket's
events), does not return `events`, and returns the browser's titles and the stopwatch
events merged. Its head acts on each event or on neighbours a few seconds apart, as
aw-client's does, so the same pieces answer it (app/awdoor/daycache.py).

Recognised: with the whitespace outside its strings taken out, the text is that
build's output with only its parameters free (bucket ids, browsers and their app
names, the "always active" pattern, audible tabs, the afk filter, the categories, the
category filter, the limits). A stopwatch bucket is not recognised (its events come
newest first into `union_no_overlap`, whose answer then depends on the whole period):
the engine answers that query. Every literal is read as query2 reads it: a string
holds no backslash before a quote, so that no statement can hide in it.
"""

from __future__ import annotations

import functools
import re

from app.awdoor.canonical import Shape, categories_ok, head_of, squeezed

_S = r'"[^"\\]*"'  # a bucket id or an app name: no escapes
# A regular expression: a backslash only before a character that is neither a quote
# nor a backslash, so that query2 and this reading end the string at the same quote.
_RE = r'"(?:[^"\\]|\\\\[^"\\])*"'
_LIST = rf"\[(?:{_S}(?:,{_S})*)?\]"
_BUCKET = rf"query_bucket\((?:find_bucket\((?P<{{0}}_find>{_S})\)|(?P<{{0}}>{_S}))\)"
_HEAD = re.compile(
    rf"events=flood\({_BUCKET.format('window')}\);"
    rf"not_afk=flood\({_BUCKET.format('afk')}\);"
    r'not_afk=filter_keyvals\(not_afk,"status",\["not-afk"\]\);'
    rf'(?P<always>not_treat_as_afk=filter_keyvals_regex\(events,"app",{_RE}\);'
    r"not_afk=period_union\(not_afk,not_treat_as_afk\);"
    rf'not_treat_as_afk=filter_keyvals_regex\(events,"title",{_RE}\);'
    r"not_afk=period_union\(not_afk,not_treat_as_afk\);)?"
    r"browser_events=\[\];"
    rf"(?P<browsers>(?:events_(?P<b>\w+)=flood\(query_bucket\({_S}\)\);"
    rf'window_(?P=b)=filter_keyvals\(events,"app",{_LIST}\);'
    rf'(?:window_(?P=b)_re=filter_keyvals_regex\(events,"app",{_RE}\);'
    r"window_(?P=b)=sort_by_timestamp\(concat\(window_(?P=b),window_(?P=b)_re\)\);)?"
    r"events_(?P=b)=filter_period_intersect\(events_(?P=b),window_(?P=b)\);"
    r"events_(?P=b)=split_url_events\(events_(?P=b)\);"
    r"browser_events=concat\(browser_events,events_(?P=b)\);"
    r"browser_events=sort_by_timestamp\(browser_events\);)*)"
    r'(?P<audible>audible_events=filter_keyvals\(browser_events,"audible",\[true\]\);'
    r"not_afk=period_union\(not_afk,audible_events\);)?"
    r"(?:events=filter_period_intersect\(events,not_afk\);)?"
    r"stopwatch_events=\[\];"
)
_BROWSER = re.compile(rf"(?<!\w)events_\w+=flood\(query_bucket\(({_S})\)\);")
_CATEGORIZE = "events=categorize(events,"
_MERGES = 'title_events=sort_by_duration(merge_events_by_keys(events,["app","title"]));'
_TAIL = re.compile(
    re.escape(_MERGES)
    + r'app_events=sort_by_duration\(merge_events_by_keys\(title_events,\["app"\]\)\);'
    r'cat_events=sort_by_duration\(merge_events_by_keys\(events,\["\$category"\]\)\);'
    r"app_events=limit_events\(app_events,(?P<apps>\d+)\);"
    r"title_events=limit_events\(title_events,(?P<titles>\d+)\);"
    r"duration=sum_durations\(events\);"
    r"browser_events=split_url_events\(browser_events\);"
    r'browser_urls=merge_events_by_keys\(browser_events,\["url"\]\);'
    r"browser_urls=sort_by_duration\(browser_urls\);"
    r"browser_urls=limit_events\(browser_urls,(?P<urls>\d+)\);"
    r'browser_domains=merge_events_by_keys\(browser_events,\["\$domain"\]\);'
    r"browser_domains=sort_by_duration\(browser_domains\);"
    r"browser_domains=limit_events\(browser_domains,(?P<domains>\d+)\);"
    r'browser_titles=merge_events_by_keys\(browser_events,\["title"\]\);'
    r"browser_titles=sort_by_duration\(browser_titles\);"
    r"browser_titles=limit_events\(browser_titles,(?P<tabs>\d+)\);"
    r"browser_duration=sum_durations\(browser_events\);"
    r'stopwatch_events=merge_events_by_keys\(stopwatch_events,\["label"\]\);'
    r"stopwatch_events=sort_by_duration\(stopwatch_events\);"
    r"stopwatch_events=limit_events\(stopwatch_events,\d+\);"
    r'RETURN=\{"window":\{"app_events":app_events,"title_events":title_events,'
    r'"cat_events":cat_events,"active_events":not_afk,"duration":duration\},'
    r'"browser":\{"domains":browser_domains,"urls":browser_urls,'
    r'"titles":browser_titles,"duration":browser_duration\},'
    r'"stopwatch":\{"stopwatch_events":stopwatch_events\}\};'
)


@functools.lru_cache(maxsize=64)
def recognise_webui(text: str) -> Shape | None:
    """aw-webui's Activity query's parameters, or None when `text` is not that query."""
    flat = squeezed(text)
    at, merges = flat.find(_CATEGORIZE), flat.find(_MERGES)
    if at < 0 or merges < at:
        return None
    head = _HEAD.fullmatch(flat, 0, at)
    tail = _TAIL.fullmatch(flat, merges)
    if head is None or tail is None or not categories_ok(flat[at + len(_CATEGORIZE) : merges]):
        return None
    window, afk = head["window"] or head["window_find"], head["afk"] or head["afk_find"]
    if (head["window"] is None) != (head["afk"] is None):
        return None  # aw-webui reads both by id, or both by find_bucket
    head_text = head_of(text)
    if head_text is None:
        return None
    return Shape(
        head=head_text,
        window=window[1:-1],
        afk=afk[1:-1],
        browsers=tuple(b[1:-1] for b in _BROWSER.findall(head["browsers"])),
        union=head["audible"] is not None or head["always"] is not None,
        limits=(int(tail["apps"]), int(tail["titles"]), int(tail["urls"]),
                int(tail["domains"]), int(tail["tabs"])),
        webui=True,
        exact=head["window"] is not None,
    )  # fmt: skip
