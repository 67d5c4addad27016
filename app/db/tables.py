"""Typed row models (SQLModel) for every table of the pyramid.

The DDL lives in `sql/migrations/` (pgvector, tsvector, HNSW and generated
columns read better in SQL); `tests/test_schema_drift.py` keeps these models
and the migrated schema in step. Families follow one pattern: `XBase` holds the
shared fields, `XPublic` is what the API returns (devices so far; the tools
shape their own output), `X(table=True)` is the row.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    REAL,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Integer,
    LargeBinary,
    SmallInteger,
    Text,
)
from sqlalchemy.dialects.postgresql import DOUBLE_PRECISION, JSONB, TSTZRANGE, TSVECTOR
from sqlmodel import Field, SQLModel

TZ = DateTime(timezone=True)


def _text(*, nullable: bool = False, **kwargs: Any) -> Any:
    return Field(sa_type=Text, nullable=nullable, **kwargs)


def _json(default: Any) -> Any:
    return Field(default_factory=lambda: type(default)(), sa_type=JSONB, nullable=False)


def _pk(*, identity: bool = False) -> Any:
    if identity:
        return Field(default=None, primary_key=True, sa_type=BigInteger)
    return Field(primary_key=True, sa_type=BigInteger)


class SchemaMeta(SQLModel, table=True):
    __tablename__ = "schema_meta"
    key: str = Field(primary_key=True, sa_type=Text)
    value: str = _text()


class SchemaVersion(SQLModel, table=True):
    __tablename__ = "schema_version"
    version: int = Field(primary_key=True, sa_type=Integer)
    name: str = _text()
    applied_at: datetime = Field(sa_type=TZ, nullable=False)


class User(SQLModel, table=True):
    __tablename__ = "users"
    user_id: int | None = _pk(identity=True)
    name: str = _text()
    time_zone: str = _text()
    day_cut_hour: int = Field(default=4, sa_type=SmallInteger, nullable=False)
    created_at: datetime = Field(sa_type=TZ, nullable=False)


class DeviceBase(SQLModel):
    device_id: str = Field(primary_key=True, sa_type=Text)
    name: str = _text(default="")
    kind: str = _text(default="desktop")


class DevicePublic(DeviceBase):
    created_at: datetime


class Device(DeviceBase, table=True):
    __tablename__ = "devices"
    user_id: int = _pk()
    created_at: datetime = Field(sa_type=TZ, nullable=False)


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_tokens"
    user_id: int = _pk()
    token_id: int | None = _pk(identity=True)
    token_hash: bytes = Field(sa_type=LargeBinary, nullable=False)
    name: str = _text(default="")
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    revoked_at: datetime | None = Field(default=None, sa_type=TZ, nullable=True)


class WebSession(SQLModel, table=True):
    """A browser's sign-in, made from an API token; the cookie is stored as its SHA-256."""

    __tablename__ = "web_sessions"
    user_id: int = _pk()
    session_hash: bytes = Field(primary_key=True, sa_type=LargeBinary)
    token_id: int = Field(sa_type=BigInteger, nullable=False)
    csrf_token: str = _text()
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    expires_at: datetime = Field(sa_type=TZ, nullable=False)


class Record(SQLModel, table=True):
    """L0: one timeline unit."""

    __tablename__ = "records"
    user_id: int = _pk()
    record_id: int | None = _pk(identity=True)
    device_id: str = _text()
    client_record_id: str = _text()
    ts_start: datetime = Field(sa_type=TZ, nullable=False)
    ts_end: datetime | None = Field(default=None, sa_type=TZ, nullable=True)
    day_local: date = Field(sa_type=Date, nullable=False)
    app: str = _text(default="")
    app_raw: str = _text(default="")
    window_title: str = _text(default="")
    url: str | None = _text(default=None, nullable=True)
    domain: str | None = _text(default=None, nullable=True)
    is_idle: bool = Field(default=False, sa_type=Boolean, nullable=False)
    capture_reason: str | None = _text(default=None, nullable=True)
    screenshot_ref: str | None = _text(default=None, nullable=True)
    screenshot_sha256: str | None = _text(default=None, nullable=True)
    category: str = _text()
    category_source: str = _text()
    redacted: bool = Field(default=False, sa_type=Boolean, nullable=False)
    episode_id: int | None = Field(default=None, sa_type=BigInteger, nullable=True)
    deleted_at: datetime | None = Field(default=None, sa_type=TZ, nullable=True)
    created_at: datetime = Field(sa_type=TZ, nullable=False)


class RecordAnalysis(SQLModel, table=True):
    """L1: what a frame means."""

    __tablename__ = "record_analyses"
    user_id: int = _pk()
    record_id: int = _pk()
    description: str | None = _text(default=None, nullable=True)
    category: str | None = _text(default=None, nullable=True)
    confidence: float | None = Field(default=None, sa_type=REAL, nullable=True)
    cues: list[Any] = _json([])
    model: str | None = _text(default=None, nullable=True)
    reason: str | None = _text(default=None, nullable=True)
    raw_answer: str | None = _text(default=None, nullable=True)
    embedding: Any = Field(default=None, sa_type=Vector, nullable=True)
    fts: Any = Field(default=None, sa_type=TSVECTOR, nullable=True)
    analyzed_at: datetime = Field(sa_type=TZ, nullable=False)


class EpisodeBase(SQLModel):
    episode_id: int | None = _pk(identity=True)
    device_id: str = _text()
    ts_start: datetime = Field(sa_type=TZ, nullable=False)
    ts_end: datetime = Field(sa_type=TZ, nullable=False)
    day_local: date = Field(sa_type=Date, nullable=False)
    primary_app: str = _text(default="")
    category: str = _text(default="uncategorized")
    category_source: str = _text(default="records")
    title: str = _text(default="")
    summary: str | None = _text(default=None, nullable=True)
    summary_status: str = _text(default="pending")
    cues: list[Any] = _json([])
    tags: list[Any] = _json([])
    interruptions: list[Any] = _json([])
    frame_count: int = Field(default=0, sa_type=Integer, nullable=False)
    duration_s: float = Field(default=0.0, sa_type=DOUBLE_PRECISION, nullable=False)
    active_s: float = Field(default=0.0, sa_type=DOUBLE_PRECISION, nullable=False)
    category_seconds: dict[str, float] = _json({})
    app_seconds: dict[str, float] = _json({})
    switch_count: int = Field(default=0, sa_type=Integer, nullable=False)
    interruption_s: float = Field(default=0.0, sa_type=DOUBLE_PRECISION, nullable=False)
    boundary: str = _text(default="")


class Episode(EpisodeBase, table=True):
    """L2: one coherent sitting."""

    __tablename__ = "episodes"
    user_id: int = _pk()
    episode_key: str = _text()
    cluster_key: str = _text(default="")
    auto_title: str = _text(default="")
    summary_reason: str | None = _text(default=None, nullable=True)
    summary_raw: str | None = _text(default=None, nullable=True)
    embedding_status: str = _text(default="pending")
    embedding_reason: str | None = _text(default=None, nullable=True)
    closed: bool = Field(default=False, sa_type=Boolean, nullable=False)
    stale: bool = Field(default=False, sa_type=Boolean, nullable=False)
    summary_embedding: Any = Field(default=None, sa_type=Vector, nullable=True)
    fts: Any = Field(default=None, sa_type=TSVECTOR, nullable=True)
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    updated_at: datetime = Field(sa_type=TZ, nullable=False)


class DigestBase(SQLModel):
    grain: str = _text()
    scope_key: str = _text()
    period_start: datetime = Field(sa_type=TZ, nullable=False)
    period_end: datetime = Field(sa_type=TZ, nullable=False)
    metrics: dict[str, Any] = _json({})
    narrative: str | None = _text(default=None, nullable=True)
    narrative_status: str = _text(default="pending")
    source_ids: list[Any] = _json([])
    computed_through_ts: datetime | None = Field(default=None, sa_type=TZ, nullable=True)
    finalized: bool = Field(default=False, sa_type=Boolean, nullable=False)


class Digest(DigestBase, table=True):
    """L3/L4: a day, ISO week or month."""

    __tablename__ = "digests"
    user_id: int = _pk()
    digest_id: int | None = _pk(identity=True)
    narrative_reason: str | None = _text(default=None, nullable=True)
    narrative_raw: str | None = _text(default=None, nullable=True)
    stale: bool = Field(default=False, sa_type=Boolean, nullable=False)
    sources_through: datetime | None = Field(default=None, sa_type=TZ, nullable=True)
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    updated_at: datetime = Field(sa_type=TZ, nullable=False)


class SignalBase(SQLModel):
    kind: str = _text()
    scope: str = _text()
    ts_start: datetime = Field(sa_type=TZ, nullable=False)
    ts_end: datetime = Field(sa_type=TZ, nullable=False)
    day_local: date = Field(sa_type=Date, nullable=False)
    severity: float = Field(default=0.0, sa_type=REAL, nullable=False)
    metrics: dict[str, Any] = _json({})
    evidence: dict[str, Any] = _json({})


class Signal(SignalBase, table=True):
    """A detected behaviour with its evidence episodes."""

    __tablename__ = "signals"
    user_id: int = _pk()
    signal_id: int | None = _pk(identity=True)
    signal_key: str = _text()
    stale: bool = Field(default=False, sa_type=Boolean, nullable=False)
    created_at: datetime = Field(sa_type=TZ, nullable=False)


class Label(SQLModel, table=True):
    """The audit of one re-label."""

    __tablename__ = "labels"
    user_id: int = _pk()
    label_id: int | None = _pk(identity=True)
    target_kind: str = _text()
    target_id: int = Field(sa_type=BigInteger, nullable=False)
    field: str = _text(default="category")
    old_value: str | None = _text(default=None, nullable=True)
    new_value: str = _text()
    actor: str = _text(default="")
    note: str = _text(default="")
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    touched: Any = Field(default=None, sa_type=TSTZRANGE, nullable=True)


class Import(SQLModel, table=True):
    """An import started over HTTP, with its progress (migration 0013)."""

    __tablename__ = "imports"
    user_id: int = _pk()
    import_id: int | None = _pk(identity=True)
    source: str = _text()
    status: str = _text(default="queued")
    stage: str = _text(default="")
    done: int = Field(default=0, sa_type=BigInteger, nullable=False)
    total: int | None = Field(default=None, sa_type=BigInteger, nullable=True)
    events: int = Field(default=0, sa_type=BigInteger, nullable=False)
    new: int = Field(default=0, sa_type=BigInteger, nullable=False)
    duplicate: int = Field(default=0, sa_type=BigInteger, nullable=False)
    excluded: int = Field(default=0, sa_type=BigInteger, nullable=False)
    redacted: int = Field(default=0, sa_type=BigInteger, nullable=False)
    error: str | None = _text(default=None, nullable=True)
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    updated_at: datetime = Field(sa_type=TZ, nullable=False)


class Conversation(SQLModel, table=True):
    """A conversation with the agent."""

    __tablename__ = "conversations"
    user_id: int = _pk()
    conversation_id: int | None = _pk(identity=True)
    title: str = _text(default="")
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    updated_at: datetime = Field(sa_type=TZ, nullable=False)


class ConversationTurn(SQLModel, table=True):
    """One question and its answer in a conversation."""

    __tablename__ = "conversation_turns"
    user_id: int = _pk()
    conversation_id: int = _pk()
    turn_no: int = Field(primary_key=True, sa_type=Integer)
    question: str = _text()
    answer: str = _text(default="")
    status: str = _text()
    mode: str = _text()
    steps: list[Any] = _json([])
    episode_ids: list[Any] = _json([])
    tool_tokens: int = Field(default=0, sa_type=Integer, nullable=False)
    model_calls: int = Field(default=0, sa_type=Integer, nullable=False)
    elapsed_ms: int = Field(default=0, sa_type=Integer, nullable=False)
    created_at: datetime = Field(sa_type=TZ, nullable=False)
    reach: Any = Field(default=None, sa_type=TSTZRANGE, nullable=True)


class JobTurn(SQLModel, table=True):
    """When a user's last job started, per lane: whose turn is next (migration 0017)."""

    __tablename__ = "job_turns"
    user_id: int = _pk()
    lane: str = Field(primary_key=True, sa_type=Text)
    last_started_at: datetime = Field(sa_type=TZ, nullable=False)


class JobStopRow(SQLModel, table=True):
    """A job stopped at its time limit (migration 0017)."""

    __tablename__ = "job_stops"
    stop_id: int | None = _pk(identity=True)
    user_id: int | None = Field(default=None, sa_type=BigInteger, nullable=True)
    job_id: int = Field(sa_type=BigInteger, nullable=False)
    task_name: str = _text()
    reason: str = _text()
    outcome: str = _text()
    ran_s: float = Field(sa_type=DOUBLE_PRECISION, nullable=False)
    limit_s: float = Field(sa_type=DOUBLE_PRECISION, nullable=False)
    stopped_at: datetime = Field(sa_type=TZ, nullable=False)
