"""How model calls are paced, per process: one priority gate (interactive calls go
first, so a single GPU is never flooded by background work), one circuit breaker per
role (a failing endpoint is left alone with exponential backoff, ceiling 10 minutes,
and calls fail at once with `ModelUnavailable`), and the usage the endpoints reported.

    gate = PriorityGate(2)
    with gate.slot(interactive=True):
        ...
"""

from __future__ import annotations

import functools
import logging
import statistics
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from app.errors import TimeTraceError

log = logging.getLogger("timetrace.models")
BREAKER_CEILING_S = 600.0


class ModelUnavailable(TimeTraceError):
    """The model endpoint is not reachable right now; the work waits and is retried."""


@dataclass(slots=True)
class Usage:
    """What the endpoints reported, per role (chat, vision, embedding)."""

    calls: Counter[str] = field(default_factory=Counter)
    prompt_tokens: Counter[str] = field(default_factory=Counter)
    completion_tokens: Counter[str] = field(default_factory=Counter)
    seconds: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    breaker_openings: Counter[str] = field(default_factory=Counter)

    def median_seconds(self, role: str) -> float | None:
        """The median wall time of one call of the role, answered or not."""
        return statistics.median(self.seconds[role]) if self.seconds[role] else None


class PriorityGate:
    """A counting semaphore where interactive callers always go before background ones."""

    def __init__(self, slots: int) -> None:
        self._cond = threading.Condition()
        self._free = slots
        self._interactive_waiting = 0

    @contextmanager
    def slot(self, *, interactive: bool = False) -> Iterator[None]:
        with self._cond:
            self._interactive_waiting += interactive
            try:
                while self._free == 0 or (not interactive and self._interactive_waiting > 0):
                    self._cond.wait()
            finally:
                self._interactive_waiting -= interactive
            self._free -= 1
        try:
            yield
        finally:
            with self._cond:
                self._free += 1
                self._cond.notify_all()


class Breaker:
    def __init__(self, role: str, first_s: float, usage: Usage) -> None:
        self._lock = threading.Lock()
        self._role = role
        self._usage = usage
        self._open_until = 0.0
        self._first = first_s
        self._backoff = first_s

    def check(self) -> None:
        with self._lock:
            wait = self._open_until - time.monotonic()
        if wait > 0:
            raise ModelUnavailable(f"the model endpoint failed recently; next try in {wait:.0f} s")

    @property
    def is_open(self) -> bool:
        return self._open_until > time.monotonic()

    def failed(self, why: str) -> None:
        with self._lock:
            opening = self._backoff == self._first  # closed until now: say so once
            self._open_until = time.monotonic() + self._backoff
            if opening:
                self._usage.breaker_openings[self._role] += 1
                log.info(
                    "%s endpoint unavailable (%s): calls paused, first retry in %.0f s",
                    self._role,
                    why,
                    self._backoff,
                )
            self._backoff = min(self._backoff * 2, BREAKER_CEILING_S)

    def succeeded(self) -> None:
        with self._lock:
            if self._backoff != self._first:
                log.info("%s endpoint answers again", self._role)
            self._open_until = 0.0
            self._backoff = self._first


@functools.cache
def unavailable_errors() -> tuple[type[BaseException], ...]:
    """The errors that say an endpoint is away (an outage, not an answer). The HTTP
    and model client libraries are imported here, when a call first fails or is made,
    never when TimeTrace starts."""
    import httpx
    import openai

    return (
        httpx.TransportError,  # a stream cut off half-way is not raised as an openai error
        openai.APIConnectionError,
        openai.APITimeoutError,
        openai.InternalServerError,
        openai.RateLimitError,
        openai.NotFoundError,  # servers answer 404 while a model is (re)loading
    )
