"""Model calls and tokens per day of activity, for the sample month.

    python bench/llm_calls.py                 # against the scripted endpoint (tests/fake_openai.py)
    python bench/llm_calls.py --base-url URL  # against a real OpenAI-compatible server

Builds the pyramid for the sample month, then the model layer (summaries,
embeddings, narratives), and counts the calls and the tokens the server
reports. Ends with one JSON line:
{"llm_calls_per_day": …, "episodes_per_day": …, "prompt_tokens_per_day": …, …}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.demo.sample import generate_sample
from app.enrich.client import ModelClient
from app.jobs.catchup import enrich
from app.pyramid.build import backfill
from app.runtime.services import open_services
from bench._common import bench_database, load_sample


@contextlib.contextmanager
def endpoint(base_url: str | None, dim: int) -> Iterator[str]:
    if base_url:
        yield base_url
        return
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI(dim=dim) as fake:
        yield fake.url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--base-url", help="a real OpenAI-compatible endpoint (default: scripted)")
    parser.add_argument("--model", default=None)
    args = parser.parse_args()
    now = datetime.now(UTC)
    data = generate_sample(start=date(2026, 6, 1), days=args.days)
    with (
        bench_database("timetrace_bench_llm") as (url, base_settings),
        endpoint(args.base_url, base_settings.embedding_dim) as base_url,
    ):
        updates = {"llm_base_url": base_url, "embedding_base_url": base_url}
        if args.model:
            updates["llm_model"] = args.model
        settings = base_settings.model_copy(update=updates)
        with open_services(settings, url=url, auto_migrate=False) as services:
            store = services.store
            user = load_sample(services, data)
            backfill(store, now=now, settings=settings)
            models = ModelClient(settings)
            done = enrich(store, models, settings=settings, now=now)
            episodes = sum(
                c.n
                for c in store.episode_counts(
                    user_id=user.user_id, day_from=data.days[0], day_to=data.days[-1]
                )
            )
    days = len(data.days)
    usage = models.usage
    print(
        f"{episodes} episodes, {done.summaries} summaries, {done.narratives} narratives over "
        f"{days} days; {usage.calls['embedding']} embedding calls",
        file=sys.stderr,
    )
    print(
        json.dumps(
            {
                "llm_calls_per_day": round(usage.calls["chat"] / days, 1),
                "episodes_per_day": round(episodes / days, 1),
                "prompt_tokens_per_day": round(usage.prompt_tokens["chat"] / days),
                "completion_tokens_per_day": round(usage.completion_tokens["chat"] / days),
                "summaries_per_day": round(done.summaries / days, 1),
                "narratives_per_day": round(done.narratives / days, 2),
                "embedding_calls_per_day": round(usage.calls["embedding"] / days, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
