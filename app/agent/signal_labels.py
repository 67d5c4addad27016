"""Behaviour names in Chinese and English, as answers write them."""

from __future__ import annotations

SIGNAL_LABELS: dict[str, tuple[str, str]] = {
    "rework": ("返工", "rework"),
    "forced_rollback": ("强制回滚", "forced rollback"),
    "context_switch_storm": ("频繁切换", "context-switch storm"),
    "focus_block": ("专注块", "focus block"),
    "distraction": ("分心", "distraction"),
    "late_night": ("熬夜", "late night"),
    "idle_gap": ("长时间空闲", "idle gap"),
    "undo_storm": ("撤销风暴", "undo storm"),
    "error_retry": ("报错后反复重试", "error→retry loop"),
    "repeated_edit": ("同一文件反复修改", "the same file edited again and again"),
}
