"""The scripted day's export that tests/real_format.py builds (its heartbeats merged by
aw-core's `heartbeat_merge`) is what a real aw-server keeps of them: through the
importer, the real server's export gives the same active seconds per category."""

from __future__ import annotations

import pytest
from aw_client import ActivityWatchClient

from app.rules.categories import load_rules
from tests.aw_day import scripted_day
from tests.aw_real import AwServer, export, send
from tests.real_format import category_share, fixture_exports


def test_the_built_scripted_day_is_what_aw_server_keeps(
    aw_server: AwServer, aw_client: ActivityWatchClient
) -> None:
    day = scripted_day()
    send(aw_client, day.buckets, day.beats)
    rules = load_rules(user_file=None)
    real = category_share(export(aw_server), rules)
    built = category_share(fixture_exports()["aw_day"], rules)
    assert real.active > 4 * 3600
    assert set(real.seconds) == set(built.seconds)
    for category, seconds in real.seconds.items():
        assert built.seconds[category] == pytest.approx(seconds, abs=1e-3), category
