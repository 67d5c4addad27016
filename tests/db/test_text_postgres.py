"""PostgreSQL's full-text search matches a document and a query tokenised by the CJK-aware
tokenizer alike."""

from __future__ import annotations

from typing import Any

import pytest

from app.db.store_tools import tsquery
from app.text import fts_document, keyword_terms


@pytest.mark.parametrize(
    ("document", "query", "hit"),
    [
        ("修复登录页面的 bug", "登录", True),
        ("修复登录页面的 bug", "页面 BUG", True),
        ("修复登录页面的 bug", "注册", False),
        ("修复登录页面的 bug", "注册 登录", True),  # any term may match
        ("Reading EM-LLM on arXiv", "arxiv em", True),
        ("打开 https://github.com/acme/timetrace/pull/42", "github.com", True),
        ("打开 https://github.com/acme/timetrace/pull/42", "timetrace", True),
        ("今天写代码", "写代码", True),
        ("今天写代码", "代写", False),
    ],
)
def test_postgres_matches_documents_and_queries_tokenised_alike(
    conn: Any, document: str, query: str, hit: bool
) -> None:
    expression = tsquery(keyword_terms(query))
    assert expression is not None
    row = conn.execute(
        "SELECT to_tsvector('simple', %s) @@ to_tsquery('simple', %s) AS hit",
        [fts_document(document), expression],
    ).fetchone()
    assert row["hit"] is hit
