"""API tokens: random, shown once, stored only as SHA-256 digests."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "tt_"


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8")).digest()
