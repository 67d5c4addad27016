"""The seam between the domain and the database.

Jobs, tools and routes depend on the small typed `Store` protocol, one protocol per
family (a module each: accounts, records, jobs, episodes, digests, model, tools,
conversations, web), grouped by who uses it; `app.db.store.PostgresStore` implements
it with the named SQL in `sql/queries/<family>.sql`. Everything that crosses the seam
is a typed row defined here: frozen SQLModel models for rows, TypedDicts for the JSON
documents stored in jsonb columns (`documents`), so their stored shape is exactly
what the code reads. Nothing above the seam imports psycopg or writes SQL. Below it,
nothing knows about HTTP, MCP or what a job does: the store only enqueues the
`JobRequest` rows it is handed, in the transaction of the write that asks for them.
Every public name is re-exported here: `from app.store import X`.
See docs/architecture.md ("The seam").
"""

from __future__ import annotations

from typing import Protocol

from app.store.accounts import (
    DEVICE_ID_PATTERN,
    DEVICE_KINDS,
    ID_MAX,
    AccountStore,
    DeviceKind,
    DeviceRow,
    UserContext,
)
from app.store.conversations import (
    ConversationRow,
    ConversationStore,
    NewTurn,
    TurnRow,
    TurnStep,
)
from app.store.digests import (
    DayDue,
    DayFacts,
    DigestDraft,
    DigestRow,
    DigestStore,
    EpisodeFacts,
    MemberFacts,
    PeriodDue,
    PeriodMetrics,
    SignalDraft,
    SignalRow,
)
from app.store.documents import (
    DigestMetrics,
    Evidence,
    Interruption,
    SignalMetrics,
    TitleTime,
)
from app.store.episodes import (
    DayCount,
    EpisodeDraft,
    EpisodeLine,
    EpisodeStore,
    ReadWindow,
    SegmentInput,
    SegmentRead,
    UserDevice,
)
from app.store.jobs import (
    JobArgs,
    JobHealth,
    JobOverLimit,
    JobRequest,
    JobStop,
    JobStore,
    StuckUser,
)
from app.store.model import (
    ChildNarrative,
    DayEpisodeSummary,
    EpisodeForSummary,
    ModelFailure,
    ModelStore,
    ModelWorkCounts,
    PendingDescription,
    PendingEpisode,
    PendingNarrative,
    RecordToDescribe,
    SummaryMember,
)
from app.store.records import (
    CategorySeconds,
    DeletedDeviceDay,
    DeviceDayRecords,
    ImportProgress,
    ImportRow,
    ImportStore,
    NewRecords,
    RecordLine,
    RecordStore,
    StoredBatch,
)
from app.store.tools import (
    DaySeconds,
    DeviceDay,
    KindCount,
    KnownName,
    ModelBacklog,
    MomentRecord,
    Neighbor,
    OpenSitting,
    RecordMatch,
    Relabelled,
    SearchHit,
    TailSeconds,
    ThingSeconds,
    ToolStore,
    UnbuiltDay,
    UncategorizedTime,
)
from app.store.web import (
    EpisodeDetail,
    RangeCount,
    SiteTime,
    TokenRow,
    WebSessionRow,
    WebStore,
)


class Store(
    AccountStore,
    RecordStore,
    JobStore,
    EpisodeStore,
    DigestStore,
    ModelStore,
    ImportStore,
    ToolStore,
    ConversationStore,
    WebStore,
    Protocol,
):
    """Everything the domain needs from storage."""


__all__ = [
    "DEVICE_ID_PATTERN",
    "DEVICE_KINDS",
    "ID_MAX",
    "AccountStore",
    "CategorySeconds",
    "ChildNarrative",
    "ConversationRow",
    "ConversationStore",
    "DayCount",
    "DayDue",
    "DayEpisodeSummary",
    "DayFacts",
    "DaySeconds",
    "DeletedDeviceDay",
    "DeviceDay",
    "DeviceDayRecords",
    "DeviceKind",
    "DeviceRow",
    "DigestDraft",
    "DigestMetrics",
    "DigestRow",
    "DigestStore",
    "EpisodeDetail",
    "EpisodeDraft",
    "EpisodeFacts",
    "EpisodeForSummary",
    "EpisodeLine",
    "EpisodeStore",
    "Evidence",
    "ImportProgress",
    "ImportRow",
    "ImportStore",
    "Interruption",
    "JobArgs",
    "JobHealth",
    "JobOverLimit",
    "JobRequest",
    "JobStop",
    "JobStore",
    "KindCount",
    "KnownName",
    "MemberFacts",
    "ModelBacklog",
    "ModelFailure",
    "ModelStore",
    "ModelWorkCounts",
    "MomentRecord",
    "Neighbor",
    "NewRecords",
    "NewTurn",
    "OpenSitting",
    "PendingDescription",
    "PendingEpisode",
    "PendingNarrative",
    "PeriodDue",
    "PeriodMetrics",
    "RangeCount",
    "ReadWindow",
    "RecordLine",
    "RecordMatch",
    "RecordStore",
    "RecordToDescribe",
    "Relabelled",
    "SearchHit",
    "SegmentInput",
    "SegmentRead",
    "SignalDraft",
    "SignalMetrics",
    "SignalRow",
    "SiteTime",
    "Store",
    "StoredBatch",
    "StuckUser",
    "SummaryMember",
    "TailSeconds",
    "ThingSeconds",
    "TitleTime",
    "TokenRow",
    "ToolStore",
    "TurnRow",
    "TurnStep",
    "UnbuiltDay",
    "UncategorizedTime",
    "UserContext",
    "UserDevice",
    "WebSessionRow",
    "WebStore",
]
