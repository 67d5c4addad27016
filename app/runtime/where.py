"""Where a TimeTrace answers, and what a newcomer does next: the lines `timetrace serve`
prints first, and the probe `timetrace status` uses to say whether a server runs.

    for line in serve_lines(host="127.0.0.1", port=8787, aw_port=5600, aw_user="me"):
        print(line)
    server_answers(base_url("127.0.0.1", 8787))    # False: nothing listens there
"""

from __future__ import annotations

import httpx

from app.store.accounts import Beginnings

# A wildcard address is reached on the loopback of the same machine.
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def base_url(host: str, port: int) -> str:
    """The address a client on this machine uses for a server bound to host:port."""
    reach = _WILDCARDS.get(host, host)
    return f"http://[{reach}]:{port}" if ":" in reach else f"http://{reach}:{port}"


def serve_lines(*, host: str, port: int, aw_port: int | None, aw_user: str) -> list[str]:
    """What `timetrace serve` answers on, one door a line."""
    url = base_url(host, port)
    lines = [
        f"TimeTrace is serving on {url}",
        f"  web pages    {url}/  (sign in with an API token)",
        f"  HTTP API     {url}/api/v1  (reference: {url}/docs)",
        f"  OpenAI door  {url}/v1  (model 'timetrace', an API token as the key)",
        f"  MCP          {url}/mcp  (streamable HTTP, the token as a bearer); "
        "stdio: `timetrace mcp config` prints a client config",
    ]
    if aw_port is not None:
        lines.append(
            f"  ActivityWatch door  {base_url('127.0.0.1', aw_port)}  "
            f"(aw-server's API, recording for {aw_user})"
        )
    return lines


def next_steps(found: Beginnings, *, aw_port: int | None) -> list[str]:
    """What to do next on an install with no user or no record yet (none when both)."""
    steps = []
    if not found.users:
        steps.append(
            "next: make a user and a token: "
            "timetrace token create --user NAME --time-zone Area/City"
        )
    if not found.any_record:
        if aw_port is None:
            steps.append(
                "next: record: restart with --aw-port 5600 and start ActivityWatch's "
                "watchers (aw-watcher-window, aw-watcher-afk): they send to port 5600"
            )
        else:
            default = " (their default)" if aw_port == 5600 else ""
            steps.append(
                f"next: record: start ActivityWatch's watchers (aw-watcher-window, "
                f"aw-watcher-afk) on this machine, pointed at port {aw_port}{default}"
            )
    return steps


def server_answers(url: str, *, timeout_s: float = 2.0) -> bool:
    """Whether a TimeTrace server answers its health check at `url` (degraded counts)."""
    try:
        reply = httpx.get(f"{url}/healthz", timeout=timeout_s)
    except httpx.HTTPError:
        return False
    return reply.status_code in (200, 503) and "status" in reply.text
