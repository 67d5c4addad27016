"""Prompts for every model call, in Chinese and English (the shapes of the
answers are in app.enrich.answers).

The language follows the data: a text whose letters are mostly CJK gets the
Chinese prompt and a Chinese answer (`app.text.language_of`).
"""

from __future__ import annotations

from app.rules.categories import CATEGORIES
from app.text import Language

TITLE_MAX = 40

_CATS = "|".join(CATEGORIES)

SUMMARY_SYSTEM: dict[Language, str] = {
    "en": (
        "You summarise one sitting (an episode) of a person's screen activity, using only "
        "what the activity log below shows. Reply with one JSON object:\n"
        f"- title: at most {TITLE_MAX} characters, what they were doing "
        '(e.g. "Debugging the payment callback timeout")\n'
        "- summary: one paragraph of about 150 tokens\n"
        f"- category: one of {_CATS}, the one most of the time belongs to\n"
        "- tags: up to 8 short tags\n"
        "- cues: literal evidence of rework copied from the log — git reset/revert/--hard, "
        "repeated undo (Ctrl+Z ×N), the same file edited again and again, error→retry loops. "
        "Empty when there is none.\n"
        "Name only apps and sites that appear in the log. State no numbers of your own. "
        "Write in English."
    ),
    "zh": (
        "你在总结一个人屏幕活动中的一段连续时间（一个 episode），只依据下面的活动记录。"
        "输出一个 JSON 对象：\n"
        f"- title：不超过 {TITLE_MAX} 个字，概括在做什么（如「调试 支付回调超时」）\n"
        "- summary：一段约 150 token 的文字\n"
        f"- category：{_CATS} 之一，取时间占比最多的类别\n"
        "- tags：最多 8 个简短标签\n"
        "- cues：照抄记录中的返工/回滚线索——git reset/revert/--hard、连续撤销（Ctrl+Z×N）、"
        "同一文件反复修改、报错→重试循环；没有就留空数组。\n"
        "只提记录里出现过的应用和网站，不要自己编造数字。用中文写。"
    ),
}

NARRATIVE_SYSTEM: dict[Language, str] = {
    "en": (
        "You write a short narrative (at most 300 tokens) of a person's {period} from the "
        "summaries below. Tell what they did and how the time went. Every number you state "
        "must be copied from the METRICS block exactly as written there (hours with one "
        'decimal); do not compute new numbers. Reply with one JSON object: {{"narrative": '
        '"..."}}. Write in English.'
    ),
    "zh": (
        "根据下面的摘要，为这个人的{period}写一段简短叙述（不超过 300 token），讲清做了什么、"
        "时间怎么花的。提到的每个数字都必须原样照抄 METRICS 中的写法（小时保留一位小数），"
        '不要自己计算新数字。输出一个 JSON 对象：{{"narrative": "..."}}。用中文写。'
    ),
}

PERIOD_NAMES: dict[Language, dict[str, str]] = {
    "en": {"day": "day", "week": "week", "month": "month"},
    "zh": {"day": "一天", "week": "一周", "month": "一个月"},
}

DESCRIBE_PROMPT = (
    "Describe what this screenshot shows the person doing, in one or two sentences, in the "
    "language of the text on screen. Transcribe literally any version-control command "
    "(git reset, git revert, --hard), terminal command, error dialog or test failure "
    "visible, and put those literal strings in cues. Reply with one JSON object: "
    f"description, category (one of {_CATS}), confidence (0 to 1), cues."
)
