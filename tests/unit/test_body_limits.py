"""The request body's limits as pure functions: JSON depth counts brackets outside strings
only, and the byte limit fits a full batch of long records."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.api.limits import MAX_BODY_BYTES, json_depth
from app.ingest.records import MAX_BATCH

MB = 1024 * 1024


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab中\n'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


@given(json_values)
def test_json_depth_counts_brackets_outside_strings_only(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False, indent=1)):
        assert json_depth(text.encode()) == _depth(value)


def test_the_body_limit_fits_a_full_batch_of_long_records() -> None:
    assert MAX_BODY_BYTES == MAX_BATCH * 4 * 1024
    record = {
        "client_record_id": "r" * 40,
        "ts_start": "2026-06-02T09:00:00.123456+08:00",
        "ts_end": "2026-06-02T09:05:00.123456+08:00",
        "app": "Google Chrome",
        "window_title": "城市夜景 4K 航拍 — 哔哩哔哩 (゜-゜)つロ 干杯~-bilibili " * 6,
        "url": "https://www.bilibili.com/video/BV1xx411c7mD?p=1&spm_id_from=" + "x" * 200,
    }
    body = json.dumps({"device_id": "laptop", "records": [record] * MAX_BATCH}).encode()
    assert len(body) < MAX_BODY_BYTES
