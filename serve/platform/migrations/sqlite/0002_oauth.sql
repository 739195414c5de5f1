-- The OAuth 2.1 authorization server (SUPPLEMENT 5.4–5.7): registered clients, consent nonces,
-- authorization codes, token families and tokens. Secrets (nonces, codes, tokens) are stored
-- only as SHA-256 hex. Times are epoch seconds.
CREATE TABLE oauth_clients (
    client_id        TEXT PRIMARY KEY,
    client_name      TEXT NOT NULL,
    redirect_uris    TEXT NOT NULL, -- JSON array
    application_type TEXT NOT NULL,
    created_at       INTEGER NOT NULL,
    last_used_at     INTEGER NOT NULL
);

CREATE TABLE oauth_nonces (
    nonce_hash     TEXT PRIMARY KEY,
    client_id      TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    scope          TEXT NOT NULL,
    state          TEXT,
    expires_at     INTEGER NOT NULL,
    used           INTEGER NOT NULL DEFAULT 0
);

-- One authorization (or one client_credentials grant) = one family; every token descends from it.
CREATE TABLE oauth_families (
    id           TEXT PRIMARY KEY,
    client_id    TEXT,
    account_id   TEXT NOT NULL REFERENCES accounts(id),
    key_id       TEXT NOT NULL REFERENCES api_keys(id),
    scope        TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
);
CREATE INDEX oauth_families_key ON oauth_families(key_id);

CREATE TABLE oauth_codes (
    code_hash      TEXT PRIMARY KEY,
    family_id      TEXT NOT NULL REFERENCES oauth_families(id),
    client_id      TEXT NOT NULL,
    redirect_uri   TEXT NOT NULL,
    code_challenge TEXT NOT NULL,
    expires_at     INTEGER NOT NULL,
    used_at        INTEGER
);

CREATE TABLE oauth_tokens (
    token_hash TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
    family_id  TEXT NOT NULL REFERENCES oauth_families(id),
    expires_at INTEGER NOT NULL,
    -- A refresh token is used once: rotation marks it; a second use revokes the family.
    used_at    INTEGER
);
CREATE INDEX oauth_tokens_family ON oauth_tokens(family_id);
