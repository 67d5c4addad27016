"""The pages' words in English and Chinese, and which one a browser gets.

lang = negotiate(cookie=None, accept_language="zh-CN,zh;q=0.9,en;q=0.8")  # "zh"
t = Translator(lang)
t("episodes_n", n=3)  # "3 个片段"
"""

from __future__ import annotations

from datetime import date
from typing import Literal, get_args

from app.pyramid.episodes import IDLE_TITLE
from app.rules.categories import CATEGORY_LABELS_ZH, Category
from app.signal_labels import signal_label
from app.web.i18n_categories import CATEGORY_MESSAGES
from app.web.i18n_tokens import TOKEN_MESSAGES

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = get_args(Lang)

_CATEGORY_EN: dict[Category, str] = {
    "work": "Work",
    "study": "Study",
    "social": "Social",
    "entertainment": "Entertainment",
    "system": "Idle / system",
    "uncategorized": "Uncategorized",
}
_CATEGORIES: dict[str, tuple[str, str]] = {
    c: (en, CATEGORY_LABELS_ZH[c]) for c, en in _CATEGORY_EN.items()
}

_WEEKDAYS = {
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
    "zh": ("周一", "周二", "周三", "周四", "周五", "周六", "周日"),
}

MESSAGES: dict[Lang, dict[str, str]] = {
    "en": {
        "skip": "Skip to content",
        "nav": "Pages",
        "nav_day": "Day",
        "nav_week": "Week",
        "nav_month": "Month",
        "nav_search": "Search",
        "nav_ask": "Ask",
        "nav_privacy": "Privacy",
        "sign_in": "Sign in",
        "sign_out": "Sign out",
        "signin_intro": "Paste an API token once. It stays on the server; this browser "
        "keeps only a session cookie.",
        "signin_hint": "Create one with: timetrace token create --user me",
        "signin_token": "API token",
        "signin_bad": "That token is unknown or revoked.",
        "signed_out": "You are signed out.",
        "prev_day": "Previous day",
        "next_day": "Next day",
        "today": "Today",
        "keys_hint": "Keys: ← → other days · + − zoom · Shift+← → pan · Tab to a block, "
        "Enter opens it · Esc closes",
        "timeline": "Timeline by device",
        "no_activity": "No activity recorded on this day.",
        "episodes_n": "{n} episodes",
        "minutes_n": "{n} min",
        "idle_minutes_n": "{n} min idle",
        "category_by_model": "(category from the summary)",
        "hours_n": "{n} h",
        "totals": "Time by category",
        "total": "Total",
        "top_apps": "Top apps",
        "top_sites": "Top sites",
        "site_from_url": "from URLs",
        "site_from_title": "from window titles naming the site",
        "none": "Nothing yet.",
        "narrative": "Narrative",
        "narrative_pending": "The narrative is pending: it is written by the model once the "
        "period is over and its summaries are done.",
        "narrative_failed": "The model could not write a narrative for this period.",
        "narrative_skipped": "No narrative: nothing to summarise.",
        "narrative_pending_rules": "Written by rule from the numbers; the model's narrative "
        "replaces it once written.",
        "narrative_none": "Nothing was recorded in this period.",
        "narrative_by_rules": "written by rule from the numbers",
        "digest_live": "Not rolled up yet: these numbers are computed live.",
        "close": "Close",
        "episode": "Episode",
        "summary": "Summary",
        "summary_pending": "Summary pending (written when a model is configured).",
        "cues": "Cues",
        "records": "Records",
        "records_more": "and {n} more",
        "interruptions": "Interruptions",
        "signals": "Signals",
        "relabel": "Category",
        "relabel_button": "Re-label",
        "relabelled": "Re-labelled: the day was recomputed.",
        "episode_gone": "This episode no longer exists (its day was rebuilt).",
        "app": "App",
        "title": "Title",
        "time": "Time",
        "device": "Device",
        "idle": "idle",
        "severity": "severity",
        "week_of": "Week {key}",
        "month_of": "Month {key}",
        "prev_period": "Previous",
        "next_period": "Next",
        "hours_per_day": "Hours per day by category",
        "active_hours": "Active",
        "focus_minutes": "Focus",
        "distraction_minutes": "Distraction",
        "late_night_minutes": "Late night",
        "habits": "Habits",
        "habit_count": "{count} times on {days} days",
        "evidence": "Evidence",
        "signals_more": "More signals exist than are listed here.",
        "search": "Search",
        "search_label": "Words or a phrase, in any language",
        "search_button": "Search",
        "results_n": "{n} results",
        "no_results": "No episode matches.",
        "search_mode_keyword": "keyword search",
        "search_mode_hybrid": "hybrid search (meaning + keywords)",
        "ask": "Ask",
        "ask_intro": "Ask about your time in Chinese or English. The answer comes from the "
        "same tools as these pages; each tool called is shown as it runs. Without a chat "
        "model the offline answerer replies.",
        "ask_label": "Question",
        "ask_button": "Ask",
        "ask_new": "New conversation",
        "ask_recent": "Conversations",
        "ask_needs_script": "Asking needs JavaScript: the answer streams into the page.",
        "ask_step_call": "Called {tool}",
        "ask_step_result": "{tokens} tokens read",
        "ask_step_error": "refused: {error}",
        "ask_budget": "Budget: {used} of {limit} tokens used",
        "ask_subagent": "deep_scan: {detail}",
        "ask_done": "Done ({mode}) · tools called: {tools} · {tokens} tokens · {ms} ms",
        "ask_cancelled": "Stopped before the answer was complete.",
        "ask_failed": "The question failed: {message}",
        "ask_cited": "Episodes cited:",
        "privacy": "Privacy",
        "delete_range": "Delete a time range",
        "delete_intro": "Everything captured in the range is erased: titles, URLs, "
        "screenshots, descriptions; summaries and digests built from it are rebuilt without it.",
        "from": "From",
        "to": "To",
        "all_devices": "All devices",
        "preview": "Show what will be erased",
        "confirm_delete": "Erase these records",
        "cancel": "Cancel",
        "nothing_to_erase": "Nothing was recorded in that range.",
        "will_erase": "{n} records will be erased:",
        "episodes_touched": "Episodes built on them (rebuilt without them)",
        "erased": "Erased {n} records; their days were rebuilt.",
        "bad_range": "Give a start and an end, the end after the start.",
        "devices": "Devices",
        "kind": "Kind",
        "added": "Added",
        "tokens": "API tokens",
        "token_name": "Name",
        "created": "Created",
        "revoked": "Revoked",
        "sessions": "Browser sessions",
        "revoke": "Revoke",
        "revoke_note": "Revoking the token this browser signed in with signs it out.",
        "coverage": "Uncategorized apps and sites",
        "coverage_intro": "What took time that no rule categorised (last week unless you choose "
        "other days), each with a rule line that would.",
        "coverage_summary": "{hours} h uncategorized of {active} h active ({share} %).",
        "coverage_paste": "Add these to your rules file (TIMETRACE_RULES_FILE), each with its "
        "category:",
        "site": "Site",
        "rule": "Rule",
        "no_rule": "a private or untitled window: nothing to match",
        "show": "Show",
        "error": "Something is wrong",
        "not_found": "Not found.",
        "signin_required": "Sign in to continue.",
        "forbidden": "This form has expired or came from another site; reload the page and "
        "try again.",
        "back": "Back to the day view",
        "report": "Report",
        "report_md": "Markdown",
        "report_html": "HTML",
        "report_title": "TimeTrace report — {period}",
        "period_range": "{first} – {last}",
        "category": "Category",
        "hours": "Hours",
        "day": "Day",
        # The Rules page and "Always count … as …" (app/web/rules.py).
        "nav_rules": "Rules",
        "rules": "Your category rules",
        "rules_intro": "Tried in this order before the rules file and the defaults; the first "
        "that names a record gives its category. Saving re-categorises your history.",
        "rules_coverage_link": "What is still uncategorized?",
        "rules_none": "No rules of your own yet. Add one below, or from an app, site or "
        "episode: “Always count as …”.",
        "rule_kind": "Kind",
        "rule_kind_app": "App",
        "rule_kind_site": "Site",
        "rule_kind_title": "Titles matching",
        "rule_pattern": "Name or text",
        "rule_as": "Count as",
        "rule_pick": "Choose a category",
        "rule_actions": "Actions",
        "rule_kinds_hint": "An app by any of its names (code.exe, VS Code); a site by its "
        "domain (github.com, with its subdomains); or text window titles contain, any case, "
        "* for anything.",
        "rule_add": "Add a rule",
        "rule_edit": "Change a rule",
        "rule_delete": "Delete a rule",
        "rule_line": "{kind} “{pattern}” counts as {category}.",
        "rule_preview_button": "Preview",
        "rule_preview": "This changes {hours} h of your history ({records} records on {days} "
        "device-days).",
        "rule_save_add": "Save and re-categorise",
        "rule_save_edit": "Save and re-categorise",
        "rule_save_delete": "Delete and re-categorise",
        "rule_saved_rebuilt": "Saved: {n} device-days were recomputed.",
        "rule_saved_pending": "Saved: {n} device-days are being recomputed in the background.",
        "rule_pending": "{n} device-days are still being recomputed.",
        "rule_edit_link": "Edit",
        "rule_delete_link": "Delete",
        "rule_up": "Try earlier",
        "rule_down": "Try later",
        "always_count": "Always count as…",
        "always_title_app": "Always count the app {name} as a category",
        "always_title_site": "Always count the site {name} as a category",
        "always_title_title": "Always count titles matching “{name}” as a category",
        "coverage_to_rules": "Count an app or site as a category for good: your rules",
        "always_short": "+ rule",
        "rule_recategorizing": "Your history is being re-categorised in the background; "
        "reload to see how far it is.",
        "retention": "Retention and storage",
        "retention_days": "{n} days",
        "retention_forever": "kept forever",
        "retention_tiers": "Raw records: {raw}; episode text: {episodes}; digests and "
        "signals: kept forever.",
        "retention_expired": "Raw records before {day} have expired; their episodes and "
        "digests stay.",
        "retention_layer": "Layer",
        "retention_rows": "Rows",
        "retention_bytes": "Size",
        "retention_tier_raw": "Tier: raw records (with descriptions and door events)",
        "retention_tier_episodes": "Tier: episode text",
        "retention_tier_digests": "Tier: digests and signals",
        "layer_records": "Raw records",
        "layer_record_analyses": "Frame descriptions",
        "layer_episodes": "Episodes",
        "layer_digests": "Digests",
        "layer_signals": "Signals",
        "layer_aw_events": "ActivityWatch door events",
        "layer_conversations": "Conversations",
        "retention_frees": "The next retention run frees {records} records ({bytes}) and the "
        "text of {episodes} episodes.",
        "episode_moved": "Episode #{old} was rebuilt with its day: its time is now in this one.",
        "summary_no_model": "No model configured.",
        "summary_by_rules": "Written by rule from the episode's own records (no model).",
        "pick_day": "Pick a day",
        "pick_week": "Pick a week",
        "pick_month": "Pick a month",
        "go": "Go",
        "window_whole": "Whole day",
        "window_range": "{start}–{end}",
        "level_episodes": "episodes",
        "level_records": "records",
        "zoom_in": "Zoom in",
        "zoom_out": "Zoom out",
        "whole_day": "Whole day",
        "latest_day": "Latest day with data: {day}",
        "idle_title": "Idle or locked",
        "records_prev": "← Earlier records",
        "records_next": "Later records →",
        "records_page": "Page {n}",
        "hours_by_hour": "Active hours by hour of day",
        "range": "Custom range",
        "range_of": "{first} – {last}",
        "app_titles": "{name}: titles and time",
        "app_period": "{first} – {last}",
        "signals_all": "See every signal of the period",
        "all_signals": "Signals: {period}",
        "hour": "Hour",
    },
    "zh": {
        "skip": "跳到正文",
        "nav": "页面",
        "nav_day": "日",
        "nav_week": "周",
        "nav_month": "月",
        "nav_search": "搜索",
        "nav_ask": "提问",
        "nav_privacy": "隐私",
        "sign_in": "登录",
        "sign_out": "退出",
        "signin_intro": "粘贴一次 API 令牌。令牌留在服务器上，浏览器只保存会话 Cookie。",
        "signin_hint": "用这个命令创建：timetrace token create --user me",
        "signin_token": "API 令牌",
        "signin_bad": "这个令牌不存在或已被吊销。",
        "signed_out": "已退出。",
        "prev_day": "前一天",
        "next_day": "后一天",
        "today": "今天",
        "keys_hint": "按键：← → 切换日期 · + − 缩放 · Shift+← → 平移 · "
        "Tab 选中片段，回车打开 · Esc 关闭",
        "timeline": "各设备时间线",
        "no_activity": "这一天没有记录。",
        "episodes_n": "{n} 个片段",
        "minutes_n": "{n} 分钟",
        "idle_minutes_n": "空闲 {n} 分钟",
        "category_by_model": "（类别来自摘要）",
        "hours_n": "{n} 小时",
        "totals": "各类别时长",
        "total": "合计",
        "top_apps": "常用应用",
        "top_sites": "常去网站",
        "site_from_url": "来自网址",
        "site_from_title": "来自写着该网站的窗口标题",
        "none": "暂无。",
        "narrative": "叙述",
        "narrative_pending": "叙述尚未生成：时段结束且摘要完成后由模型撰写。",
        "narrative_failed": "模型未能为这个时段写出叙述。",
        "narrative_skipped": "没有叙述：没有可总结的内容。",
        "narrative_pending_rules": "以上由规则根据数字写成；模型写好叙述后将替换它。",
        "narrative_none": "这个时段没有记录。",
        "narrative_by_rules": "由规则根据数字写成",
        "digest_live": "尚未汇总：这些数字为实时计算。",
        "close": "关闭",
        "episode": "片段",
        "summary": "摘要",
        "summary_pending": "摘要待生成（配置模型后撰写）。",
        "cues": "线索",
        "records": "记录",
        "records_more": "另有 {n} 条",
        "interruptions": "打断",
        "signals": "信号",
        "relabel": "类别",
        "relabel_button": "重新标注",
        "relabelled": "已重新标注：这一天已重新计算。",
        "episode_gone": "这个片段已不存在（它所在的日期已重建）。",
        "app": "应用",
        "title": "标题",
        "time": "时间",
        "device": "设备",
        "idle": "空闲",
        "severity": "强度",
        "week_of": "{key} 周",
        "month_of": "{key} 月",
        "prev_period": "上一个",
        "next_period": "下一个",
        "hours_per_day": "每天各类别小时数",
        "active_hours": "活跃",
        "focus_minutes": "专注",
        "distraction_minutes": "分心",
        "late_night_minutes": "深夜",
        "habits": "习惯",
        "habit_count": "{days} 天内 {count} 次",
        "evidence": "证据",
        "signals_more": "还有更多信号未列出。",
        "search": "搜索",
        "search_label": "关键词或一句话，中英文皆可",
        "search_button": "搜索",
        "results_n": "{n} 条结果",
        "no_results": "没有匹配的片段。",
        "search_mode_keyword": "关键词搜索",
        "search_mode_hybrid": "混合搜索（语义 + 关键词）",
        "ask": "提问",
        "ask_intro": "用中文或英文询问你的时间。回答来自与这些页面相同的工具，"
        "每次调用工具都会实时显示。未配置对话模型时由离线回答器作答。",
        "ask_label": "问题",
        "ask_button": "提问",
        "ask_new": "新对话",
        "ask_recent": "对话",
        "ask_needs_script": "提问需要 JavaScript：回答以流的方式显示在页面中。",
        "ask_step_call": "调用 {tool}",
        "ask_step_result": "读取 {tokens} 个 token",
        "ask_step_error": "被拒绝：{error}",
        "ask_budget": "预算：已用 {used} / {limit} 个 token",
        "ask_subagent": "deep_scan：{detail}",
        "ask_done": "完成（{mode}）· 调用工具 {tools} 次 · {tokens} 个 token · {ms} 毫秒",
        "ask_cancelled": "回答未完成就停止了。",
        "ask_failed": "提问失败：{message}",
        "ask_cited": "引用的片段：",
        "privacy": "隐私",
        "delete_range": "删除一段时间",
        "delete_intro": "这段时间内采集的一切都会被抹去：标题、网址、截图、描述；"
        "由它们生成的摘要和汇总会在没有它们的情况下重建。",
        "from": "开始",
        "to": "结束",
        "all_devices": "所有设备",
        "preview": "查看将被删除的内容",
        "confirm_delete": "删除这些记录",
        "cancel": "取消",
        "nothing_to_erase": "这段时间没有记录。",
        "will_erase": "将删除 {n} 条记录：",
        "episodes_touched": "受影响的片段（将在删除后重建）",
        "erased": "已删除 {n} 条记录，相关日期已重建。",
        "bad_range": "请给出开始和结束时间，结束须晚于开始。",
        "devices": "设备",
        "kind": "类型",
        "added": "添加于",
        "tokens": "API 令牌",
        "token_name": "名称",
        "created": "创建于",
        "revoked": "已吊销",
        "sessions": "浏览器会话",
        "revoke": "吊销",
        "revoke_note": "吊销本浏览器登录所用的令牌会让它退出登录。",
        "coverage": "未分类的应用和网站",
        "coverage_intro": "没有规则归类的时间花在了哪里（默认上周，可选其他日期），"
        "每项附一条可归类它的规则。",
        "coverage_summary": "活跃 {active} 小时中有 {hours} 小时未分类（{share}%）。",
        "coverage_paste": "把这些加入你的规则文件（TIMETRACE_RULES_FILE），并为每条设好类别：",
        "site": "网站",
        "rule": "规则",
        "no_rule": "隐私或无标题窗口：无可匹配内容",
        "show": "显示",
        "error": "出错了",
        "not_found": "未找到。",
        "signin_required": "请先登录。",
        "forbidden": "表单已过期或来自其他网站；请刷新页面后重试。",
        "back": "回到日视图",
        "report": "报告",
        "report_md": "Markdown",
        "report_html": "HTML",
        "report_title": "TimeTrace 报告 — {period}",
        "period_range": "{first} 至 {last}",
        "category": "类别",
        "hours": "小时",
        "day": "日期",
        # 规则页与“总是算作……”（app/web/rules.py）。
        "nav_rules": "规则",
        "rules": "我的分类规则",
        "rules_intro": "按此顺序优先于规则文件和默认规则；第一条命中记录的规则决定其类别。"
        "保存后会重新归类历史记录。",
        "rules_coverage_link": "还有哪些未分类？",
        "rules_none": "还没有自己的规则。可在下方添加，或在应用、网站、片段处点“总是算作……”。",
        "rule_kind": "类型",
        "rule_kind_app": "应用",
        "rule_kind_site": "网站",
        "rule_kind_title": "标题包含",
        "rule_pattern": "名称或文字",
        "rule_as": "算作",
        "rule_pick": "选择类别",
        "rule_actions": "操作",
        "rule_kinds_hint": "应用可用任一名称（code.exe、VS Code）；"
        "网站用域名（github.com，含子域名）；标题用其中包含的文字，不分大小写，* 代表任意内容。",
        "rule_add": "添加规则",
        "rule_edit": "修改规则",
        "rule_delete": "删除规则",
        "rule_line": "{kind}“{pattern}”算作{category}。",
        "rule_preview_button": "预览",
        "rule_preview": "这将改变 {hours} 小时的历史记录（{days} 个设备日中的 {records} 条记录）。",
        "rule_save_add": "保存并重新归类",
        "rule_save_edit": "保存并重新归类",
        "rule_save_delete": "删除并重新归类",
        "rule_saved_rebuilt": "已保存：{n} 个设备日已重新计算。",
        "rule_saved_pending": "已保存：{n} 个设备日正在后台重新计算。",
        "rule_pending": "还有 {n} 个设备日正在重新计算。",
        "rule_edit_link": "修改",
        "rule_delete_link": "删除",
        "rule_up": "提前",
        "rule_down": "延后",
        "always_count": "总是算作…",
        "always_title_app": "总是把应用 {name} 算作某个类别",
        "always_title_site": "总是把网站 {name} 算作某个类别",
        "always_title_title": "总是把标题包含“{name}”的窗口算作某个类别",
        "coverage_to_rules": "让某个应用或网站长期算作某类：我的规则",
        "always_short": "+ 规则",
        "rule_recategorizing": "正在后台重新归类历史记录；刷新页面查看进度。",
        "retention": "保留期限与存储",
        "retention_days": "{n} 天",
        "retention_forever": "永久保留",
        "retention_tiers": "原始记录：{raw}；片段文字：{episodes}；摘要与信号：永久保留。",
        "retention_expired": "{day} 之前的原始记录已过期；其片段与摘要仍保留。",
        "retention_layer": "层",
        "retention_rows": "行数",
        "retention_bytes": "大小",
        "retention_tier_raw": "层级：原始记录（含画面描述与接口事件）",
        "retention_tier_episodes": "层级：片段文字",
        "retention_tier_digests": "层级：摘要与信号",
        "layer_records": "原始记录",
        "layer_record_analyses": "画面描述",
        "layer_episodes": "片段",
        "layer_digests": "摘要",
        "layer_signals": "行为信号",
        "layer_aw_events": "ActivityWatch 接口事件",
        "layer_conversations": "对话",
        "retention_frees": "下一次保留任务将释放 {records} 条记录（{bytes}）"
        "及 {episodes} 个片段的文字。",
        "episode_moved": "片段 #{old} 随所在日期重建：它的时间现在在这个片段里。",
        "summary_no_model": "未配置模型。",
        "summary_by_rules": "由片段自身的记录按规则写成（未使用模型）。",
        "pick_day": "选择日期",
        "pick_week": "选择周",
        "pick_month": "选择月份",
        "go": "前往",
        "window_whole": "全天",
        "window_range": "{start}–{end}",
        "level_episodes": "片段",
        "level_records": "记录",
        "zoom_in": "放大",
        "zoom_out": "缩小",
        "whole_day": "全天",
        "latest_day": "最近有数据的一天：{day}",
        "idle_title": "空闲或锁屏",
        "records_prev": "← 更早的记录",
        "records_next": "更晚的记录 →",
        "records_page": "第 {n} 页",
        "hours_by_hour": "按钟点的活跃小时数",
        "range": "自定义范围",
        "range_of": "{first} 至 {last}",
        "app_titles": "{name}：标题与时长",
        "app_period": "{first} 至 {last}",
        "signals_all": "查看这段时间的全部信号",
        "all_signals": "信号：{period}",
        "hour": "钟点",
    },
}

for _lang in LANGS:  # the user's own categories (the Rules page)
    MESSAGES[_lang].update(CATEGORY_MESSAGES[_lang])
    MESSAGES[_lang].update(TOKEN_MESSAGES[_lang])


def negotiate(*, cookie: str | None, accept_language: str | None) -> Lang:
    """The language the switch chose, else the browser's first of Chinese or English."""
    if cookie in LANGS:
        return "zh" if cookie == "zh" else "en"
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                quality = 0.0
        ranked.append((-quality, index, tag.strip().lower().split("-")[0]))
    for _, _, primary in sorted(ranked):
        if primary in ("zh", "en"):
            return "zh" if primary == "zh" else "en"
    return "en"


class Translator:
    """`t(key, **values)` in one language; an unknown key is a bug, so it raises."""

    def __init__(self, lang: Lang) -> None:
        self.lang: Lang = lang
        self._messages = MESSAGES[lang]

    def __call__(self, key: str, /, **values: object) -> str:
        text = self._messages[key]
        return text.format(**values) if values else text

    def _pick(self, labels: tuple[str, str] | None, fallback: str) -> str:
        if labels is None:
            return fallback
        return labels[1] if self.lang == "zh" else labels[0]

    def category(self, category: str) -> str:
        return self._pick(_CATEGORIES.get(category), category)

    def episode_title(self, title: str, category: str) -> str:
        """An episode's title; an idle sitting's (written bilingual by the pyramid) in
        this language."""
        return self("idle_title") if category == "system" and title == IDLE_TITLE else title

    def habit(self, name: str) -> str:
        """A signal kind, or kind:pattern (rework:undo_storm), as a heading."""
        label = signal_label(name, self.lang)
        return label if self.lang == "zh" else label[:1].upper() + label[1:]

    def day(self, day: date, *, weekday: bool = True) -> str:
        name = _WEEKDAYS[self.lang][day.weekday()]
        if self.lang == "zh":
            text = f"{day.year}年{day.month}月{day.day}日"
            return f"{text} {name}" if weekday else text
        text = f"{day.day} {day:%b} {day.year}"
        return f"{name} {text}" if weekday else text

    def period(self, grain: str, key: str, first: date, last: date) -> str:
        """Week 2026-W23 (Mon 1 Jun 2026 – Sun 7 Jun 2026), or a day's own name."""
        if grain == "day":
            return self.day(first)
        span = self("period_range", first=self.day(first), last=self.day(last))
        if grain == "range":
            return f"{self('range')} ({span})"
        return f"{self(f'{grain}_of', key=key)} ({span})"

    def short_day(self, day: date) -> str:
        """A chart label: 06-02 Tue / 6/2 周二."""
        name = _WEEKDAYS[self.lang][day.weekday()]
        return f"{day.month}/{day.day} {name}" if self.lang == "zh" else f"{day:%m-%d} {name}"
