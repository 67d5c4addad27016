"""The retention job's pure decisions: the first day a tier keeps, how far an expiry
moves (never back, never past a day not built yet), and the tiers people may set."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import pytest

from app.errors import InvalidInputError
from app.pyramid.retention import UserExpiry, _step, check_tiers, first_kept_day, size_text
from app.store.retention import RetentionUser

NOW = datetime(2003, 4, 1, 12, tzinfo=UTC)  # 20:00 in Shanghai: logical day 1 April


class Unsettled:
    """The one read a step makes: the first day not built yet (None: all built)."""

    def __init__(self, day: date | None = None) -> None:
        self.day = day
        self.asked: list[tuple[date, date]] = []

    def first_unsettled_day(self, *, user_id: int, day_from: date, day_to: date) -> date | None:
        self.asked.append((day_from, day_to))
        return self.day if self.day is not None and day_from <= self.day < day_to else None


def _user(**tiers: object) -> RetentionUser:
    values: dict[str, object] = {
        "user_id": 1,
        "name": "me",
        "time_zone": "Asia/Shanghai",
        "day_cut_hour": 4,
        "raw_days": 30,
        "episode_days": None,
        "keep_digest_titles": True,
        "raw_expired_before": None,
        "raw_expired_day": None,
        "episodes_expired_day": None,
        "applied_at": None,
        "raw_applied_before": None,
        "episodes_applied_day": None,
    }
    return RetentionUser.model_construct(**(values | tiers))


def _step_of(user: RetentionUser, store: Unsettled) -> UserExpiry | None:
    return _step(store, user, now=NOW)  # type: ignore[arg-type]


def test_a_tier_of_n_days_keeps_today_and_the_n_minus_1_before() -> None:
    assert first_kept_day(today=date(2003, 4, 1), days=30) == date(2003, 3, 3)
    assert first_kept_day(today=date(2003, 4, 1), days=1) == date(2003, 4, 1)


def test_the_expiry_is_the_start_of_the_first_kept_day_in_the_users_clock() -> None:
    step = _step_of(_user(), Unsettled())
    assert step is not None and step.raw_day == date(2003, 3, 3) and step.held_at is None
    assert step.raw_before == datetime(2003, 3, 3, 4, tzinfo=ZoneInfo("Asia/Shanghai"))
    assert step.episode_to is None and step.turns_from is None


def test_raw_waits_at_the_first_day_not_built_yet() -> None:
    store = Unsettled(date(2003, 2, 10))
    step = _step_of(_user(), store)
    assert step is not None and step.raw_day == step.held_at == date(2003, 2, 10)
    assert store.asked == [(date(1, 1, 1), date(2003, 3, 3))]


def test_an_expiry_never_moves_back_and_a_second_run_does_nothing() -> None:
    before = datetime(2003, 3, 2, 20, tzinfo=UTC)
    done = _user(raw_expired_day=date(2003, 3, 3), raw_expired_before=before)
    done = done.model_copy(update={"raw_applied_before": before})
    assert _step_of(done, Unsettled()) is None
    shorter = done.model_copy(update={"raw_days": 60})
    assert _step_of(shorter, Unsettled()) is None


def test_a_saved_expiry_not_carried_out_is_carried_out_from_where_the_last_run_reached() -> None:
    # A run killed after saving the expiry (the tier unchanged since, or turned off).
    before = datetime(2003, 3, 2, 20, tzinfo=UTC)
    saved = _user(
        episode_days=30,
        raw_expired_day=date(2003, 3, 3),
        raw_expired_before=before,
        episodes_expired_day=date(2003, 3, 3),
    ).model_copy(
        update={
            "raw_applied_before": datetime(2003, 2, 1, 20, tzinfo=UTC),
            "episodes_applied_day": date(2003, 2, 2),
        }
    )
    for user in (saved, saved.model_copy(update={"raw_days": None, "episode_days": None})):
        step = _step_of(user, Unsettled())
        assert step is not None and not step.moves
        assert (step.raw_before, step.raw_day) == (before, date(2003, 3, 3))
        assert step.turns_from == datetime(2003, 2, 1, 20, tzinfo=UTC)
        assert (step.episode_from, step.episode_to) == (date(2003, 2, 2), date(2003, 3, 3))


def test_episode_text_never_expires_past_raw() -> None:
    step = _step_of(_user(episode_days=30), Unsettled(date(2003, 2, 10)))
    assert step is not None and step.episode_to == date(2003, 2, 10)
    longer = _step_of(_user(episode_days=90), Unsettled())
    assert longer is not None and longer.episode_to == date(2003, 1, 2)


def test_tiers_refuse_episode_text_shorter_than_raw() -> None:
    check_tiers(raw_days=30, episode_days=365)
    check_tiers(raw_days=None, episode_days=None)
    for raw, episodes in ((None, 30), (30, 7), (0, None)):
        with pytest.raises(InvalidInputError, match="at least"):
            check_tiers(raw_days=raw, episode_days=episodes)


def test_sizes_read_as_people_read_them() -> None:
    assert [size_text(n) for n in (512, 2048, 5 * 1024**2, 3 * 1024**3)] == [
        "512 B",
        "2.0 kB",
        "5.0 MB",
        "3.0 GB",
    ]
