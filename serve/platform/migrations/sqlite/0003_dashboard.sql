-- Dashboard sign-in sessions (SUPPLEMENT 5.8): only the hash of the session id is stored.
CREATE TABLE dashboard_sessions (
    session_hash TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    key_id       TEXT NOT NULL REFERENCES api_keys(id),
    csrf         TEXT NOT NULL,
    expires_at   INTEGER NOT NULL
);
