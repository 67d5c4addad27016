"""Privacy at the door: an event is redacted as it is stored, by the same privacy rules
records are (`rule_text`), so that no table, read or export of the door holds what a
record would not.

    private = Privacy(rules)
    kept = private.stored(event)      # the event, redacted where the rules say; None: drop

A window or browser-tab event whose app, title, URL or incognito flag a `redact` rule
matches keeps its other fields, its title and URL blanked, and `"incognito": true`
(ActivityWatch's own word for a private window): the conversion then redacts its record
as it redacts an incognito one, and the importer's private-window rule reaches the
window events beside an incognito tab. An event a `drop` rule matches is not stored,
as such a record is not.

A window is also private when an incognito tab showed in it, which only the conversion
sees (the tab is another bucket's event): it tells the door (`hide_window`), which from
then on redacts that window's heartbeats as it stores them, and redacts the ones stored
already (`aw_redact_windows`).
"""

from __future__ import annotations

from typing import Any

from app.awdoor.events import AwEvent, data_json
from app.importers.spill import canonical
from app.ingest.ruled import rule_text
from app.rules.categories import Rules

_HIDDEN = ("title", "url")


class Privacy:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        # Window data (canonical JSON) the conversion saw private, for as long as the
        # door runs (added by the conversion's thread, read by the door's: a set's add
        # and lookup are atomic).
        self.windows: set[str] = set()

    def hide_window(self, text: str) -> None:
        self.windows.add(text)

    def stored(self, event: AwEvent) -> AwEvent | None:
        """`event` as the door stores it: unchanged, redacted in place, or None (drop)."""
        data = event.data
        title, url = data.get("title"), data.get("url")
        if title is None and url is None:
            return event  # afk status, an input count: no text the rules read
        app = data.get("app") or data.get("package") or ""
        ruled = rule_text(
            self.rules,
            app=app if isinstance(app, str) else "",
            title=title if isinstance(title, str) else "",
            url=url if isinstance(url, str) and url else None,
            idle=False,
            incognito=data.get("incognito") is True,
        )
        if ruled.drop:
            return None
        if ruled.redacted or (self.windows and canonical(data) in self.windows):
            event.data = redacted(data)
            event.data_json = data_json(event.data)
        return event


def redacted(data: dict[str, Any]) -> dict[str, Any]:
    """Data with its title and URL blanked and marked private."""
    out = {key: ("" if key in _HIDDEN else value) for key, value in data.items()}
    out["incognito"] = True
    return out
