"""search_episodes: hybrid search over episode titles and summaries.

pgvector cosine over summary embeddings and tsvector over the shared CJK-aware
tokenizer, fused with Reciprocal Rank Fusion (k = 60). Whenever the query cannot
be embedded (no endpoint, an endpoint that is down or answers vectors of the
wrong shape) the search runs on keywords alone and says so: `mode: keyword`
with a `reason`. `hybrid` is said only when the semantic side ranked an episode
with an embedding; with none embedded in range yet, it is `keyword` too, and why.

A capped answer gives a `cursor`: the next page is the same search, on the first
call's clock and counting only episodes that started before it (so episodes added
meanwhile cannot move the ranking), from the first hit not shown yet.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from app.boundary import Day
from app.errors import InvalidInputError, TimeTraceError
from app.rules.things import CategoryName
from app.text import StorableStr, keyword_terms
from app.tools.paging import PagedArgs, PagedResult, pager, read_cursor
from app.tools.reads import Episode, episode_line
from app.tools.registry import ToolArgs, ToolContext, tool
from app.tools.results import opt

CANDIDATES = 40


class SearchArgs(ToolArgs, PagedArgs):
    query: StorableStr = Field(
        min_length=1, max_length=500, description="words or a phrase, 中文或英文"
    )
    date_from: Day | None = None
    date_to: Day | None = None
    category: CategoryName | None = None
    k: int = Field(8, ge=1, le=30, description="how many episodes")
    include_neighbors: bool = Field(False, description="add the episode before and after each hit")

    @model_validator(mode="after")
    def _dates_in_order(self) -> Self:
        if self.date_from and self.date_to and self.date_to < self.date_from:
            raise ValueError("date_to is before date_from")
        return self


def _query_embedding(ctx: ToolContext, query: str) -> tuple[list[float] | None, str | None]:
    """The query's vector, or None and why it could not be had."""
    if ctx.models is None or not ctx.models.embeddings_enabled:
        return None, "no embedding endpoint is configured"
    if not ctx.models.available("embedding"):
        return None, "the embedding endpoint failed recently"
    try:
        return ctx.models.embed([query], interactive=True)[0], None
    except TimeTraceError as exc:  # down, refused, or vectors of the wrong shape
        return None, exc.message


class Hit(Episode):
    score: float = Field(description="the fused rank score, higher first")
    before: Episode | None = opt("include_neighbors: the episode just before")
    after: Episode | None = opt("include_neighbors: the episode just after")


class SearchResult(PagedResult):
    mode: Literal["hybrid", "keyword"]
    reason: str | None = opt("why the search ran on keywords alone")
    items: list[Hit]
    note: str | None = opt()


@tool(
    tier="2",
    cap_tokens=2_500,
    description="""
Find episodes by meaning or keywords ("when did I debug the payment callback", "看 B 站视频"),
with optional dates and category; include_neighbors adds what came just before and after.
按语义或关键词搜索 episode。
""",
)
def search_episodes(ctx: ToolContext, args: SearchArgs) -> SearchResult:
    embedding, reason = _query_embedding(ctx, args.query)
    terms = keyword_terms(args.query)
    if embedding is None and not terms:
        return SearchResult(
            items=[], mode="keyword", reason=reason, note="the query has no searchable words"
        )
    shown = _shown(args)
    rows = ctx.store.search_episodes(
        user_id=ctx.user.user_id,
        terms=terms,
        embedding=embedding,
        day_from=args.date_from,
        day_to=args.date_to,
        category=args.category,
        k=args.k,
        candidates=CANDIDATES,
        before=ctx.now,
    )
    if embedding is not None and not any(row.semantic_rank is not None for row in rows):
        # The semantic side had no candidate: no episode in range is embedded yet.
        embedding = None
        reason = "no episode in range has an embedding yet: ranked by keywords"
    rows = rows[shown:]
    neighbors: dict[int, dict[str, Episode]] = {}
    if args.include_neighbors and rows:
        for n in ctx.store.episode_neighbors(
            user_id=ctx.user.user_id, ids=[r.episode_id for r in rows]
        ):
            neighbors.setdefault(n.of_id, {})[n.side] = episode_line(n, ctx, summary=False)
    items = []
    for row in rows:
        around = neighbors.get(row.episode_id, {})
        line = episode_line(row, ctx).model_dump()
        items.append(
            Hit(
                **line,
                score=round(row.score, 4),
                before=around.get("before"),
                after=around.get("after"),
            )
        )
    return SearchResult(
        mode="hybrid" if embedding is not None else "keyword", reason=reason, items=items
    ).paged(pager(tool="search_episodes", args=args, now=ctx.now, position=lambda n: shown + n))


def _shown(args: SearchArgs) -> int:
    """How many hits the pages before a cursor's showed."""
    if args.cursor is None:
        return 0
    shown = read_cursor(args.cursor, tool="search_episodes").after
    if type(shown) is not int or not 0 < shown <= args.k:
        raise InvalidInputError("cursor: not a cursor of search_episodes: pass it back unchanged")
    return shown
