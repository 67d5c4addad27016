"""Export: a year of records written as `timetrace export` writes them, in records/s and
the exporting process's peak memory.

    python bench/export.py [--days 365] [--mean-record-s 4] [--format jsonl] [--build] [--import]

Loads --days of sample activity through the real ingest code (`load_sample_year`; with
--build, the pyramid too, so the file carries every layer), then exports the user to a
file in a process of its own (so the loading's memory is not counted): the same
`export_chunks` the CLI and the API stream. Ends with one JSON line:
{"records_per_s", "peak_rss_mb", "records", "rows", "seconds", "bytes", "format"}.
`records_per_s` is the records carried divided by the whole export's time (every kind).
With --import, also {"import_records_per_s", "import_rows_added"}: the file restored into
a new user of the same database.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

START = date(2001, 1, 1)


def peak_rss_kb() -> int:
    """This process's peak resident memory. On Linux, VmHWM: getrusage's ru_maxrss also
    keeps the high-water mark of the process before exec (the bench that forked it, with
    its loaded sample), which is not the export's."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def child(url: str, user_name: str, fmt: str, out: Path) -> None:
    """Export `user_name` to `out`; print the run's figures as one JSON line."""
    from app.db.connection import connect
    from app.db.export import ExportRequest, export_chunks, record_count
    from app.runtime.services import open_services
    from app.settings import Settings

    settings = Settings(database_url=url)
    with open_services(settings, url=url, auto_migrate=False) as services:
        user = services.store.get_user(name=user_name)
        assert user is not None
        request = ExportRequest(user=user, fmt=fmt)  # type: ignore[arg-type]
        with connect(url, settings=settings, autocommit=True) as conn:
            records = record_count(conn, request=request)
            before_kb = peak_rss_kb()
            started = time.perf_counter()
            size = 0
            with out.open("wb") as f:
                for chunk in export_chunks(conn, request=request):
                    f.write(chunk)
                    size += len(chunk)
            seconds = time.perf_counter() - started
    peak_kb = peak_rss_kb()
    rows = None
    if fmt == "jsonl":  # the trailer's count, read from the end of the file
        with out.open("rb") as f:
            f.seek(max(0, size - 65536))
            rows = json.loads(f.read().splitlines()[-1])["rows"]
    print(
        json.dumps(
            {"records": records, "rows": rows, "seconds": seconds, "bytes": size}
            | {"peak_rss_mb": peak_kb / 1024, "rss_before_mb": before_kb / 1024}
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--days", type=int, default=365)
    parser.add_argument("--mean-record-s", type=int, default=4)
    parser.add_argument("--format", default="jsonl", choices=["jsonl", "csv", "activitywatch"])
    parser.add_argument("--build", action="store_true", help="build the pyramid before")
    parser.add_argument(
        "--import",
        dest="and_import",
        action="store_true",
        help="then import the jsonl file into a new user of the same database, timed",
    )
    parser.add_argument("--child", nargs=3, metavar=("URL", "USER", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        url, user_name, out = args.child
        child(url, user_name, args.format, Path(out))
        return

    from datetime import UTC, datetime

    from app.pyramid.build import backfill
    from app.runtime.services import open_services
    from bench._common import bench_database, load_sample_year

    with bench_database("timetrace_bench_export") as (url, settings):
        with open_services(settings, url=url, auto_migrate=False) as services:
            user = services.store.ensure_user(name="bench", time_zone="UTC", day_cut_hour=4)
            for _ in load_sample_year(
                services, user, start=START, days=args.days, mean_record_s=args.mean_record_s
            ):
                pass
            if args.build:
                backfill(services.store, now=datetime.now(UTC), settings=settings)
        out = Path(tempfile.mkdtemp(prefix="tt-export-")) / "export.out"
        env = {**os.environ, "TIMETRACE_DATABASE_URL": url}
        command = [sys.executable, __file__, "--format", args.format, "--child", url, "bench"]
        ran = subprocess.run([*command, str(out)], env=env, capture_output=True, text=True)
        if ran.returncode != 0:
            sys.exit(ran.stderr)
        figures = json.loads(ran.stdout.strip().splitlines()[-1])
        if args.and_import and args.format == "jsonl":
            from app.db.restore import restore_file

            started = time.perf_counter()
            restored = restore_file(url=url, settings=settings, path=out, user_name="moved")
            figures["import_s"] = time.perf_counter() - started
            figures["import_new"] = restored.new
        out.unlink()
    print(
        json.dumps(
            {
                "records_per_s": round(figures["records"] / figures["seconds"]),
                "peak_rss_mb": round(figures["peak_rss_mb"], 1),
                "rss_before_export_mb": round(figures["rss_before_mb"], 1),
                "records": figures["records"],
                "rows": figures["rows"],
                "seconds": round(figures["seconds"], 2),
                "bytes": figures["bytes"],
                "format": args.format,
            }
            | (
                {
                    "import_records_per_s": round(figures["records"] / figures["import_s"]),
                    "import_rows_added": figures["import_new"],
                }
                if "import_s" in figures
                else {}
            )
        )
    )


if __name__ == "__main__":
    main()
