"""Through the whole model layer, a scrap a tiny model writes (`{`, `][`, an emoji, the
prompt's own header) never becomes a summary or a narrative: the episode keeps its
deterministic title and the digest no narrative, with the reason and the raw answer
stored."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from app.runtime.services import Services
from tests.db.test_model_servers import golden_with, summary_json
from tests.fake_openai import FakeOpenAI

# Scraps small models wrote (tests/unit/test_scrap_gate.py gives the gate each one).
SCRAPS = ["{", "][", "{{12:57,25}}", "{{36},{", " \n\t ", "🙂"]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(dim=384) as server:
        yield server


def _header_of(prompt: str) -> str:
    """The prompt's own header line, as a small model echoes it."""
    match = re.search(r"Episode \d{4}-.*", prompt) or re.search(r"day \d{4}-\S+", prompt)
    assert match is not None
    return match.group(0)


@pytest.mark.parametrize("scrap", [*SCRAPS, "header"])
def test_a_scrap_never_becomes_a_summary_or_a_narrative(
    services: Services, fake: FakeOpenAI, golden_day: dict[str, Any], conn: Any, scrap: str
) -> None:
    def answer(name: str, prompt: str) -> str | None:
        text = _header_of(prompt) if scrap == "header" else scrap
        if name == "episode_summary" and "invoice.pdf" in prompt:
            return summary_json(text, text, prompt)
        if name == "digest_narrative" and "day 2003-03-12" in prompt:
            return json.dumps({"narrative": text}, ensure_ascii=False)
        return None

    fake.override = answer
    golden_with(services, fake, golden_day)
    episode = conn.execute(
        "SELECT title, auto_title, summary, summary_by, summary_status, summary_reason, "
        "summary_raw FROM episodes WHERE auto_title = 'Preview · invoice.pdf'"
    ).fetchone()
    # The scrap is refused: the summary written by rule from the records stays.
    assert episode["summary_status"] == "failed" and episode["summary_by"] == "rules"
    assert episode["summary"] == "invoice.pdf\nGoogle Chrome"
    assert episode["title"] == episode["auto_title"]
    assert episode["summary_reason"] and json.loads(episode["summary_raw"])["title"]
    day = conn.execute(
        "SELECT narrative, narrative_status, narrative_reason, narrative_raw FROM digests "
        "WHERE scope_key = '2003-03-12'"
    ).fetchone()
    assert day["narrative_status"] == "failed" and day["narrative"] is None
    assert day["narrative_reason"] and json.loads(day["narrative_raw"])["narrative"]
    # The other episodes of the day are summarised as before: the gates refuse scraps only.
    done = conn.execute(
        "SELECT count(*) AS n FROM episodes WHERE summary_status = 'done'"
    ).fetchone()["n"]
    assert done > 0
