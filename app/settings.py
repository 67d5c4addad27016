"""One `Settings` object, read from `TIMETRACE_*` environment variables and `.env`.

from app.settings import get_settings
settings = get_settings()
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Self
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from platformdirs import user_data_dir
from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="TIMETRACE_", env_file=".env", env_ignore_empty=True, extra="ignore"
    )

    # Each field's description is its line in docs/settings.md (python -m app.cli.reference).

    # Storage. With no database URL, an embedded PostgreSQL runs in data_dir/pgdata.
    database_url: str | None = Field(
        None,
        description="PostgreSQL 15 or later with pgvector. Unset: the embedded server in "
        "`$TIMETRACE_DATA_DIR/pgdata`.",
    )
    data_dir: Path = Field(
        default_factory=lambda: Path(user_data_dir("timetrace")),
        description="Where the embedded database, uploaded imports and screenshots live "
        "(default: the platform's user data directory, `~/.local/share/timetrace` on Linux).",
    )
    pool_max_size: Annotated[int, Field(ge=1, le=200)] = Field(
        10, description="Database connections per process."
    )

    # Time: the logical day runs from cut hour to cut hour in the user's zone.
    time_zone: str = Field(
        "UTC",
        description="IANA time zone given to a new user when it is made (`token create`): "
        "set it before the first user.",
    )
    day_cut_hour: Annotated[int, Field(ge=0, le=23)] = Field(
        4, description="The logical day runs from this hour to the same hour the next day."
    )

    # API.
    host: str = Field(
        "127.0.0.1",
        description="Where `serve` listens; on an address other than loopback it serves "
        "nothing until an API token exists, and waits for one.",
    )
    port: Annotated[int, Field(ge=0, le=65535)] = Field(
        8787, description="The port `serve` listens on (web pages, API, OpenAI door, MCP)."
    )
    # Empty means the loopback names and `host`. Any other Host is refused with 400 — a
    # page served under an attacker's name (DNS rebinding) is not this site.
    allowed_hosts: str = Field(
        "",
        description="The names clients reach the API by (the `Host` header without port, "
        "comma-separated); any other gets a 400. Empty: the loopback names and the host.",
    )
    trusted_proxies: str = Field(
        "127.0.0.1,::1",
        description="Proxies whose `X-Forwarded-Proto` and `X-Forwarded-For` are believed "
        "(addresses, comma-separated; `*` for any): behind https, cookies get `Secure`.",
    )

    # Rules: a TOML file with [[category]] and [[exclude]] tables, read before the defaults.
    rules_file: Path | None = Field(
        None,
        description="Your category and privacy rules, app aliases and sites (TOML), read "
        "before the shipped ones.",
    )

    # Models: any OpenAI-compatible endpoint. Unset base URLs switch a role off.
    llm_base_url: str | None = Field(
        None, description="An OpenAI-compatible chat endpoint. Unset: no chat model."
    )
    llm_api_key: SecretStr = Field(SecretStr(""), description="The chat endpoint's key.")
    llm_model: str = Field("qwen3-8b", description="The chat model's name.")
    vision_base_url: str | None = Field(
        None, description="An OpenAI-compatible endpoint that describes screenshots. Unset: off."
    )
    vision_api_key: SecretStr | None = Field(
        None, description="The vision endpoint's key. Unset: the chat endpoint's."
    )
    vision_model: str = Field("qwen2.5-vl-7b-instruct", description="The vision model's name.")
    embedding_base_url: str | None = Field(
        None, description="An OpenAI-compatible embeddings endpoint. Unset: keyword search only."
    )
    embedding_api_key: SecretStr | None = Field(
        None, description="The embeddings endpoint's key. Unset: the chat endpoint's."
    )
    embedding_model: str = Field(
        "text-embedding-3-small", description="The embedding model's name."
    )
    embedding_dim: Annotated[int, Field(ge=8, le=4_000)] = Field(
        384,
        description="The embeddings' size, fixed when the schema is created: set it before "
        "the first `migrate`.",
    )
    llm_timeout_s: Annotated[float, Field(gt=0, le=600)] = Field(
        120, description="Seconds a model call may take."
    )
    llm_backoff_s: Annotated[float, Field(ge=0, le=600)] = Field(
        5,
        description="The first wait after a failed model call; it doubles up to 10 minutes.",
    )
    llm_concurrency: Annotated[int, Field(ge=1, le=64)] = Field(
        1, description="Model calls at once per process (one consumer GPU)."
    )
    model_slots: Annotated[int, Field(ge=1, le=64)] = Field(
        1,
        description="Worker slots for model jobs, beside (never instead of) the pyramid's.",
    )
    summary_input_tokens: Annotated[int, Field(ge=500, le=100_000)] = Field(
        10_000, description="The most an episode summary reads (estimated tokens)."
    )
    screenshot_dir: Path | None = Field(
        None,
        description="Where relative `screenshot_ref` paths resolve; nothing outside it is "
        "read. Unset: `$TIMETRACE_DATA_DIR/screenshots`.",
    )

    # Asking (the agent): what one question may read, and how deep_scan splits a window.
    agent_budget_tokens: Annotated[int, Field(ge=2_000, le=1_000_000)] = Field(
        40_000,
        description="What one question may read: history plus tool output (estimated tokens).",
    )
    deep_scan_pass_tokens: Annotated[int, Field(ge=500, le=1_000_000)] = Field(
        40_000,
        description="Raw tokens one `deep_scan` summariser call reads; wider windows are sliced.",
    )
    deep_scan_concurrency: Annotated[int, Field(ge=1, le=16)] = Field(
        2, description="`deep_scan` summariser calls at once."
    )

    # The worker. A job whose worker sent no heartbeat for `worker_stalled_s` (killed
    # mid-job) is put back in the queue; after losing the database the worker reconnects
    # with backoff and gives up (exit status 1) when it has been gone `worker_give_up_s`.
    worker_heartbeat_s: Annotated[float, Field(gt=0, le=300)] = Field(
        10, description="Seconds between a worker's heartbeats."
    )
    worker_stalled_s: Annotated[float, Field(gt=0, le=3_600)] = Field(
        30,
        description="The jobs of a worker silent this long go back to the queue (at least "
        "twice the heartbeat).",
    )
    worker_give_up_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = Field(
        600, description="A worker without a database this long exits with status 1."
    )
    health_queue_age_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = Field(
        600,
        description="`/healthz` and `timetrace status` say degraded when a job waits longer.",
    )
    health_stuck_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = Field(
        600,
        description="... and when a user's due jobs have seen none of theirs start for this "
        "long, or a job was stopped at its limit within it.",
    )
    # Jobs (app/jobs/limits.py).
    job_limit_s: Annotated[float, Field(gt=0, le=86_400)] = Field(
        300, description="A job's time limit: past it, stopped, recorded and failed visibly."
    )
    import_limit_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = Field(
        3_600, description="An import job's time limit."
    )
    job_step_s: Annotated[float, Field(gt=0, le=3_600)] = Field(
        20, description="A build yields its slot after this long, queueing the rest."
    )
    worker_shutdown_s: Annotated[float, Field(ge=0, le=60)] = Field(
        3,
        description="On SIGTERM, how long running jobs may finish before they are aborted "
        "and requeued.",
    )

    # Pyramid thresholds (docs/architecture.md, "Data rules" and "Write time").
    idle_gap_s: Annotated[int, Field(ge=10, le=3_600)] = Field(
        300, description="The cap on a record with no end, and the idle boundary."
    )
    max_episode_s: Annotated[int, Field(ge=300, le=6 * 3_600)] = Field(
        3_600, description="The longest episode."
    )
    switch_debounce_s: Annotated[int, Field(ge=0, le=1_800)] = Field(
        120, description="A switch of category that comes back within this is no boundary."
    )
    interruption_max_s: Annotated[int, Field(ge=0, le=1_800)] = Field(
        300,
        description="Entertainment shorter than this inside work or study is an interruption.",
    )

    @field_validator("time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown IANA time zone {value!r}") from exc
        return value

    @model_validator(mode="after")
    def _stalled_after_heartbeats(self) -> Self:
        if self.worker_stalled_s < 2 * self.worker_heartbeat_s:
            raise ValueError(
                "worker_stalled_s must be at least twice worker_heartbeat_s, or live workers "
                "would look stalled between two heartbeats"
            )
        return self

    @property
    def host_names(self) -> list[str]:
        """The Host header names this server answers to, lower-cased."""
        given = [h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()]
        if given:
            return given
        names = ["localhost", "127.0.0.1", "::1"]
        bound = self.host.strip().lower()
        if bound not in ("", "0.0.0.0", "::", *names):  # a wildcard address is no name
            names.append(bound)
        return names

    @property
    def trusted_proxy_list(self) -> list[str]:
        return [p.strip() for p in self.trusted_proxies.split(",") if p.strip()]

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "pgdata"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
