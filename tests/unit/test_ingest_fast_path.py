"""The ingest fast path (msgspec, app/ingest/fast.py) and `RecordBatch` (pydantic) can
never drift: the fast path takes a body only when pydantic takes it too, with the same
values, and every body pydantic refuses (so every error answer) goes to pydantic.

- their fields, defaults and constraints are the same;
- on varied batches (CJK, Windows executables, URLs, optional fields absent, present
  and null, edge timestamps, offsets of DST zones) both accept, with equal records,
  and the rules then make equal rows of them for users in DST zones;
- on bodies made wrong one way at a time, and on random timestamps, the fast path
  accepts nothing pydantic refuses and reads nothing another way;
- a URL's site read from its plain origin (`site_of`) is the one read from all of it;
- a batch's clipped seconds (`batch_clipped_seconds`) are the duration rule's cuts."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import msgspec
import pytest
from pydantic import ValidationError

from app.db.store_records import batch_clipped_seconds
from app.ingest.fast import FastBatch, FastRecord, as_record_batch, decode_batch
from app.ingest.records import PreparedRecords, RecordBatch, RecordIn, prepare_records
from app.ingest.ruled import site_of
from app.rules.categories import Rules, load_rules
from app.store.accounts import UserContext
from app.store.records import NewRecords
from app.text import canonical_domain

RULES = """
[[exclude]]
name = "bank"
title = "网上银行|online banking"
action = "drop"

[[exclude]]
name = "doctor"
domain = "mychart\\\\.example\\\\.org"
action = "redact"
"""
ZONES = ["Asia/Shanghai", "America/New_York", "Europe/Berlin", "Australia/Lord_Howe"]
WINDOWS = [
    ("Code.exe", "main.py — timetrace — Visual Studio Code", None),
    ("C:\\Program Files\\Microsoft VS Code\\Code.exe", "改进导入.py — Code", None),
    ("WINWORD.EXE", "季度报告 2026.docx - Word", None),
    ("微信.exe", "微信", None),
    ("explorer.exe", "", None),
    ("chrome.exe", "城市夜景 第3集_哔哩哔哩_bilibili - Google Chrome", "https://www.bilibili.com/video/BV1x3"),
    ("chrome.exe", "工商银行 网上银行", "https://mybank.icbc.com.cn/login?x=1&y=二"),
    ("msedge.exe", "MyChart - Visit notes", "https://mychart.example.org/visit/7"),
    ("firefox.exe", 'title with "quotes", a \\ backslash,\ttab and },{"ts_start": "x"}', None),
    ("Safari", "Wikipedia — 维基百科", "https://zh.wikipedia.org/wiki/%E6%97%B6%E9%97%B4"),
    ("", "no app at all", "http://localhost:8080/"),
    ("Terminal", "emoji 😀 and CJK ext 𠀀 in a title", None),
]  # fmt: skip
# Offsets around DST changes: New York, Berlin, Lord Howe (half-hour DST) and Shanghai.
STARTS = [
    "1990-01-03T00:00:00Z",  # the fast path's own floor, exactly
    "1990-01-03T08:00:00+08:00",
    "2021-03-14T01:59:59.999999-05:00",
    "2021-03-14T03:00:00-04:00",
    "2021-11-07T01:30:00-04:00",
    "2021-11-07T01:30:00-05:00",
    "2021-03-28T01:59:59+01:00",
    "2021-03-28T03:00:00+02:00",
    "2021-04-04T01:45:00+11:00",
    "2021-04-04T01:45:00+10:30",
    "2024-02-29T23:59:59.5+08:00",
    "2026-06-02t10:30:00z",
    "2026-06-02 10:30:00+0800",
    "2026-06-02T10:30:00.123+05:45",
    "2026-06-02T10:30:00-00:00",
]


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Rules:
    path = tmp_path_factory.mktemp("rules") / "rules.toml"
    path.write_text(RULES, encoding="utf-8")
    return load_rules(user_file=path)


def _record(i: int, rng: random.Random) -> dict[str, Any]:
    app, title, url = WINDOWS[i % len(WINDOWS)]
    start = STARTS[i % len(STARTS)]
    rec: dict[str, Any] = {"client_record_id": f"键-{i}" if i % 5 == 0 else f"k-{i:05d}"}
    rec["ts_start"] = start
    end = rng.choice(["absent", "null", "same", "later", "day"])
    if end != "absent":
        moment = datetime.fromisoformat(start.replace("t", "T").replace("z", "Z"))
        rec["ts_end"] = {
            "null": None,
            "same": start,
            "later": (moment + timedelta(seconds=rng.randint(1, 900))).isoformat(),
            "day": (moment + timedelta(hours=24)).astimezone(ZoneInfo("UTC")).isoformat(),
        }[end]
    for name, value in (("app", app), ("window_title", title), ("url", url)):
        if value is not None or rng.random() < 0.5:  # absent, or present (a URL maybe null)
            rec[name] = value
    for name in ("is_idle", "incognito"):
        if rng.random() < 0.3:
            rec[name] = rng.random() < 0.5
    for name, value in (
        ("capture_reason", "app_switch"),
        ("screenshot_ref", f"shots/{i}.webp"),
        ("screenshot_sha256", f"{i:064x}"),
    ):
        if (pick := rng.random()) < 0.3:
            rec[name] = value
        elif pick < 0.5:
            rec[name] = None
    return rec


def _body(records: list[dict[str, Any]], *, device_id: str = "laptop-1", **extra: Any) -> bytes:
    return json.dumps(
        {"device_id": device_id, "records": records, **extra}, ensure_ascii=False
    ).encode()


def _pydantic(body: bytes) -> RecordBatch | None:
    try:
        return RecordBatch.model_validate_json(body)
    except ValidationError:
        return None


def _fields(rec: Any) -> tuple[Any, ...]:
    """Every field, and the UTC offset of each instant (equal instants may differ in it)."""
    values = tuple(getattr(rec, name) for name in RecordIn.model_fields)
    offsets = (rec.ts_start.utcoffset(), rec.ts_end and rec.ts_end.utcoffset())
    return (*values, *offsets, rec.description)


def _assert_same(body: bytes) -> None:
    """The fast path takes `body` only as pydantic does; None from it is always safe."""
    fast = decode_batch(body, now=datetime.now(UTC))
    slow = _pydantic(body)
    if fast is None:
        return
    assert slow is not None, body[:300]
    assert fast.device_id == slow.device_id
    assert [_fields(r) for r in fast.records] == [_fields(r) for r in slow.records]


def _columns(prepared: PreparedRecords) -> dict[str, Any]:
    rows = prepared.rows
    counts = (prepared.received, prepared.excluded, prepared.redacted)
    return {"counts": counts, **{name: getattr(rows, name) for name in NewRecords.model_fields}}


def _schema(schema: Any) -> Any:
    """A JSON schema without titles and descriptions, `\\Z` read as pydantic's `$`, and
    references by their last part with the struct's name taken for the model's."""
    if isinstance(schema, dict):
        return {
            key: _schema(value)
            for key, value in schema.items()
            if key not in ("title", "description")
        }
    if isinstance(schema, list):
        return [_schema(value) for value in schema]
    if isinstance(schema, str):
        return re.sub(r"\\Z$", "$", schema.replace("Fast", "").replace("RecordIn", "Record"))
    return schema


def test_the_structs_have_the_models_fields_defaults_and_constraints() -> None:
    # Both JSON schemas name every field with its type, default, lengths and pattern.
    mine = msgspec.json.schema(FastBatch)
    theirs = RecordBatch.model_json_schema()
    assert _schema(mine["$defs"]["FastBatch"]) == _schema(
        {key: value for key, value in theirs.items() if key != "$defs"}
    )
    assert _schema(mine["$defs"]["FastRecord"]) == _schema(theirs["$defs"]["RecordIn"])
    assert msgspec.inspect.type_info(FastRecord).forbid_unknown_fields  # type: ignore[union-attr]
    assert RecordIn.model_config["extra"] == RecordBatch.model_config["extra"] == "forbid"


@pytest.mark.parametrize("time_zone", ZONES)
def test_a_varied_batch_decodes_and_is_ruled_the_same_both_ways(
    time_zone: str, rules: Rules
) -> None:
    rng = random.Random(time_zone)
    body = _body([_record(i, rng) for i in range(600)])
    fast = decode_batch(body, now=datetime.now(UTC))
    slow = _pydantic(body)
    assert fast is not None and slow is not None
    assert [_fields(r) for r in fast.records] == [_fields(r) for r in slow.records]
    user = UserContext(user_id=1, name="me", time_zone=time_zone, day_cut_hour=4)
    made = prepare_records(as_record_batch(fast).records, rules=rules, user=user)
    expected = prepare_records(slow.records, rules=rules, user=user)
    assert _columns(made) == _columns(expected)
    assert 0 < made.excluded < made.received and made.redacted > 0  # the rules did act


def test_the_fast_batch_passes_the_models_validation_unchanged() -> None:
    body = _body([_record(i, random.Random(i)) for i in range(20)])
    fast = decode_batch(body, now=datetime.now(UTC))
    assert fast is not None
    batch = as_record_batch(fast)
    # FastAPI validates the body it is handed again: a checked instance comes back as is.
    again = RecordBatch.model_validate(batch, from_attributes=True)
    assert again is batch and again.records is fast.records


GOOD = {"client_record_id": "k-1", "ts_start": "2024-05-01T10:00:00+08:00"}
WRONG: list[tuple[str, Any]] = [
    ("client_record_id", ""),
    ("client_record_id", "   "),
    ("client_record_id", "\u3000"),  # an ideographic space is blank too
    ("client_record_id", "a\u0000b"),
    ("client_record_id", "k" * 129),
    ("client_record_id", 7),
    ("ts_start", "2024-05-01T10:00:00"),
    ("ts_start", "2024-05-01T10:00:00.1234567+08:00"),
    ("ts_start", "2024-05-01T10:00:00.9999999Z"),
    ("ts_start", "2024-05-01T10:00+08:00"),
    ("ts_start", "2024-05-01T10:00:00,5Z"),
    ("ts_start", "1700000000"),
    ("ts_start", 1700000000),
    ("ts_start", "1989-12-31T23:59:59Z"),
    ("ts_start", "1990-01-01T00:00:00Z"),
    ("ts_start", "1990-01-02T23:59:59-10:00"),
    ("ts_start", "2999-01-01T00:00:00Z"),
    ("ts_start", "0001-01-01T00:00:00Z"),
    ("ts_start", None),
    ("ts_end", "2024-05-01T09:59:59+08:00"),
    ("ts_end", "2024-05-02T10:00:00.000001+08:00"),
    ("ts_end", "2024-05-02T10:00:00+08:00"),
    ("ts_end", "2024-05-01T10:00:00.12345678+08:00"),
    ("app", None),
    ("app", "a" * 257),
    ("app", "应" * 256),
    ("app", "😀" * 257),
    ("app", "a\u0000.exe"),
    ("window_title", "t" * 4097),
    ("window_title", "line\u0000break"),
    ("window_title", 5),
    ("url", "u" * 4097),
    ("url", "https://x.example/\u0000"),
    ("is_idle", 1),
    ("is_idle", "true"),
    ("is_idle", None),
    ("incognito", 0),
    ("capture_reason", "r" * 65),
    ("screenshot_ref", "s" * 1025),
    ("screenshot_sha256", "A" * 64),
    ("screenshot_sha256", "a" * 64 + "\n"),
    ("screenshot_sha256", "a" * 63),
    ("description", "frame text"),
    ("episode_id", 3),
]


@pytest.mark.parametrize(("field", "value"), WRONG)
def test_a_record_wrong_one_way_is_never_taken_otherwise(field: str, value: Any) -> None:
    _assert_same(_body([GOOD, {**GOOD, "client_record_id": "k-2", field: value}]))


@pytest.mark.parametrize(
    "body",
    [
        _body([GOOD], device_id="laptop\n"),
        _body([GOOD], device_id="-laptop"),
        _body([GOOD], device_id="l" * 65),
        _body([GOOD], device_id="笔记本"),
        _body([]),
        _body([GOOD] * 5_001),
        _body([GOOD], extra="field"),
        b'{"device_id": "a", "device_id": "laptop", "records": [{"client_record_id": "k", '
        b'"ts_start": "2024-05-01T10:00:00Z", "app": 5, "app": "x"}]}',
        b'\xef\xbb\xbf{"device_id": "laptop", "records": []}',
        b'{"device_id": "laptop", "records": [{"client_record_id": "k\\ud800", '
        b'"ts_start": "2024-05-01T10:00:00Z"}]}',
        b'{"device_id": "laptop", "records": [{"client_record_id": "k", '
        b'"ts_start": "2024-05-01T10:00:00Z", "window_title": "a\tb"}]}',
        b'{"device_id": "laptop", "records": [{"client_record_id": "k", '
        b'"ts_start": "2024-05-01T10:00:00Z"}]} trailing',
        b'{"device_id": "laptop", "records": [{"client_record_id": "k", '
        b'"ts_start": "2024-05-01T10:00:00\\u002e1234567Z"}]}',
        b'{"device_id": "laptop", "records": [{"client_record_id": "k", '
        b'"ts_start": "2024-05-01T10:00:00.123456\\u0037Z"}]}',
        b'{"device_id": "laptop", "records": [{"client_record_id": "k\\u0000", '
        b'"ts_start": "2024-05-01T10:00:00Z", "app": "a\\u0001b"}]}',
        b'["laptop", []]',
        b"null",
    ],
)
def test_a_batch_wrong_one_way_is_never_taken_otherwise(body: bytes) -> None:
    _assert_same(body)


def test_an_ascii_escaped_body_is_taken_as_pydantic_takes_it() -> None:
    rng = random.Random(5)
    records = [_record(i, rng) for i in range(100)]
    body = json.dumps({"device_id": "laptop-1", "records": records}).encode()  # \uXXXX
    assert b"\\u" in body
    assert decode_batch(body, now=datetime.now(UTC)) is not None
    _assert_same(body)


def test_duplicate_keys_take_the_last_value_both_ways() -> None:
    body = (
        b'{"device_id": "laptop", "records": [{"client_record_id": "k", "app": "a", '
        b'"ts_start": "2024-05-01T10:00:00Z", "app": "b"}]}'
    )
    fast = decode_batch(body, now=datetime.now(UTC))
    assert fast is not None and fast.records[0].app == "b"
    _assert_same(body)


def _random_stamp(rng: random.Random) -> str:
    """Timestamps near RFC 3339, mostly right, one piece or more at a time wrong:
    separators, fractions of 0 to 10 digits, offsets of every shape, fields out of
    range."""

    def pick(right: list[str], wrong: list[str]) -> str:
        return rng.choice(right if rng.random() < 0.85 else wrong)

    year = pick(["2024", "1990", "2001", "2026"], ["1989", "0000", "9999", "20245", "24"])
    month = pick(["01", "02", "03", "11", "12"], ["13", "00", "1"])
    day = pick(["01", "14", "28", "29", "30", "31"], ["00", "32", "7"])
    clock = pick(
        ["10:30:00", "23:59:59", "00:00:00", "01:59:59"],
        ["23:59:60", "24:00:00", "10:30", "1:30:00"],
    )
    sep = pick(["T", "t", " "], ["_", "", "TT"])
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(0, 10)))
    fraction = pick(["", "." + digits[:6] if digits else ""], ["." + digits, "," + digits, "."])
    offset = pick(
        ["Z", "z", "+08:00", "-05:00", "+0800", "+05:45", "+10:30", "-00:00", "+23:59"],
        ["", "+08", "+24:00", "+05:45:00", " +08:00", "+8:00", "UTC"],
    )
    return f"{year}-{month}-{day}{sep}{clock}{fraction}{offset}"


def test_random_timestamps_are_read_the_same_or_left_to_pydantic() -> None:
    rng = random.Random(25)
    taken = 0
    for _ in range(3_000):
        start = _random_stamp(rng)
        body = _body([{**GOOD, "ts_start": start}])
        _assert_same(body)
        taken += decode_batch(body, now=datetime.now(UTC)) is not None
    assert taken > 600  # the fast path did take many of them


@pytest.mark.parametrize(
    "url",
    [
        "https://www.bilibili.com/video/BV1x3", "http://a.b.c/?q=1", "https://x.com#top",
        "https://X.com/a", "https://a.com:8080/x", "https://user@a.com/x", "https://a.com /x",
        "https://a.com\t/x", "https://a.com\n/x", "https://a.com", "https://www./x",
        "https://.../x", "https://a.com./x", "https://xn--fiqs8s.cn/x", "https://中国.cn/x",
        "http://[::1]/x", "https://a..com/x", "ftp://a.com/x", " https://a.com/x",
        "https://a.com/x?to=https://b.com/", "a.com/x", "https:///x", "https://www.www.a.com/x",
        "HTTPS://A.COM/x", "https://a.com\\x/y", "https://-/x", "",
    ],
)  # fmt: skip
def test_a_urls_site_is_read_from_its_plain_origin_as_from_the_whole(url: str) -> None:
    assert site_of(url) == canonical_domain(url)


def _clipped_one_by_one(
    records: list[tuple[datetime, str, datetime | None]], before_end: datetime | None
) -> float:
    """The duration rule's cuts, record by record on the sorted timeline."""
    clipped, end = 0.0, before_end
    for start, _, own_end in sorted(records, key=lambda r: (r[0], r[1])):
        if end is not None and end > start:
            clipped += (end - start).total_seconds()
        end = own_end
    return clipped


@pytest.mark.parametrize("seed", range(6))
def test_a_batchs_clipped_seconds_are_the_duration_rules_cuts(seed: int) -> None:
    rng = random.Random(seed)
    base = datetime(2024, 3, 10, 6, 59, tzinfo=ZoneInfo("America/New_York"))
    records = []
    for i in range(300):
        start = base + timedelta(seconds=rng.choice([i * 10, i * 10, rng.randint(0, 3_000)]))
        end = None if rng.random() < 0.2 else start + timedelta(seconds=rng.randint(0, 40))
        records.append(
            (start.astimezone(rng.choice([UTC, ZoneInfo("Asia/Shanghai")])), f"k{i}", end)
        )
    if seed % 2:  # a batch in timeline order, as clients send it
        records.sort(key=lambda r: (r[0], r[1]))
    rows = NewRecords(
        ts_start=[r[0] for r in records],
        client_record_id=[r[1] for r in records],
        ts_end=[r[2] for r in records],
    )
    before = base - timedelta(seconds=5), base + timedelta(seconds=rng.choice([0, 30]))
    got = batch_clipped_seconds(rows, before_start=before[0], before_end=before[1])
    assert got == pytest.approx(_clipped_one_by_one(records, before[1]), abs=1e-6)
    assert got > 0
    alone = batch_clipped_seconds(rows, before_start=None, before_end=None)
    assert alone == pytest.approx(_clipped_one_by_one(records, None), abs=1e-6)
