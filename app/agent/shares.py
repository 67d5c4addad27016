"""The two sides of a share: the part, and the whole it is a share of. The whole is
active time unless the question names it: "of my work time", "娱乐里面抖音", or a
category beside an app or a site ("GitHub in work"). "My screen time" as a side is
active time, the default whole.
"""

from __future__ import annotations

import re

from app.agent.lexicon import ACTIVE, Mention
from app.agent.parts import Parts
from app.rules.categories import CATEGORIES

# Words right after a whole ("work time", 娱乐里面) or right before it ("of my work").
_AFTER_WHOLE = re.compile(r"^\s*(?:time\b|hours\b|里面|里头|里|之中|当中|中)", re.IGNORECASE)
_BEFORE_WHOLE = re.compile(r"(?:\b(?:of|out of|in)\s+(?:my\s+|the\s+)?|在)$", re.IGNORECASE)


def _names_a_whole(parts: Parts, mention: Mention) -> bool:
    start, end = mention.span
    after, before = parts.question[end:], parts.question[:start]
    return bool(_AFTER_WHOLE.search(after) or _BEFORE_WHOLE.search(before))


def share_sides(parts: Parts) -> tuple[Mention, Mention | None]:
    """The part, and the whole when it is not active time."""
    named = list({m.name: m for m in reversed(parts.things)}.values())[::-1]
    others = [m for m in named if m.name != ACTIVE]
    if not others:
        return parts.things[0], None
    if len(others) == 1:
        return others[0], None
    first, second = others[0], others[1]
    wholes = [m for m in (first, second) if _names_a_whole(parts, m)]
    if len(wholes) != 1:
        wholes = [m for m in (first, second) if m.name in CATEGORIES]
    if len(wholes) != 1:
        return first, None
    whole = wholes[0]
    return (second if whole is first else first), whole
