"""How answers say amounts, things and periods, in the question's language only:
"18 minutes (0.3 h)" under an hour or when minutes were asked for, "3.5 hours" else;
a category as "work" or "工作", never both.

    duration(1080, "en")            # "18 minutes (0.3 h)"
    duration(12600, "zh")           # "3.5 小时"
"""

from __future__ import annotations

from app.agent.cues import GROUP_LABELS_ZH
from app.rules.categories import CATEGORY_LABELS_ZH
from app.text import Language, has_cjk
from app.tools.results import ThingInfo

# Answers say social as people ask for it (社交); the web pages keep 沟通.
_CATEGORIES_ZH: dict[str, str] = {str(k): v for k, v in CATEGORY_LABELS_ZH.items()} | {
    "social": "社交"
}


def t(language: Language, zh: str, en: str) -> str:
    return zh if language == "zh" else en


def duration(seconds: float, language: Language, *, minutes: bool = False) -> str:
    """An amount of time as a person says it; the hours stay beside the minutes."""
    hours = round(seconds / 3600, 2)
    if seconds >= 3600 and not minutes:
        return t(language, f"{hours} 小时", f"{hours} hours" if hours != 1 else "1 hour")
    whole = round(seconds / 60)
    said = t(language, f"{whole} 分钟", f"{whole} minute{'s' if whole != 1 else ''}")
    return f"{said} ({hours} h)"


def category_label(name: str, language: Language) -> str:
    return _CATEGORIES_ZH.get(name, name) if language == "zh" else name


def thing_label(thing: ThingInfo | None, fallback: str, language: Language) -> str:
    """A thing as the answer names it: its label in the answer's language."""
    if thing is None:
        return fallback
    if thing.kind == "category":
        return category_label(thing.name, language)
    if thing.kind == "idle":
        return t(language, "离开/空闲", "away (idle or locked)")
    if thing.matched_by == "group" and language == "zh":
        return GROUP_LABELS_ZH.get(thing.label, thing.label)
    return in_language(thing.label or thing.name or fallback, thing.name, language)


def in_language(label: str, name: str, language: Language) -> str:
    """A Chinese label ("哔哩哔哩") in an English answer is said by its Latin name
    ("bilibili.com") when it has one."""
    if language == "en" and has_cjk(label) and name and not has_cjk(name):
        return name
    return label


def percent(share: float) -> str:
    return f"{round(share * 100, 1):g}%"


def days_list(days: list[str], language: Language) -> str:
    return t(language, "、", ", ").join(days)
