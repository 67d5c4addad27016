"""The door's marks in memory: the earliest start per bucket, the highest group number
committed, taken whole by a pass and given back by one that failed."""

from __future__ import annotations

from app.awdoor.marks import DirtyMarks


def test_a_mark_keeps_the_earliest_start_and_the_highest_group() -> None:
    marks = DirtyMarks()
    assert not marks
    marks.add([("window", 30), ("afk", 10), ("window", 20)], through=7)
    marks.add([("window", 25)], through=9)
    assert marks
    taken = marks.take()
    assert (taken.starts, taken.through) == ({"window": 20, "afk": 10}, 9)
    assert not marks
    # The highest number stays: it says what was committed, not what is left to do.
    assert marks.take().through == 9


def test_a_failed_pass_gives_its_marks_back_merged_with_those_written_since() -> None:
    marks = DirtyMarks()
    marks.add([("window", 50), ("afk", 40)], through=3)
    taken = marks.take()
    marks.add([("window", 60), ("web", 70)], through=4)
    marks.give_back(taken)
    again = marks.take()
    assert (again.starts, again.through) == ({"window": 50, "afk": 40, "web": 70}, 4)
