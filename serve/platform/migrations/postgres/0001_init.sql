-- PostgreSQL's twin of ../sqlite/0001_init.sql: integers are BIGINT, blobs BYTEA, and text sorts
-- byte by byte (COLLATE "C") as in SQLite, so keysets and orders agree on both backends.
-- Accounts, API keys, idempotency records and server settings.
CREATE TABLE accounts (
    id           TEXT COLLATE "C" PRIMARY KEY,
    name         TEXT COLLATE "C" NOT NULL,
    plan         TEXT COLLATE "C" NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
    status       TEXT COLLATE "C" NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'lapsed', 'suspended')),
    valid_until  TEXT COLLATE "C",
    created_at   TEXT COLLATE "C" NOT NULL
);

CREATE TABLE api_keys (
    id             TEXT COLLATE "C" PRIMARY KEY,
    account_id     TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    name           TEXT COLLATE "C" NOT NULL,
    key_hash       TEXT COLLATE "C" NOT NULL UNIQUE,
    display_prefix TEXT COLLATE "C" NOT NULL,
    scopes         TEXT COLLATE "C" NOT NULL,
    operator       BIGINT NOT NULL DEFAULT 0,
    created_at     TEXT COLLATE "C" NOT NULL,
    last_used_at   TEXT COLLATE "C",
    revoked_at     TEXT COLLATE "C"
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE idempotency (
    scope_key     TEXT COLLATE "C" PRIMARY KEY,
    body_hash     TEXT COLLATE "C" NOT NULL,
    completed     BIGINT NOT NULL DEFAULT 0,
    status        BIGINT,
    content_type  TEXT COLLATE "C",
    body          BYTEA,
    created_at    BIGINT NOT NULL,
    locked_until  BIGINT NOT NULL
);

CREATE TABLE settings (
    key   TEXT COLLATE "C" PRIMARY KEY,
    value TEXT COLLATE "C" NOT NULL
);
