-- 0012: browser sign-in. A session is born from an API token pasted once and dies
-- with it (revoking the token ends its sessions); only the SHA-256 of the cookie is kept.
CREATE TABLE web_sessions (
    user_id      bigint NOT NULL,
    session_hash bytea NOT NULL UNIQUE CHECK (length(session_hash) = 32),
    token_id     bigint NOT NULL,
    csrf_token   text NOT NULL CHECK (length(csrf_token) >= 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (user_id, session_hash),
    FOREIGN KEY (user_id, token_id) REFERENCES api_tokens ON DELETE CASCADE,
    CHECK (expires_at > created_at)
);
CREATE INDEX web_sessions_expiry ON web_sessions (expires_at);
