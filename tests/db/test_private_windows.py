"""Private windows of every major browser are redacted at ingest, and no text of their
titles survives anywhere in the database: records, episodes, search vectors, digests,
signals — with a model summarising what is left."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.demo.corpus import CorpusEntry, load_corpus
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.rules.categories import load_rules
from app.runtime.services import Services
from app.text import tokenize
from tests.fake_openai import FakeOpenAI
from tests.helpers import NOW, make_api, with_models

START = datetime(2003, 3, 12, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai
DEVICES = {"windows": "desktop", "macos": "laptop", "linux": "linuxbox", "android": "phone"}
APPS = load_rules(user_file=None).apps
TABLES = ("records", "record_analyses", "episodes", "digests", "signals", "labels")


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def _payloads(entries: list[CorpusEntry]) -> dict[str, list[dict[str, Any]]]:
    """The whole corpus as one day of one-minute records, per platform's device."""
    out: dict[str, list[dict[str, Any]]] = {d: [] for d in DEVICES.values()}
    for i, e in enumerate(entries):
        device = DEVICES[e.platform]
        start = START + timedelta(minutes=len(out[device]))
        out[device].append(
            {
                "client_record_id": f"c{i}",
                "ts_start": start.isoformat(),
                "ts_end": (start + timedelta(minutes=1)).isoformat(),
                "app": e.app,
                "window_title": e.title,
                **({"url": e.url} if e.url else {}),
            }
        )
    return out


def _secrets(private: list[CorpusEntry], kept: list[CorpusEntry]) -> tuple[set[str], set[str]]:
    """Texts and search tokens that only private titles hold (the rest may show up lawfully
    through other records, app names or the browser's own name)."""
    lawful_text = " ".join(f"{e.app} {APPS.canonical(e.app)} {e.title}" for e in kept)
    lawful_tokens = set(tokenize(lawful_text)) | set(tokenize(" ".join(APPS.aliases.values())))
    texts: set[str] = set()
    tokens: set[str] = set()
    for e in private:
        page = APPS.page_title(e.title)
        texts |= {t for t in (e.title, page) if len(t) >= 4 and t not in lawful_text}
        tokens |= set(tokenize(page)) - lawful_tokens
    return texts, tokens


@pytest.mark.slow
def test_no_private_title_text_survives_anywhere_in_the_database(
    services: Services, fake: FakeOpenAI, conn: Any
) -> None:
    corpus = list(load_corpus())
    private = [e for e in corpus if e.privacy == "redact"]
    kept = [e for e in corpus if e.privacy == "keep"]
    api = make_api(services, devices=tuple(DEVICES.values()))
    for device, records in _payloads(corpus).items():
        reply = api.ingest(device, records)
        assert reply.status_code == 200, reply.text
    redacted = conn.execute(
        "SELECT count(*) AS n FROM records WHERE redacted AND window_title = '' AND url IS NULL"
    ).fetchone()["n"]
    assert redacted == len(private) >= 30  # every one, and nothing else
    # The whole pyramid, with a model summarising and narrating what is left.
    services, models = with_models(services, fake)
    backfill(services.store, now=NOW, settings=services.settings)
    done = enrich(services.store, models, settings=services.settings, now=NOW)
    assert done.summaries > 0 and done.narratives > 0
    texts, tokens = _secrets(private, kept)
    assert len(texts) >= 30 and {"northwind", "tokyo", "宝网", "账号"} <= tokens | texts
    for table in TABLES:
        dump = "\n".join(r["t"] for r in conn.execute(f"SELECT t::text AS t FROM {table} t"))
        assert [t for t in texts if t in dump] == [], table
    vectors = {
        r["token"]
        for r in conn.execute(
            "SELECT unnest(tsvector_to_array(fts)) AS token FROM episodes WHERE fts IS NOT NULL "
            "UNION SELECT unnest(tsvector_to_array(fts)) FROM record_analyses WHERE fts IS NOT NULL"
        )
    }
    assert vectors and vectors.isdisjoint(tokens)
    prompts = " ".join(str(r["messages"]) for r in fake.requests)
    assert [t for t in texts if t in prompts] == []
