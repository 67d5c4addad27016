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

    # Storage. With no database URL, an embedded PostgreSQL runs in data_dir/pgdata.
    database_url: str | None = None
    data_dir: Path = Field(default_factory=lambda: Path(user_data_dir("timetrace")))
    pool_max_size: Annotated[int, Field(ge=1, le=200)] = 10

    # Time: the logical day runs from cut hour to cut hour in the user's zone.
    time_zone: str = "UTC"
    day_cut_hour: Annotated[int, Field(ge=0, le=23)] = 4

    # API.
    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=0, le=65535)] = 8787
    # The names clients may reach the API by (the Host header; comma-separated, no
    # ports): empty means the loopback names and `host`. Any other Host is refused with
    # 400 — a page served under an attacker's name (DNS rebinding) is not this site.
    allowed_hosts: str = ""
    # Proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (addresses,
    # comma-separated; "*" for any): behind one that terminates https, cookies get Secure.
    trusted_proxies: str = "127.0.0.1,::1"

    # Rules: a TOML file with [[category]] and [[exclude]] tables, read before the defaults.
    rules_file: Path | None = None

    # Models (used from the LLM layer on). Any OpenAI-compatible endpoint.
    # Unset base URLs switch a role off: TIMETRACE degrades to no-model mode for it.
    llm_base_url: str | None = None
    llm_api_key: SecretStr = SecretStr("")
    llm_model: str = "qwen3-8b"
    vision_base_url: str | None = None
    vision_api_key: SecretStr | None = None  # defaults to llm_api_key
    vision_model: str = "qwen2.5-vl-7b-instruct"
    embedding_base_url: str | None = None
    embedding_api_key: SecretStr | None = None  # defaults to llm_api_key
    embedding_model: str = "text-embedding-3-small"
    embedding_dim: Annotated[int, Field(ge=8, le=4_000)] = 384
    llm_timeout_s: Annotated[float, Field(gt=0, le=600)] = 120
    # After a failed call, the first wait before trying the endpoint again (it doubles).
    llm_backoff_s: Annotated[float, Field(ge=0, le=600)] = 5
    # One limit for every background model call in a process: one consumer GPU.
    llm_concurrency: Annotated[int, Field(ge=1, le=64)] = 1
    # Worker slots for model jobs, beside (never instead of) the pyramid's slots.
    model_slots: Annotated[int, Field(ge=1, le=64)] = 1
    summary_input_tokens: Annotated[int, Field(ge=500, le=100_000)] = 10_000
    screenshot_dir: Path | None = None  # relative screenshot_ref paths resolve here

    # Asking (the agent): what one question may read, and how deep_scan splits a window.
    agent_budget_tokens: Annotated[int, Field(ge=2_000, le=1_000_000)] = 40_000
    deep_scan_pass_tokens: Annotated[int, Field(ge=500, le=1_000_000)] = 40_000
    deep_scan_concurrency: Annotated[int, Field(ge=1, le=16)] = 2

    # The worker. A job whose worker sent no heartbeat for `worker_stalled_s` (killed
    # mid-job) is put back in the queue; after losing the database the worker reconnects
    # with backoff and gives up (exit status 1) when it has been gone `worker_give_up_s`.
    worker_heartbeat_s: Annotated[float, Field(gt=0, le=300)] = 10
    worker_stalled_s: Annotated[float, Field(gt=0, le=3_600)] = 30
    worker_give_up_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = 600
    # /healthz and `timetrace status` say degraded when the oldest waiting job is older.
    health_queue_age_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = 600
    # ... and when a user's waiting jobs have seen none of theirs start for this long.
    health_stuck_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = 600
    # Jobs (app/jobs/limits.py): every job is stopped at its limit (imports at theirs);
    # heavy work yields its slot after a step; on SIGTERM running jobs get this long to
    # finish before they are aborted and requeued.
    job_limit_s: Annotated[float, Field(gt=0, le=86_400)] = 300
    import_limit_s: Annotated[float, Field(gt=0, le=7 * 86_400)] = 3_600
    job_step_s: Annotated[float, Field(gt=0, le=3_600)] = 20
    worker_shutdown_s: Annotated[float, Field(ge=0, le=60)] = 3

    # Pyramid thresholds (docs/architecture.md, "Data rules" and "Write time").
    idle_gap_s: Annotated[int, Field(ge=10, le=3_600)] = 300
    max_episode_s: Annotated[int, Field(ge=300, le=6 * 3_600)] = 3_600
    switch_debounce_s: Annotated[int, Field(ge=0, le=1_800)] = 120
    interruption_max_s: Annotated[int, Field(ge=0, le=1_800)] = 300

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
