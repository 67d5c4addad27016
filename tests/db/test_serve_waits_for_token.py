"""`serve` on an address other than loopback serves nothing until an API token exists,
and waits for one rather than exit: under compose's `restart`, exiting before
`timetrace token create` would restart the API in a loop."""

from __future__ import annotations

import threading

from app.api.server import wait_for_token
from app.runtime.auth import hash_token, new_token
from app.runtime.services import Services


def test_a_public_address_waits_for_the_first_token_saying_so_once(services: Services) -> None:
    said: list[str] = []
    announced = threading.Event()

    def announce(message: str) -> None:
        said.append(message)
        announced.set()

    waiter = threading.Thread(
        target=wait_for_token,
        kwargs={"services": services, "host": "0.0.0.0", "poll_s": 0.05, "announce": announce},
        daemon=True,
    )
    waiter.start()
    assert announced.wait(timeout=30)
    assert waiter.is_alive()  # still waiting: no token yet
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    services.store.add_token(user_id=user.user_id, token_hash=hash_token(new_token()), name="t")
    waiter.join(timeout=30)
    assert not waiter.is_alive()
    assert len(said) == 1
    assert "0.0.0.0" in said[0] and "timetrace token create" in said[0]


def test_loopback_and_an_existing_token_do_not_wait(services: Services) -> None:
    said: list[str] = []
    wait_for_token(services, host="127.0.0.1", announce=said.append)
    user = services.store.ensure_user(name="me", time_zone="UTC", day_cut_hour=4)
    services.store.add_token(user_id=user.user_id, token_hash=hash_token(new_token()), name="t")
    wait_for_token(services, host="0.0.0.0", announce=said.append)
    assert said == []
