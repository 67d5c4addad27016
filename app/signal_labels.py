"""What each behaviour signal is called, in Chinese and English: one table for the
pages, the reports and the offline answers alike.

    signal_label("rework:undo_storm", "zh")  # "返工（连续撤销）"
    signal_label("focus_block", "en")        # "focus block"
    signal_label("focus_block", "en").capitalize()  # a heading: "Focus block"

A name is a signal kind (`rework`) or a kind and the pattern that raised it
(`rework:undo_storm`); a name the table lacks is shown as it is.
"""

from __future__ import annotations

from typing import Literal

# kind or pattern → (Chinese, English). English is lower case: it stands inside
# sentences; a heading capitalizes it.
SIGNAL_LABELS: dict[str, tuple[str, str]] = {
    "rework": ("返工", "rework"),
    "forced_rollback": ("强制回滚", "forced rollback"),
    "context_switch_storm": ("频繁切换", "context-switch storm"),
    "focus_block": ("专注时段", "focus block"),
    "distraction": ("工作中分心", "distraction inside work"),
    "late_night": ("熬夜", "late night"),
    "idle_gap": ("长时间空闲", "long idle gap"),
    # The patterns behind rework.
    "undo_storm": ("连续撤销", "undo storm"),
    "error_retry": ("报错后反复重试", "error → retry loop"),
    "repeated_edit": ("同一文件撤销后反复修改", "one file redone after undoing it"),
}


def signal_label(name: str, language: Literal["zh", "en"]) -> str:
    """A kind, or a kind with its pattern in brackets: 返工（连续撤销）, rework (undo storm)."""
    kind, _, pattern = name.partition(":")
    index = 0 if language == "zh" else 1
    label = SIGNAL_LABELS.get(kind, (kind, kind))[index]
    if not pattern:
        return label
    detail = SIGNAL_LABELS.get(pattern, (pattern, pattern))[index]
    return f"{label}（{detail}）" if language == "zh" else f"{label} ({detail})"
