"""The words of scoped tokens on the privacy page, in English and Chinese;
app/web/i18n.py adds them to its messages."""

from __future__ import annotations

TOKEN_MESSAGES: dict[str, dict[str, str]] = {
    "en": {
        "token_scope": "Scope",
        "token_expires": "Expires",
        "whole_user": "everything",
        "new_token": "New token (copy it now: it is shown only once)",
        "create_token": "Create token",
        "scoped_token": "A scoped token opens no page: sign in with a token without a scope.",
    },
    "zh": {
        "token_scope": "范围",
        "token_expires": "过期",
        "whole_user": "全部",
        "new_token": "新令牌（请立即复制：只显示这一次）",
        "create_token": "创建令牌",
        "scoped_token": "带范围的令牌不能打开网页：请用不带范围的令牌登录。",
    },
}
