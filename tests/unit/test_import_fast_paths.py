"""The ActivityWatch import's fast paths give exactly what the plain ones give, on a varied
export in the real formats (both servers' shapes, Windows executables, browser titles
with no URL, Android packages, CJK, incognito and audible tabs, odd values, text that
looks like JSON's own punctuation) and for users in zones with DST changes:

- events decoded a run at a time (`array_run`, `decode_run`) = one by one (`event`);
- flood, clip, not-afk and pieces over tuples = over `Event` objects;
- `host_batches` = `host_records` then `prepare_records`, batch for batch;
- `prepare_records` (rules once per distinct text, days by the hour) = the rules and
  `logical_day` per record;
- `LogicalDays` = `logical_day` around every offset change of those zones."""

from __future__ import annotations

import functools
import io
import json
import random
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest

from app.demo.corpus import load_corpus
from app.importers import aw_hosts, aw_read
from app.importers.spill import EventSpill
from app.importers.timeline import (
    Event,
    Span,
    active_spans,
    active_stretches,
    clip,
    clip_stretches,
    flood,
    flood_rows,
)
from app.importers.writer import ImportedRecord
from app.ingest.records import PreparedRecords, prepare_records
from app.ingest.ruled import LogicalDays
from app.rules.categories import Rules, load_rules
from app.store.accounts import UserContext
from app.store.records import NewRecords
from app.text import canonical_domain
from app.timeutil import logical_day, zone

pytestmark = pytest.mark.heavy

NOW = datetime(2026, 12, 1, tzinfo=UTC)
ZONES = ["Asia/Shanghai", "America/Sao_Paulo", "Europe/Berlin", "Asia/Kolkata"]
ZONES += ["Australia/Lord_Howe", "America/New_York"]
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

WINDOWS = [
    ("Code.exe", "main.py — timetrace — Visual Studio Code"),
    ("C:\\Program Files\\Microsoft VS Code\\Code.exe", "改进导入.py — Code"),
    ("WindowsTerminal.exe", "pytest -q — 终端"),
    ("WINWORD.EXE", "季度报告 2026.docx - Word"),
    ("slack.exe", "私信 王小明 | Acme - Slack"),
    ("explorer.exe", ""),
    ("Code.exe", 'title with "quotes" and },{"timestamp": "x"} and }] inside'),
    ("notepad.exe", "工商银行 网上银行 - 记事本"),
    ("chrome.exe", "lofi hip hop radio - YouTube - Google Chrome"),
    ("chrome.exe", "城市夜景延时摄影 第3集_哔哩哔哩_bilibili - Google Chrome"),
    ("chrome.exe", "(3) 如何评价？ - 知乎 - Google Chrome"),
    ("chrome.exe", "Online Banking — Chase - Google Chrome"),
    ("msedge.exe", "Pull requests · acme/timetrace · GitHub - Work - Microsoft​ Edge"),
    ("firefox.exe", "ChatGPT — Mozilla Firefox"),
    ("firefox.exe", "Mozilla Firefox Private Browsing"),
]
TABS = [
    ("https://github.com/acme/timetrace/pull/{n}", "Import exports #{n} · acme/timetrace"),
    ("https://www.bilibili.com/video/BV1x{n}", "城市夜景 第{n}集_哔哩哔哩_bilibili"),
    ("https://mychart.example.org/visit/{n}", "Visit {n} — MyChart"),
    ("https://www.zhihu.com/question/{n}", "如何评价第{n}号问题？ - 知乎"),
    ("", "New Tab"),
]
PHONE = [
    ("com.ss.android.ugc.aweme", "抖音"),
    ("com.tencent.mm", "微信"),
    ("org.mozilla.firefox", "Firefox"),
]
# And the real-format corpus: executables, bundle ids, WM_CLASS names, URL-less browser
# titles, packages, Chinese and English.
CORPUS = load_corpus()
WINDOWS += [(e.app, e.title) for e in CORPUS if e.platform != "android"]
PAGES = [(e.url, e.title) for e in CORPUS if e.url]
PHONE += [(e.app, e.title) for e in CORPUS if e.platform == "android"]


def _stamp(micros: int, rng: random.Random) -> Any:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)
    form = rng.random()
    if form < 0.8:
        return moment.isoformat()  # +00:00, with or without a fraction
    if form < 0.88:
        return moment.isoformat().replace("+00:00", "Z")
    if form < 0.93:
        return moment.astimezone(zone("Asia/Shanghai")).isoformat()
    if form < 0.96:
        return moment.replace(tzinfo=None).isoformat()  # naive: UTC
    return rng.choice(["not a time", 12345, None, "2026-02-30T10:00:00+00:00"])


def _bucket_events(
    rng: random.Random, start: int, count: int, make: Any
) -> Iterator[dict[str, Any]]:
    t = start
    for _ in range(count):
        duration = rng.choice([rng.expovariate(1 / 12), 0, 0.0004, rng.uniform(0, 3)])
        event: dict[str, Any] = {"timestamp": _stamp(t, rng), "duration": round(duration, 6)}
        event["data"] = make(rng)
        if rng.random() < 0.1:
            event["id"] = rng.randrange(10**6)
        if rng.random() < 0.01:
            event["duration"] = rng.choice([-1.5, "2.5", None])
        yield event
        # Gaps under and over the pulse time, exact touches, overlaps.
        step = duration + rng.choice([0, 0, 0.05, 2, 4.9, 5, 7, 300, -0.05, -1])
        t += max(1, round(step * 1_000_000))


def _window(rng: random.Random) -> dict[str, Any]:
    app, title = rng.choice(WINDOWS)
    data: dict[str, Any] = {"app": app, "title": title}
    if rng.random() < 0.03:
        data = {"title": title, "app": app}  # the same data, keys in another order
    if rng.random() < 0.02:
        data["nested"] = [{"a": [1, {"b": "}]"}]}]
    return data


def _tab(rng: random.Random) -> dict[str, Any]:
    url, title = rng.choice(TABS)
    n = rng.randrange(1, 6)
    url, title = url.format(n=n), title.format(n=n)
    if rng.random() < 0.3:
        url, title = rng.choice(PAGES)
    return {
        "url": url,
        "title": title,
        "audible": rng.random() < 0.1,
        "incognito": rng.random() < 0.05,
        "tabCount": rng.randrange(1, 40),
    }


def _afk(rng: random.Random) -> dict[str, Any]:
    return {"status": "not-afk" if rng.random() < 0.7 else "afk"}


def _phone(rng: random.Random) -> dict[str, Any]:
    package, app = rng.choice(PHONE)
    return {"app": app, "package": package, "classname": f"{package}.Main"}


def export(seed: int, *, array_form: bool = False, scale: int = 1) -> bytes:
    """An export of two desktops and a phone over a few days of 2018 (Sao Paulo's DST
    then ended at midnight), newest event first as aw-server writes them."""
    rng = random.Random(seed)
    start = int(datetime(2018, 2, 16, 20, tzinfo=UTC).timestamp()) * 1_000_000
    buckets: dict[str, dict[str, Any]] = {}

    def bucket(bucket_id: str, kind: str, host: str, count: int, make: Any) -> None:
        events = list(_bucket_events(rng, start, count * scale, make))
        events.reverse()
        buckets[bucket_id] = {
            "id": bucket_id,
            "created": "2018-01-01T00:00:00.000000+00:00",
            "type": kind,
            "client": "aw-watcher-android" if "android" in bucket_id else "aw-watcher",
            "hostname": host,
            "events": events,
        }

    bucket("aw-watcher-window_desk", "currentwindow", "desk", 2_500, _window)
    bucket("aw-watcher-window_desk-2", "currentwindow", "desk", 300, _window)
    bucket("aw-watcher-afk_desk", "afkstatus", "desk", 400, _afk)
    bucket("aw-watcher-web-chrome", "web.tab.current", "unknown", 1_500, _tab)
    bucket("aw-watcher-web-firefox_desk", "web.tab.current", "desk", 600, _tab)
    bucket("aw-watcher-window_lap", "currentwindow", "lap", 800, _window)
    bucket("aw-watcher-android-test", "currentwindow", "Unknown", 500, _phone)
    if array_form:
        return json.dumps({"buckets": list(buckets.values())}, indent=1).encode()
    return json.dumps({"buckets": buckets}, ensure_ascii=False).encode()


def _read(data: bytes, *, fast: bool) -> tuple[aw_read.Reader, EventSpill]:
    spill = EventSpill(run=1_700)
    try:
        return _read_into(spill, data, fast=fast), spill
    except BaseException:
        spill.close()
        raise


def _read_into(spill: EventSpill, data: bytes, *, fast: bool) -> aw_read.Reader:
    reader = aw_read.Reader(spill, None, None)
    if fast:
        aw_read.read_export(io.BytesIO(data), reader, name="x")
        return reader
    plain = aw_read._read_events

    def one_by_one(stream: Any, reader: aw_read.Reader, bucket: aw_read.Bucket, where: Any) -> None:
        for event in stream.array():
            reader.event(bucket, event, where)

    aw_read._read_events = one_by_one
    try:
        aw_read.read_export(io.BytesIO(data), reader, name="x")
    finally:
        aw_read._read_events = plain
    return reader


def _read_back(reader: aw_read.Reader, spill: EventSpill) -> Any:
    buckets = [(b.id, b.type, b.hostname, b.client, b.events) for b in reader.buckets]
    rows = {b.index: list(spill.rows(bucket=b.index)) for b in reader.buckets}
    return buckets, reader.skipped, spill.count, rows


@pytest.fixture(scope="module")
def corpus() -> Iterator[tuple[aw_read.Reader, EventSpill]]:
    """One export read once for the tests of records (a spill reads back many times)."""
    reader, spill = _read(export(5), fast=True)
    with spill:
        yield reader, spill


@pytest.fixture(scope="module")
def rules(tmp_path_factory: pytest.TempPathFactory) -> Rules:
    path = tmp_path_factory.mktemp("rules") / "rules.toml"
    path.write_text(RULES, encoding="utf-8")
    return load_rules(user_file=path)


@pytest.mark.parametrize(("seed", "array_form"), [(1, False), (2, True), (3, False)])
def test_events_read_a_run_at_a_time_equal_events_read_one_by_one(
    seed: int, array_form: bool
) -> None:
    data = export(seed, array_form=array_form)
    plain_reader, plain_spill = _read(data, fast=False)
    fast_reader, fast_spill = _read(data, fast=True)
    with plain_spill, fast_spill:
        plain, fast = _read_back(plain_reader, plain_spill), _read_back(fast_reader, fast_spill)
    assert plain[1] > 0  # odd values were met, and skipped
    assert fast == plain


def test_a_broken_export_stops_with_the_same_error_either_way() -> None:
    data = export(4)
    cut = data[: len(data) * 2 // 3]
    said = []
    for fast in (False, True):
        with pytest.raises(aw_read.ActivityWatchError) as caught:
            _read(cut, fast=fast)
        said.append(caught.value.message)
    assert said[0] == said[1]
    assert "nothing was imported" in said[0]


def test_a_file_that_stops_being_utf8_stops_at_the_same_event_either_way() -> None:
    data = export(8, scale=5)
    assert len(data) > 3 << 20  # past several chunks of the reader
    said = []
    for at in (len(data) * 3 // 5, len(data) * 4 // 5 + 17):
        bad = data[:at] + b"\xff" + data[at:]
        for fast in (False, True):
            with pytest.raises(aw_read.ActivityWatchError) as caught:
                _read(bad, fast=fast)
            said.append(caught.value.message)
    assert said[0] == said[1] and said[2] == said[3]
    assert "is not UTF-8 text" in said[0] and said[0] != said[2]


def _random_events(rng: random.Random, count: int) -> list[tuple[int, int, str]]:
    datas = ['{"a":1}', '{"a":2}', '{"status":"not-afk"}', '{"status":"afk"}']
    t, out = 0, []
    for _ in range(count):
        duration = rng.choice([0, 1, 50_000, 4_000_000, 6_000_000, rng.randrange(10**7)])
        out.append((t, duration, rng.choice(datas)))
        t += max(0, duration + rng.choice([-200_000, -50_000, 0, 0, 60_000, 5_000_000, 9**7]))
    return out


@pytest.mark.parametrize("seed", range(20))
def test_flood_clip_and_not_afk_over_tuples_equal_them_over_events(seed: int) -> None:
    events = _random_events(random.Random(seed), 400)
    rows = sorted(
        (start, duration, order, data) for order, (start, duration, data) in enumerate(events)
    )

    def objects() -> list[Event]:
        return [Event(start, duration, data) for start, duration, _, data in rows]

    def spans(found: Any) -> list[tuple[int, int, str]]:
        return [(e.start, e.end, e.data) for e in found]

    assert list(flood_rows(rows)) == spans(flood(objects()))
    assert list(clip_stretches(flood_rows(rows))) == spans(clip(flood(objects())))
    afk: list[Span] = list(active_spans(flood(objects())))
    assert list(active_stretches(flood_rows(rows))) == [(s.start, s.end, "") for s in afk]


def _columns(prepared: PreparedRecords) -> dict[str, Any]:
    rows = prepared.rows
    counts = (prepared.received, prepared.excluded, prepared.redacted)
    return {"counts": counts, **{name: getattr(rows, name) for name in NewRecords.model_fields}}


@pytest.mark.parametrize("time_zone", ZONES)
def test_host_batches_equal_host_records_prepared_batch_for_batch(
    rules: Rules,
    corpus: tuple[aw_read.Reader, EventSpill],
    time_zone: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(aw_hosts, "BATCH", 397)  # many batches, and a short last one
    user = UserContext(user_id=1, name="me", time_zone=time_zone, day_cut_hour=4)
    reader, spill = corpus
    hosts = aw_hosts.group_hosts(reader.buckets)
    assert {h.name for h in hosts} == {"desk", "lap", "aw-watcher-android-test"}
    seen = {"drop": 0, "redact": 0, "url": 0}
    for host in hosts:
        records = list(
            aw_hosts.host_records(host, spill, rules=rules, now=NOW, audible_is_active=True)
        )
        plain = [records[at : at + 397] for at in range(0, len(records), 397)]
        fast = list(
            aw_hosts.host_batches(
                host, spill, rules=rules, user=user, now=NOW, audible_is_active=True
            )
        )
        assert len(fast) == len(plain) > 0
        for batch, made in zip(plain, fast, strict=True):
            prepared = prepare_records(batch, rules=rules, user=user)
            assert _columns(made.prepared) == _columns(prepared)
            assert made.first == _micros(min(r.ts_start for r in batch))
            assert made.last == _micros(max(r.ts_end or r.ts_start for r in batch))
            seen["drop"] += prepared.excluded
            seen["redact"] += prepared.redacted
            seen["url"] += sum(u is not None for u in prepared.rows.url)
    assert all(seen.values()), seen  # the rules dropped, redacted, and tabs gave URLs


def _moment(micros: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)


def _micros(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


@pytest.mark.parametrize("time_zone", ZONES)
def test_prepare_records_equals_the_rules_and_logical_day_per_record(
    rules: Rules, corpus: tuple[aw_read.Reader, EventSpill], time_zone: str
) -> None:
    user = UserContext(user_id=1, name="me", time_zone=time_zone, day_cut_hour=0)
    reader, spill = corpus
    records: list[ImportedRecord] = [
        r
        for host in aw_hosts.group_hosts(reader.buckets)
        for r in aw_hosts.host_records(host, spill, rules=rules, now=NOW, audible_is_active=True)
    ]
    # HTTP's records carry their own offsets: the same instants, other zones.
    records += [
        r._replace(ts_start=r.ts_start.astimezone(zone("America/Sao_Paulo"))) for r in records[::7]
    ]
    tz = zone(time_zone)
    prepared = prepare_records(records, rules=rules, user=user)
    kept = []
    for rec in records:
        domain = canonical_domain(rec.url)
        verdict = rules.classify(
            app=rec.app,
            title=rec.window_title,
            domain=domain,
            idle=rec.is_idle,
            incognito=rec.incognito,
        )
        if verdict.action == "drop":
            continue
        hide = verdict.action == "redact"
        kept.append(
            (
                rec.client_record_id,
                logical_day(rec.ts_start, tz=tz, cut_hour=0),
                verdict.app,
                rec.app.strip(),
                "" if hide else rec.window_title,
                None if hide else rec.url,
                None if hide else domain,
                verdict.category,
                verdict.source,
                hide,
            )
        )
    rows = prepared.rows
    assert kept == list(
        zip(
            rows.client_record_id,
            rows.day_local,
            rows.app,
            rows.app_raw,
            rows.window_title,
            rows.url,
            rows.domain,
            rows.category,
            rows.category_source,
            rows.redacted,
            strict=True,
        )
    )
    assert prepared.excluded == len(records) - len(kept) > 0


@functools.cache
def _changes(time_zone: str, first: date, last: date) -> tuple[int, ...]:
    """Microseconds at each change of the zone's offset between two days (found hour by
    hour, then to the second)."""
    return tuple(_find_changes(time_zone, first, last))


def _find_changes(time_zone: str, first: date, last: date) -> Iterator[int]:
    tz = zone(time_zone)
    moment = datetime(first.year, first.month, first.day, tzinfo=UTC)
    end = datetime(last.year, last.month, last.day, tzinfo=UTC)
    offset = moment.astimezone(tz).utcoffset()
    while moment < end:
        later = moment + timedelta(hours=1)
        if later.astimezone(tz).utcoffset() != offset:
            low, high = moment, later
            while high - low > timedelta(seconds=1):
                middle = low + (high - low) / 2
                if middle.astimezone(tz).utcoffset() == offset:
                    low = middle
                else:
                    high = middle
            yield _micros(high)
            offset = later.astimezone(tz).utcoffset()
        moment = later


@pytest.mark.parametrize("time_zone", ZONES)
@pytest.mark.parametrize("cut_hour", [0, 1, 4, 23])
def test_logical_days_by_the_hour_equal_logical_day(time_zone: str, cut_hour: int) -> None:
    tz = zone(time_zone)
    days = LogicalDays(tz=tz, cut_hour=cut_hour)
    rng = random.Random(cut_hour)
    instants = []
    for change in _changes(time_zone, date(2017, 6, 1), date(2019, 6, 1)):
        instants += [change + delta for delta in (-3_600_000_001, -1, 0, 1, 1_800_000_000)]
    assert instants or time_zone in ("Asia/Shanghai", "Asia/Kolkata")
    start = _micros(datetime(2017, 6, 1, tzinfo=UTC))
    instants += [start + rng.randrange(2 * 365 * 86_400_000_000) for _ in range(1_000)]
    hours = range(0, 2 * 365 * 24, 5)  # hour starts and ends over both years
    instants += [start + hour * 3_600_000_000 + rng.randrange(-2, 2) for hour in hours]
    rng.shuffle(instants)
    for micros in instants:
        moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)
        expected = logical_day(moment, tz=tz, cut_hour=cut_hour)
        assert days.of_micros(micros) == expected, moment
        first, end, day = days.around(micros)
        assert day == expected and first <= micros < end, moment
        assert logical_day(_moment(first), tz=tz, cut_hour=cut_hour) == expected, moment
        assert logical_day(_moment(end - 1), tz=tz, cut_hour=cut_hour) == expected, moment
        assert days.of(moment) == expected, moment
        assert days.of(moment.astimezone(tz)) == expected, moment


def test_logical_days_refuse_a_naive_time_as_logical_day_does() -> None:
    days = LogicalDays(tz=zone("Europe/Berlin"), cut_hour=4)
    with pytest.raises(ValueError, match="aware"):
        days.of(datetime(2026, 3, 29, 2, 30))
