"""The CJK-aware tokenizer, token estimator and language guess."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.db.store_tools import tsquery
from app.text import (
    canonical_domain,
    estimate_tokens,
    has_cjk,
    keyword_terms,
    language_of,
    tokenize,
)


def test_chinese_runs_become_overlapping_bigrams() -> None:
    assert tokenize("修复登录") == ["修复", "复登", "登录"]


def test_single_cjk_character_is_kept() -> None:
    assert tokenize("在 上") == ["在", "上"]


def test_english_is_lower_cased_words() -> None:
    assert tokenize("Fix Flaky ingest_test, v2!") == ["fix", "flaky", "ingest", "test", "v2"]


def test_mixed_chinese_and_english() -> None:
    assert tokenize("用 pytest 跑测试") == ["用", "pytest", "跑测", "测试"]


def test_japanese_and_korean_are_cjk_too() -> None:
    assert tokenize("カタカナ") == ["カタ", "タカ", "カナ"]
    assert tokenize("한국어") == ["한국", "국어"]


def test_urls_split_into_host_and_path_words() -> None:
    tokens = tokenize("看 https://www.Bilibili.com/video/BV1xx?t=30 视频")
    assert tokens[0] == "看" and tokens[-1] == "视频"
    assert {"bilibili", "com", "video", "bv1xx", "bilibili.com"} <= set(tokens)
    assert "www" not in tokens


def test_canonical_domain() -> None:
    assert canonical_domain("https://WWW.GitHub.com:443/a/b") == "github.com"
    assert canonical_domain("docs.python.org/3/") == "docs.python.org"
    assert canonical_domain(None) is None
    assert canonical_domain("") is None
    assert canonical_domain("http://[::1") is None


def test_keyword_query_ands_within_a_term_and_ors_across_terms() -> None:
    assert tsquery(keyword_terms("登录 登录 bug")) == "'登录' | 'bug'"
    assert tsquery(keyword_terms("修复登录")) == "('修复' & '复登' & '登录')"
    assert keyword_terms("  !!! ") == [] and tsquery([]) is None
    assert tsquery(keyword_terms("it's")) == "('it' & 's')"


def test_token_estimate_counts_cjk_characters_one_each() -> None:
    assert estimate_tokens("你好世界") == 4
    assert estimate_tokens("") == 0
    assert estimate_tokens(None) == 0


def test_token_estimate_for_english_words_and_symbols() -> None:
    assert estimate_tokens("hello world") == 4  # ceil(5/4) twice
    assert estimate_tokens('{"a": 1}') == 7  # a, 1 and five symbols
    assert estimate_tokens("  \n ") == 0


def test_token_estimate_errs_high_for_typical_text() -> None:
    # Known token counts (cl100k / Qwen2 tokenizers): ~10 and ~12 tokens.
    assert estimate_tokens("The quick brown fox jumps over the lazy dog.") >= 10
    assert estimate_tokens("我今天下午在写代码，然后看了视频。") >= 12


@given(st.text(), st.text())
def test_token_estimate_adds_up_over_parts(a: str, b: str) -> None:
    # A cap computed over the parts of an output holds for the whole output.
    assert estimate_tokens(a + " " + b) == estimate_tokens(a) + estimate_tokens(b)


@given(st.text())
def test_tokenize_never_fails_and_yields_no_blank_tokens(text: str) -> None:
    assert all(token and not token.isspace() for token in tokenize(text))


def test_the_language_is_chinese_once_a_fifth_of_the_letters_are_cjk() -> None:
    assert language_of("调试 支付回调超时 in VS Code") == "zh"
    assert language_of("Debugging the payment callback timeout, 测试") == "en"
    assert language_of("abcd一") == "zh"  # exactly a fifth
    assert language_of("12:30 — 42") == "en"  # no letters at all
    assert has_cjk("Zoom · 会") and has_cjk("한국어") and not has_cjk("Zoom — café")
