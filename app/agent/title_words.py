"""Common title words in English and Chinese, so that a question in one language finds
a title written in the other ("这个月看发票花了多久" finds "invoice_2026_06.pdf").

The list is of everyday document and page words, not of any user's titles: a title
phrase that is one of these words is also known by the word's other forms. It holds
words only, never names of people, books or songs, which have no one translation.
"""

from __future__ import annotations

from typing import Final

from app.rules.things import loose

# Each row: the forms of one word, English first; every form finds the others.
_ROWS: Final[tuple[tuple[str, ...], ...]] = (
    ("invoice", "invoices", "发票"),
    ("receipt", "receipts", "收据", "小票"),
    ("report", "reports", "报告"),
    ("resume", "cv", "简历"),
    ("contract", "contracts", "合同"),
    ("budget", "预算"),
    ("meeting notes", "会议纪要", "会议记录"),
    ("notes", "笔记"),
    ("slides", "幻灯片"),
    ("paper", "papers", "论文"),
    ("thesis", "毕业论文"),
    ("homework", "assignment", "作业"),
    ("exam", "考试"),
    ("tutorial", "教程"),
    ("lecture", "讲座", "课程"),
    ("documentation", "docs", "文档"),
    ("manual", "手册"),
    ("proposal", "提案", "方案"),
    ("schedule", "calendar", "日程"),
    ("todo", "待办"),
    ("weekly report", "周报"),
    ("salary", "payslip", "工资"),
    ("tax", "taxes", "税"),
    ("bank statement", "statement", "账单"),
    ("recipe", "recipes", "菜谱"),
    ("news", "新闻"),
    ("translation", "翻译"),
    ("interview", "面试"),
    ("travel", "旅行"),
    ("flight", "flights", "机票"),
    ("hotel", "酒店"),
)


def _table() -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for row in _ROWS:
        for form in row:
            table[loose(form)] = tuple(f for f in row if f != form)
    return table


OTHER_FORMS: Final[dict[str, tuple[str, ...]]] = _table()


def other_forms(phrase: str) -> tuple[str, ...]:
    """The other forms of a title phrase that is a common title word, else none."""
    return OTHER_FORMS.get(loose(phrase), ())
