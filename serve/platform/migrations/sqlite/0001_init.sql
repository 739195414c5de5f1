-- Accounts, API keys, idempotency records and server settings.
CREATE TABLE accounts (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    plan         TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
    status       TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'lapsed', 'suspended')),
    valid_until  TEXT,
    created_at   TEXT NOT NULL
);

CREATE TABLE api_keys (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts(id),
    name           TEXT NOT NULL,
    key_hash       TEXT NOT NULL UNIQUE,
    display_prefix TEXT NOT NULL,
    scopes         TEXT NOT NULL,
    operator       INTEGER NOT NULL DEFAULT 0,
    created_at     TEXT NOT NULL,
    last_used_at   TEXT,
    revoked_at     TEXT
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE idempotency (
    scope_key     TEXT PRIMARY KEY,
    body_hash     TEXT NOT NULL,
    completed     INTEGER NOT NULL DEFAULT 0,
    status        INTEGER,
    content_type  TEXT,
    body          BLOB,
    created_at    INTEGER NOT NULL,
    locked_until  INTEGER NOT NULL
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
