"""`python -m app.cli …`, as the `timetrace` command."""

from app.cli import main

main()
