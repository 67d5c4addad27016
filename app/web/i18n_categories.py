"""The words of the user's own categories on the pages (the Rules page's tree), in
English and Chinese; app/web/i18n.py adds them to its messages."""

from __future__ import annotations

CATEGORY_MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "rule_kind_regex": "Regex (ActivityWatch)",
        "user_categories": "Your categories",
        "user_categories_intro": "Categories of your own under the six kinds (Games under "
        "Entertainment): a rule may count records as one, and every count can be made by them.",
        "user_categories_none": "No categories of your own yet.",
        "category_add": "Add a category",
        "category_name": "Name",
        "category_name_zh": "Chinese name",
        "category_color": "Colour",
        "category_under": "Under",
        "category_made": "Category {name} made.",
    },
    "zh": {
        "rule_kind_regex": "正则（ActivityWatch）",
        "user_categories": "我的类别",
        "user_categories_intro": "在六大类之下自建的类别（如娱乐下的“游戏”）：规则可把记录算作它，"
        "所有统计都可按它给出。",
        "user_categories_none": "还没有自建的类别。",
        "category_add": "添加类别",
        "category_name": "名称",
        "category_name_zh": "中文名",
        "category_color": "颜色",
        "category_under": "属于",
        "category_made": "已创建类别 {name}。",
    },
}
