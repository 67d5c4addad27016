"""The ActivityWatch door: aw-server's REST API on loopback, for one TimeTrace user, so
that ActivityWatch's watchers (window, afk, the browser extension, editor watchers)
record straight into TimeTrace; their buckets become records as they arrive.

    timetrace aw-door --user me                    # on 127.0.0.1:5600, aw-server's port
    timetrace serve --aw-port 5600 --aw-user me    # beside the API

`api` (the routes), `events` (aw-core's event model and heartbeat merge, pure),
`state` (last events and group commits), `guard` (loopback only, Host and Origin),
`live` (events into records), `server` (running it).
"""
