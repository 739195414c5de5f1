-- PostgreSQL's twin of ../sqlite/0002_oauth.sql: integers are BIGINT, blobs BYTEA, and text sorts
-- byte by byte (COLLATE "C") as in SQLite, so keysets and orders agree on both backends.
-- The OAuth 2.1 authorization server (SUPPLEMENT 5.4–5.7): registered clients, consent nonces,
-- authorization codes, token families and tokens. Secrets (nonces, codes, tokens) are stored
-- only as SHA-256 hex. Times are epoch seconds.
CREATE TABLE oauth_clients (
    client_id        TEXT COLLATE "C" PRIMARY KEY,
    client_name      TEXT COLLATE "C" NOT NULL,
    redirect_uris    TEXT COLLATE "C" NOT NULL, -- JSON array
    application_type TEXT COLLATE "C" NOT NULL,
    created_at       BIGINT NOT NULL,
    last_used_at     BIGINT NOT NULL
);

CREATE TABLE oauth_nonces (
    nonce_hash     TEXT COLLATE "C" PRIMARY KEY,
    client_id      TEXT COLLATE "C" NOT NULL,
    redirect_uri   TEXT COLLATE "C" NOT NULL,
    code_challenge TEXT COLLATE "C" NOT NULL,
    scope          TEXT COLLATE "C" NOT NULL,
    state          TEXT COLLATE "C",
    expires_at     BIGINT NOT NULL,
    used           BIGINT NOT NULL DEFAULT 0
);

-- One authorization (or one client_credentials grant) = one family; every token descends from it.
CREATE TABLE oauth_families (
    id           TEXT COLLATE "C" PRIMARY KEY,
    client_id    TEXT COLLATE "C",
    account_id   TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    key_id       TEXT COLLATE "C" NOT NULL REFERENCES api_keys(id),
    scope        TEXT COLLATE "C" NOT NULL,
    created_at   BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at   BIGINT
);
CREATE INDEX oauth_families_key ON oauth_families(key_id);

CREATE TABLE oauth_codes (
    code_hash      TEXT COLLATE "C" PRIMARY KEY,
    family_id      TEXT COLLATE "C" NOT NULL REFERENCES oauth_families(id),
    client_id      TEXT COLLATE "C" NOT NULL,
    redirect_uri   TEXT COLLATE "C" NOT NULL,
    code_challenge TEXT COLLATE "C" NOT NULL,
    expires_at     BIGINT NOT NULL,
    used_at        BIGINT
);

CREATE TABLE oauth_tokens (
    token_hash TEXT COLLATE "C" PRIMARY KEY,
    kind       TEXT COLLATE "C" NOT NULL CHECK (kind IN ('access', 'refresh')),
    family_id  TEXT COLLATE "C" NOT NULL REFERENCES oauth_families(id),
    expires_at BIGINT NOT NULL,
    -- A refresh token is used once: rotation marks it; a second use revokes the family.
    used_at    BIGINT
);
CREATE INDEX oauth_tokens_family ON oauth_tokens(family_id);
