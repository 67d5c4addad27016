"""What several test modules share: the API client, loaders for the golden day and
the sample, comparisons of whole databases, and the recipes of the template
databases that tests start from (see `preloaded` in conftest.py).

Test modules import from here, never from each other; conftest.py holds fixtures.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from psycopg.conninfo import make_conninfo

from app.db.connection import drop_database, ensure_database
from app.demo.sample import SampleData, generate_sample
from app.enrich.client import ModelClient
from app.ingest.records import RecordBatch, ingest_batch
from app.pyramid.build import backfill
from app.runtime.auth import hash_token, new_token
from app.settings import Settings
from app.store.accounts import UserContext
from tests.fake_openai import FakeOpenAI

if TYPE_CHECKING:  # the API and the services load on first use: the pure tier needs neither
    from fastapi.testclient import TestClient

    from app.runtime.services import Services

FIXTURES = Path(__file__).parent / "fixtures"
NOW = datetime(2026, 11, 30, tzinfo=UTC)  # long after every sentinel date


# The loopback names, and the name Starlette's TestClient sends as Host.
TEST_HOSTS = "localhost,127.0.0.1,::1,testserver"


def url_for(admin: str, database: str) -> str:
    return make_conninfo(admin, dbname=database)


def isolated_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No TIMETRACE_* setting of the machine running the tests leaks into them."""
    for key in list(os.environ):
        if key.startswith("TIMETRACE_") and key != "TIMETRACE_TEST_DATABASE_URL":
            monkeypatch.delenv(key)


# -- the API as a client sees it ------------------------------------------------------------


class Api:
    """A test client acting for one user with a token and registered devices."""

    def __init__(self, client: TestClient, user: UserContext, token: str) -> None:
        self.client = client
        self.user = user
        self.token = token
        self.auth = {"Authorization": f"Bearer {token}"}

    def post(self, path: str, body: Any) -> Any:
        # json.dumps escapes non-ASCII, so even a lone surrogate travels as JSON does.
        headers = {**self.auth, "Content-Type": "application/json"}
        return self.client.post(path, content=json.dumps(body), headers=headers)

    def ingest(self, device_id: str, records: list[dict[str, Any]]) -> Any:
        return self.post("/api/v1/records", {"device_id": device_id, "records": records})


def new_token_for(services: Services, user: UserContext, *, name: str = "test") -> str:
    """A fresh API token of `user` (as `timetrace token create` makes one)."""
    token = new_token()
    services.store.add_token(user_id=user.user_id, token_hash=hash_token(token), name=name)
    return token


def make_api(
    services: Services,
    *,
    user_name: str = "tester",
    time_zone: str = "Asia/Shanghai",
    devices: tuple[str, ...] = ("laptop", "desktop", "phone"),
) -> Api:
    user = services.store.ensure_user(name=user_name, time_zone=time_zone, day_cut_hour=4)
    token = new_token_for(services, user)
    for device_id in devices:
        services.store.add_device(user_id=user.user_id, device_id=device_id, name="", kind="other")
    from fastapi.testclient import TestClient

    from app.api import create_app

    return Api(
        TestClient(create_app(services=services), raise_server_exceptions=False), user, token
    )


# -- loading data ----------------------------------------------------------------------------


def read_golden_day() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / "golden_day.json").read_text(encoding="utf-8"))
    return data


def load_golden(
    services: Services,
    golden: dict[str, Any],
    *,
    skip: set[str] = frozenset(),
    until: datetime | None = None,
) -> Api:
    """Ingest the golden day (without `skip`, and only what had ended by `until`)."""
    api = make_api(services, time_zone=golden["time_zone"])
    for device_id, records in golden["records"].items():
        kept = [
            r
            for r in records
            if r["client_record_id"] not in skip
            and (until is None or datetime.fromisoformat(r.get("ts_end", r["ts_start"])) <= until)
        ]
        if kept:
            assert api.ingest(device_id, kept).status_code == 200
    return api


def ingest_sample(services: Services, data: SampleData) -> UserContext:
    user = services.store.ensure_user(name="sample", time_zone=data.time_zone, day_cut_hour=4)
    for device_id, kind, name in data.devices:
        services.store.add_device(user_id=user.user_id, device_id=device_id, name=name, kind=kind)
    for body in data.batches():
        ingest_batch(
            services.store, user=user, batch=RecordBatch.model_validate(body), rules=services.rules
        )
    return user


# -- reading data back -------------------------------------------------------------------------


# An episode's members: the live records of its device whose position (start, key)
# lies in its span (as the app reads them, sql/queries/*.sql).
SPAN_MEMBERS = """
JOIN records r
  ON r.user_id = e.user_id AND r.device_id = e.device_id AND r.deleted_at IS NULL
 AND r.ts_start BETWEEN e.ts_start AND e.last_start
 AND (r.ts_start, r.client_record_id COLLATE "C") >= (e.ts_start, e.first_key COLLATE "C")
 AND (r.ts_start, r.client_record_id COLLATE "C") <= (e.last_start, e.last_key COLLATE "C")
"""


def episodes_by_first_record(conn: Any) -> dict[str, dict[str, Any]]:
    """Current episodes by their first member's key, each with its members' keys."""
    rows = conn.execute(
        "SELECT e.*, array_agg(r.client_record_id ORDER BY r.ts_start, r.client_record_id "
        f'COLLATE "C") AS members FROM episodes e {SPAN_MEMBERS} WHERE NOT e.stale '
        "GROUP BY e.user_id, e.episode_id ORDER BY e.device_id, e.ts_start"
    ).fetchall()
    return {row["members"][0]: row for row in rows}


def unbuilt_keys(conn: Any) -> list[str]:
    """The keys of the live records in no current episode (open tail, marked days)."""
    return [
        r["client_record_id"]
        for r in conn.execute(
            "SELECT client_record_id FROM v_record_episodes WHERE episode_id IS NULL "
            'ORDER BY user_id, device_id, ts_start, client_record_id COLLATE "C"'
        )
    ]


def span_violations(conn: Any) -> list[str]:
    """What breaks the invariant: each live record's start lies in exactly one closed,
    current episode span of its device once that span has closed. So: current spans of
    a device never overlap; every live record up to its device's watermark, on a day
    not marked for a rebuild, lies in one; and each span holds exactly the members it
    was built from (frame_count)."""
    overlaps = conn.execute("""
        SELECT episode_id FROM (
            SELECT episode_id, last_start, last_key,
                   lead(ts_start) OVER w AS next_start, lead(first_key) OVER w AS next_key
            FROM episodes WHERE NOT stale
            WINDOW w AS (PARTITION BY user_id, device_id ORDER BY ts_start, first_key COLLATE "C")
        ) e
        WHERE (next_start, next_key COLLATE "C") <= (last_start, last_key COLLATE "C")
    """).fetchall()
    outside = conn.execute("""
        SELECT v.client_record_id FROM v_record_episodes v
        CROSS JOIN LATERAL (
            SELECT last_start, last_key FROM episodes x
            WHERE x.user_id = v.user_id AND x.device_id = v.device_id
            ORDER BY x.ts_start DESC, x.first_key COLLATE "C" DESC LIMIT 1
        ) w
        WHERE v.episode_id IS NULL
          AND (v.ts_start, v.client_record_id COLLATE "C") <= (w.last_start, w.last_key COLLATE "C")
          AND NOT EXISTS (SELECT 1 FROM build_marks m WHERE m.user_id = v.user_id
                            AND m.device_id = v.device_id AND m.day_local = v.day_local)
    """).fetchall()
    miscounted = conn.execute(f"""
        SELECT e.episode_id, e.frame_count, count(r.record_id) AS members
        FROM episodes e LEFT {SPAN_MEMBERS.strip()}
        WHERE NOT e.stale AND e.closed
        GROUP BY e.user_id, e.episode_id HAVING count(r.record_id) <> e.frame_count
    """).fetchall()
    notclosed = conn.execute("SELECT episode_id FROM episodes WHERE NOT closed").fetchall()
    return (
        [f"episode {r['episode_id']} overlaps the next" for r in overlaps]
        + [f"record {r['client_record_id']} is below the watermark in no span" for r in outside]
        + [
            f"episode {r['episode_id']}: {r['members']} members, built from {r['frame_count']}"
            for r in miscounted
        ]
        + [f"episode {r['episode_id']} is not closed" for r in notclosed]
    )


def snapshot(conn: Any) -> dict[str, str]:
    """A digest of every row of every table (ours and the job queue's); a partitioned
    table's rows count once, under its own name (records), not its partitions'."""
    tables = [
        r["relname"]
        for r in conn.execute(
            "SELECT relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition "
            "ORDER BY relname"
        )
    ]
    out = {}
    for table in tables:
        row = conn.execute(
            "SELECT count(*) AS n, "
            "md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) AS h "
            f'FROM "{table}" t'
        ).fetchone()
        out[table] = f"{row['n']}:{row['h']}"
    return out


# -- the model layer against the scripted server ---------------------------------------------


def with_models(services: Services, fake: FakeOpenAI, **extra: Any) -> tuple[Services, ModelClient]:
    from app.runtime.services import Services

    settings = services.settings.model_copy(
        update={
            "llm_base_url": fake.url,
            "embedding_base_url": fake.url,
            "llm_backoff_s": 0.01,
            **extra,
        }
    )
    models = ModelClient(settings)
    return Services(
        settings=settings,
        store=services.store,
        rules=services.rules,
        url=services.url,
        models=models,
    ), models


def events_of(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The Server-Sent Events of a whole streamed answer, as (kind, data)."""
    out = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            out.append((fields["event"], json.loads(fields["data"])))
    return out


# -- template databases with data in them ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Preloaded:
    """What a test finds in a database copied from a recipe's template."""

    user: UserContext
    data: SampleData  # the sample's ground truth (shared by every test: read only)


@cache
def sample_data(start: date, days: int, seed: int, mean_record_s: int) -> SampleData:
    """The sample and its ground truth, generated once per session (it is deterministic)."""
    return generate_sample(start=start, days=days, seed=seed, mean_record_s=mean_record_s)


@dataclass(frozen=True, slots=True)
class SampleRecipe:
    """A template's data: `generate_sample` ingested through the ingest path and, when
    `built`, the pyramid built by `backfill` at NOW, just as a test doing the same in a
    fresh database would leave it (its `build_episodes` jobs still waiting)."""

    start: date
    days: int
    seed: int
    mean_record_s: int = 45
    built: bool = True

    def data(self) -> SampleData:
        return sample_data(self.start, self.days, self.seed, self.mean_record_s)

    def load(self, services: Services) -> Preloaded:
        data = self.data()
        user = ingest_sample(services, data)
        if self.built:
            backfill(services.store, now=NOW, settings=services.settings)
        return Preloaded(user=user, data=data)


SAMPLE_MONTH = SampleRecipe(start=date(2003, 3, 1), days=31, seed=5)  # March 2003, built


class TemplateDatabases:
    """One template database per recipe, derived from the migrated template and built on
    first use; tests get `CREATE DATABASE … TEMPLATE` copies of it."""

    def __init__(self, *, admin_url: str, base: str, data_dir: Path) -> None:
        self._admin_url = admin_url
        self._base = base
        self._data_dir = data_dir
        self._built: dict[SampleRecipe, tuple[str, Preloaded]] = {}

    def template(self, recipe: SampleRecipe) -> tuple[str, Preloaded]:
        """The template's name and what it holds."""
        if recipe not in self._built:
            name = f"tt_data_{os.getpid()}_{len(self._built)}"
            drop_database(self._admin_url, database=name)
            ensure_database(self._admin_url, database=name, template=self._base)
            url = url_for(self._admin_url, name)
            with pytest.MonkeyPatch.context() as monkeypatch:
                isolated_env(monkeypatch)
                settings = Settings(_env_file=None, database_url=url, data_dir=self._data_dir)
                # Leaving the block closes the pool: a database with open connections
                # cannot be a template.
                from app.runtime.services import open_services

                with open_services(settings, url=url, auto_migrate=False) as services:
                    preloaded = recipe.load(services)
            self._built[recipe] = (name, preloaded)
        return self._built[recipe]

    def drop_all(self) -> None:
        for name, _ in self._built.values():
            drop_database(self._admin_url, database=name)
        self._built.clear()
