"""Finding the things a question mentions: the longest names it contains from a
lexicon of the resolver's vocabulary (app/rules/things.py: categories, idle words,
groups, apps, aliases, nicknames, sites), the user's own apps and domains, and the
agent's extra names (app/agent/cues.py). A word a letter or two from a name of four
or more letters is that name (a typo); every other word is ignored, never made a name.

    lexicon = Lexicon.of(ctx)
    lexicon.find("how many minutes on Slak yesterday?")   # [Mention(text="Slak", name="Slack")]
"""

from __future__ import annotations

import re
import time
import weakref
from dataclasses import dataclass, field

from app.agent.cues import (
    ACTIVE_NAMES,
    CODING_GROUP,
    CODING_NAMES,
    EXTRA_NAMES,
    MEETING_GROUP,
    MEETING_NAMES,
    NOT_NAMES,
    TYPO_NICKNAMES,
)
from app.agent.title_aliases import known_aliases
from app.agent.title_words import other_forms
from app.agent.titles import MAX_TITLES, proper_names, title_phrases
from app.rules.things import loose, vocabulary_for
from app.text import CJK_CHARS
from app.tools.registry import ToolContext
from app.tools.user_categories import category_mentions

ACTIVE = "active"  # the mention of "the computer": active time
_TOKEN = re.compile(rf"[A-Za-z0-9]+(?:[.'’+#_-][A-Za-z0-9]+)*[+#]*|[{CJK_CHARS}]")
_LATIN = re.compile(r"[a-z0-9]")
# CJK characters typed for one another (same sound): "工做" is 工作.
_CONFUSED = str.maketrans("做", "作")
MAX_TOKENS = 6  # the longest name, in words or CJK characters
_SHIPPED: dict[int, tuple[object, Lexicon]] = {}  # per loaded app identities (rules load once)
NAMES_TTL_S = 60.0
_BUILT: weakref.WeakKeyDictionary[object, dict[tuple[int, int], tuple[float, Lexicon]]] = (
    weakref.WeakKeyDictionary()
)


@dataclass(frozen=True, slots=True)
class Mention:
    """A thing a question names: the words as written, where, and the name to ask for."""

    text: str
    name: str  # what the tools resolve ("Slack", "bilibili.com", "work", "idle", ACTIVE)
    span: tuple[int, int]
    typo: bool = False
    title: bool = False  # words of the user's window titles (app/agent/titles.py)


@dataclass(slots=True)
class Lexicon:
    """Names by their loose form, each with the mention the tools resolve."""

    names: dict[str, str] = field(default_factory=dict)
    # The names a typo may be of: whole names (apps, sites, categories), no aliases
    # such as "photosapp" that a longer word is a couple of letters from.
    whole: set[str] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)  # the keys that are title phrases
    # Short proper names of titles ("Lin"): found only where the question capitalises them.
    proper: set[str] = field(default_factory=set)
    title_text: str = ""  # the user's recent titles, lowercase, one a line

    @classmethod
    def of(cls, ctx: ToolContext) -> Lexicon:
        """The shipped vocabulary, the agent's extra names and the user's own names,
        built again after NAMES_TTL_S: the names change slowly, and reading them costs
        more than answering."""
        try:
            per_user = _BUILT.setdefault(ctx.store, {})
        except TypeError:  # a store that takes no weak references
            per_user = {}
        key = (ctx.user.user_id, id(ctx.rules.apps))
        cached = per_user.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < NAMES_TTL_S:
            return cached[1]
        lexicon = cls._built(ctx)
        per_user[key] = (now, lexicon)
        return lexicon

    @classmethod
    def _built(cls, ctx: ToolContext) -> Lexicon:
        shipped = _SHIPPED.get(id(ctx.rules.apps))
        if shipped is None or shipped[0] is not ctx.rules.apps:
            shipped = _SHIPPED[id(ctx.rules.apps)] = (ctx.rules.apps, cls.shipped(ctx))
        lexicon = Lexicon(dict(shipped[1].names), set(shipped[1].whole))
        known = ctx.store.known_names(user_id=ctx.user.user_id, title=None)
        for row in known:
            lexicon.add(row.app, row.app, whole=True)
            if row.domain:
                lexicon.add(row.domain, row.domain)
                stem = row.domain.split(".")[0]
                if len(stem) >= 3 and stem not in ("www", "m", "mail"):
                    lexicon.add(stem, row.domain, whole=True)
        lexicon.add_meetings(ctx, {row.app for row in known})
        # The user's own categories over the kinds' words ("games": Games).
        lexicon.names.update(category_mentions(known, lexicon.names))
        lexicon.add_titles(ctx)
        return lexicon

    def add_meetings(self, ctx: ToolContext, apps: set[str]) -> None:
        """开会, meetings: the meeting apps when the user has one, else social; 写代码,
        coding: the code editors when the user has one, else work."""
        groups = vocabulary_for(ctx.rules.apps).groups
        for label, words, otherwise in (
            (MEETING_GROUP, MEETING_NAMES, "social"),
            (CODING_GROUP, CODING_NAMES, "work"),
        ):
            group = groups.get(label)
            has = group is not None and bool(apps & set(group.apps))
            for name in words:
                self.names[loose(name)] = label if has else otherwise

    def add_titles(self, ctx: ToolContext) -> None:
        """The phrases of the user's recent window titles, below every other name."""
        titles = ctx.store.recent_titles(user_id=ctx.user.user_id, limit=MAX_TITLES)
        for phrase in title_phrases(titles):
            self._add_title(phrase, phrase)
            for form in other_forms(phrase):  # 发票 finds "invoice_2026_06.pdf"
                self._add_title(form, phrase)
        for word, piece in proper_names(titles).items():
            if self._add_title(word, piece):  # "Lin": "Direct message with Lin"
                self.proper.add(loose(word))
        self.title_text = "\n".join(titles).lower()
        for form, other in known_aliases(self.title_text):  # CSAPP: 深入理解计算机系统
            self._add_title(form, other)

    def _add_title(self, form: str, phrase: str) -> bool:
        key = loose(form)
        if not key or key in self.names:
            return False
        self.names[key] = phrase
        self.titles.add(key)
        return True

    @classmethod
    def shipped(cls, ctx: ToolContext) -> Lexicon:
        vocabulary = vocabulary_for(ctx.rules.apps)
        lexicon = cls()
        for key in vocabulary.idle:
            lexicon.names[key] = "idle"
        for key, category in vocabulary.categories.items():
            lexicon.names[key] = str(category)
        for key, group in vocabulary.groups.items():
            lexicon.names[key] = group.label
        for key, app in vocabulary.app_names.items():
            lexicon.names.setdefault(key, app)
        for key, domain in vocabulary.site_names.items():
            lexicon.names[key] = domain
        lexicon.whole = {loose(app) for app in vocabulary.app_names.values()}
        lexicon.whole |= set(vocabulary.site_names) | set(vocabulary.categories)
        for name, mention in EXTRA_NAMES.items():  # over an alias: "code" is coding
            lexicon.names[loose(name)] = mention
        for name in ACTIVE_NAMES:
            lexicon.add(name, ACTIVE)
        lexicon.whole |= {loose(n) for n in TYPO_NICKNAMES if loose(n) in lexicon.names}
        return lexicon

    def add(self, name: str, mention: str, *, whole: bool = False) -> None:
        key = loose(name)
        if key and not (len(key) < 2 and _LATIN.match(key)):
            self.names.setdefault(key, mention)
            if whole:
                self.whole.add(key)

    def find(self, question: str) -> list[Mention]:
        """Every thing the question names, left to right, longest name first."""
        tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(question)]
        found: list[Mention] = []
        i = 0
        while i < len(tokens):
            mention = self._longest(question, tokens, i)
            if mention is None:
                mention = self._typo(question, tokens[i])
            if mention is not None:
                found.append(mention)
                while i < len(tokens) and tokens[i][0] < mention.span[1]:
                    i += 1
                continue
            i += 1
        return _titles_alone(question, found, self.title_text)

    def title_holding(self, name: str) -> str | None:
        """The shortest title phrase that holds a name ("原神 新版本 PV" for 原神), or
        None when no title of the user's holds it."""
        key = loose(name)
        if len(key) < 2:
            return None
        found = [self.names[k] for k in self.titles if key in k and k != key]
        return min(found, key=lambda phrase: (len(phrase), phrase)) if found else None

    def names_in(self, question: str) -> list[str]:
        """The things a question names, as it writes them (never "the computer")."""
        return [m.text for m in self.find(question) if m.name != ACTIVE]

    def _longest(self, question: str, tokens: list[tuple[int, int]], i: int) -> Mention | None:
        for j in range(min(len(tokens), i + MAX_TOKENS), i, -1):
            start, end = tokens[i][0], tokens[j - 1][1]
            text = question[start:end]
            key = loose(text)
            if j - i == 1 and key in NOT_NAMES:
                return None
            name = self.names.get(key) or self.names.get(key.translate(_CONFUSED))
            if key in self.proper and not text[:1].isupper():
                continue  # "Lin" the person, never "lin" inside a sentence
            if name is not None and not (len(key) < 2 and _LATIN.match(key)):
                return Mention(text=text, name=name, span=(start, end), title=key in self.titles)
        return None

    def _typo(self, question: str, token: tuple[int, int]) -> Mention | None:
        """A Latin word of four or more letters within an edit (two from seven letters)
        of a whole name that starts with the same letter."""
        text = question[token[0] : token[1]]
        key = loose(text)
        if len(key) < 4 or key in NOT_NAMES or not key.isascii() or not key.isalpha():
            return None
        most = 1 if len(key) < 7 else 2
        best: tuple[int, str] | None = None
        for name in self.whole:
            if len(name) >= 4 and name[0] == key[0] and abs(len(name) - len(key)) <= most:
                distance = edit_distance(key, name, most)
                if distance <= most and (best is None or distance < best[0]):
                    best = (distance, self.names[name])
        if best is None:
            return None
        return Mention(text=text, name=best[1], span=token, typo=True)


def _titles_alone(question: str, found: list[Mention], title_text: str) -> list[Mention]:
    """A question naming a title names it alone ("work on segmenter.py" is no question
    about work; "roadmap 2026 那个notion页面" asks for the page). Title phrases that
    touch are one title when a title holds them so (a long CJK title is found a few
    characters at a time); two titles of one question are the one it asks about
    ("周杰伦的晴天": 晴天)."""
    titles: list[Mention] = []
    for mention in (m for m in found if m.title):
        last = titles[-1] if titles else None
        if last is not None and last.span[1] == mention.span[0]:
            span = (last.span[0], mention.span[1])
            text = question[span[0] : span[1]]
            if text.lower() in title_text:
                titles[-1] = Mention(text=text, name=text, span=span, title=True)
                continue
        titles.append(mention)
    if len(titles) == 2:
        return [_head_title(question, titles[0], titles[1])]
    return titles or found


# Between two titles, words that make the second the one asked about ("周杰伦的晴天").
_OF = re.compile(r"^\s*(?:的|之|'s|’s)?\s*$")


def _head_title(question: str, first: Mention, second: Mention) -> Mention:
    """Of two titles one question names, the one it asks about: the second after "的"
    or nothing between (artist, then song), else the first ("晴天 by 周杰伦")."""
    gap = question[first.span[1] : second.span[0]]
    return second if _OF.match(gap) else first


def edit_distance(a: str, b: str, most: int) -> int:
    """Edits (insert, delete, replace, swap two neighbours) from one short word to
    another, or `most + 1` once it is past `most`."""
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, 1):
        current = [i]
        for j, other in enumerate(b, 1):
            cost = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char != other))
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                cost = min(cost, before[j - 2] + 1)  # "Chorme": a swap is one edit
            current.append(cost)
        if min(current) > most:
            return most + 1
        before, previous = previous, current
    return previous[-1]
