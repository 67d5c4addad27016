"""Importing an ActivityWatch export: throughput, memory, and the pyramid after it.

    python bench/import_aw.py [--days 365] [--scale 1.0]

Writes an export as aw-server does (buckets keyed by id, newest event first,
`+00:00` timestamps): one host's window, afk and Chrome tab buckets over a year,
≥ 1 M events and ≥ 200 MB at scale 1. Imports it with `timetrace import
activitywatch` in a process of its own (peak RSS is that process's), and again a
file a quarter the size into another database to show memory stays flat; then
times `timetrace backfill`. Besides the importer's CPU time it reads the database
server's (when it runs on this machine), so the line also says how many events per
second two cores could reach at best. Ends with one JSON line:
{"events_per_s": …, "peak_rss_mb": …, "pyramid_s": …, …}.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psutil
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import bench_database

HOST = "bench-desktop"
APPS = [
    ("Code.exe", ["main.py — timetrace — Visual Studio Code", "importers.py — 改进导入 — Code"]),
    ("WindowsTerminal.exe", ["pytest -q tests/test_import.py", "git log --oneline — 终端"]),
    ("slack.exe", ["#engineering | Acme - Slack", "私信 王小明 | Acme - Slack"]),
    ("WINWORD.EXE", ["季度报告 2026.docx - Word", "design notes.docx - Word"]),
    ("explorer.exe", ["Downloads", "文档"]),
]
PAGES = [
    (
        "https://github.com/acme/timetrace/pull/{n}",
        "Import ActivityWatch exports #{n} · acme/timetrace",
    ),
    ("https://www.bilibili.com/video/BV1x{n}", "城市夜景延时摄影 第{n}集_哔哩哔哩_bilibili"),
    ("https://docs.python.org/3/library/{n}.html", "{n} — Python 3.11 documentation"),
    ("https://www.zhihu.com/question/{n}", "如何评价第{n}号问题？ - 知乎"),
]


def _ts(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat()


def _event(t: float, duration: float, data: dict[str, object]) -> str:
    body = {"timestamp": _ts(t), "duration": round(duration, 3), "data": data}
    return json.dumps(body, ensure_ascii=False)


def day_events(day: datetime, rng: random.Random, scale: float) -> dict[str, list[str]]:
    """One day's events per bucket, oldest first: work blocks of window events (browser
    windows covered by tab events), with afk breaks between the blocks."""
    out: dict[str, list[str]] = {"window": [], "afk": [], "web": []}
    t = day.timestamp() + 8.5 * 3600 + rng.uniform(0, 1800)
    for _ in range(int(rng.randint(8, 12) * scale) or 1):
        block_start = t
        for _ in range(rng.randint(150, 230)):
            duration = rng.expovariate(1 / 11) + 1
            if rng.random() < 0.35:
                url, title = rng.choice(PAGES)
                n = rng.randint(1, 400)
                page = title.format(n=n)
                data: dict[str, object] = {"app": "chrome.exe", "title": f"{page} - Google Chrome"}
                # The tab changes inside the window event now and then.
                half = duration * rng.uniform(0.3, 0.7)
                for offset, span in ((0.0, half), (half, duration - half)):
                    tab = {
                        "url": url.format(n=n + int(offset > 0)),
                        "title": page,
                        "audible": False,
                        "incognito": False,
                        "tabCount": rng.randint(1, 30),
                    }
                    out["web"].append(_event(t + offset, span, tab))
            else:
                app, titles = rng.choice(APPS)
                data = {"app": app, "title": rng.choice(titles)}
            out["window"].append(_event(t, duration, data))
            t += duration + rng.choice((0.0, 0.0, 0.5, 2.0))
        out["afk"].append(_event(block_start, t - block_start, {"status": "not-afk"}))
        away = rng.uniform(300, 2400)
        out["afk"].append(_event(t, away, {"status": "afk"}))
        t += away
    return out


def write_export(path: Path, *, days: int, scale: float, seed: int = 14) -> int:
    """Write the export, newest event first per bucket; return how many events."""
    rng = random.Random(seed)
    first = datetime(2025, 1, 1, tzinfo=UTC)
    parts = {kind: Path(f"{path}.{kind}") for kind in ("window", "afk", "web")}
    files = {kind: part.open("w", encoding="utf-8") for kind, part in parts.items()}
    count = 0
    for index in reversed(range(days)):
        for kind, events in day_events(first + timedelta(days=index), rng, scale).items():
            for line in reversed(events):
                files[kind].write(line + "\n")
                count += 1
    for handle in files.values():
        handle.close()
    meta = {
        "window": (f"aw-watcher-window_{HOST}", "currentwindow", "aw-watcher-window"),
        "afk": (f"aw-watcher-afk_{HOST}", "afkstatus", "aw-watcher-afk"),
        "web": ("aw-watcher-web-chrome", "web.tab.current", "aw-client-web"),
    }
    with path.open("w", encoding="utf-8") as out:
        out.write('{"buckets": {')
        for position, (kind, (bucket_id, bucket_type, client)) in enumerate(meta.items()):
            head = {
                "id": bucket_id,
                "created": "2025-01-01T00:00:00.000000+00:00",
                "name": None,
                "type": bucket_type,
                "client": client,
                "hostname": HOST if kind != "web" else "unknown",
            }
            out.write(("," if position else "") + json.dumps(bucket_id) + ": ")
            out.write(json.dumps(head)[:-1] + ', "events": [')
            with parts[kind].open(encoding="utf-8") as lines:
                for number, line in enumerate(lines):
                    out.write(("," if number else "") + line.rstrip("\n"))
            out.write("]}")
            parts[kind].unlink()
        out.write("}}")
    return count


def run_import(
    path: Path, url: str, data_dir: Path, *, build: bool
) -> tuple[float, float, float, str]:
    """`timetrace import activitywatch` in its own process: seconds, its CPU seconds
    (what a loaded machine does not stretch), its peak RSS (MB), and what it printed."""
    env = {**os.environ, "TIMETRACE_DATABASE_URL": url, "TIMETRACE_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "app.cli", "import", "activitywatch", str(path)]
    command += ["--user", "bench"] + ([] if build else ["--no-build"])
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None
    output = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own rusage, not all children's
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - started
    if proc.returncode:
        raise SystemExit(f"import failed:\n{output}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output


def postgres_cpu_s(url: str) -> float | None:
    """CPU seconds the database server has used so far, its ended backends included (the
    postmaster reaps them); None when the server is not on this machine."""
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT pg_backend_pid()").fetchone()
        try:
            postmaster = psutil.Process(row[0] if row else 0).parent()
        except psutil.Error:
            return None
    if postmaster is None:
        return None
    total: float = sum(postmaster.cpu_times()[:4])  # its own, and its reaped children's
    for process in postmaster.children():
        with contextlib.suppress(psutil.Error):  # a backend that ended meanwhile
            total += sum(process.cpu_times()[:2])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--scale", type=float, default=1.0, help="work blocks per day")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="tt-bench-aw-"))
    big, small = work / "export.json", work / "quarter.json"
    events = write_export(big, days=args.days, scale=args.scale)
    small_events = write_export(small, days=max(1, args.days // 4), scale=args.scale, seed=15)
    print(f"export: {events:,} events, {big.stat().st_size / 1e6:.0f} MB", file=sys.stderr)

    with bench_database("timetrace_bench_import_small") as (url, _):
        _, _, small_rss, _ = run_import(small, url, work / "small", build=False)
    with bench_database("timetrace_bench_import_aw") as (url, _):
        server_before = postgres_cpu_s(url)
        seconds, cpu_s, rss, printed = run_import(big, url, work / "big", build=False)
        server_after = postgres_cpu_s(url)
        print(printed, file=sys.stderr)
        env = {**os.environ, "TIMETRACE_DATABASE_URL": url, "TIMETRACE_DATA_DIR": str(work)}
        started = time.perf_counter()
        subprocess.run([sys.executable, "-m", "app.cli", "backfill"], env=env, check=True)
        pyramid_s = time.perf_counter() - started

    result = {
        "events": events,
        "export_mb": round(big.stat().st_size / 1e6),
        "import_s": round(seconds, 1),
        "events_per_s": round(events / seconds),
        "import_cpu_s": round(cpu_s, 1),  # the importer's own, PostgreSQL's not counted
        "postgres_cpu_s": None,
        # What two cores could do at best: every CPU second of both processes in parallel.
        "events_per_s_2_cores_at_best": None,
        "peak_rss_mb": round(rss),
        "quarter_events": small_events,
        "quarter_peak_rss_mb": round(small_rss),
        "pyramid_s": round(pyramid_s, 1),
    }
    if server_before is not None and server_after is not None:
        server_s = server_after - server_before
        result["postgres_cpu_s"] = round(server_s, 1)
        result["events_per_s_2_cores_at_best"] = round(2 * events / (cpu_s + server_s))
    for path in (big, small):
        path.unlink()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
