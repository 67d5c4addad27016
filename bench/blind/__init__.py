"""Blind question sets for `bench/agent_blind.py`: each module here (`before`, …) is a
set, loaded by name, that exposes `QUESTIONS` built from `bench.blind.spec`."""
