-- PostgreSQL's twin of ../sqlite/0003_dashboard.sql: integers are BIGINT, blobs BYTEA, and text sorts
-- byte by byte (COLLATE "C") as in SQLite, so keysets and orders agree on both backends.
-- Dashboard sign-in sessions (SUPPLEMENT 5.8): only the hash of the session id is stored.
CREATE TABLE dashboard_sessions (
    session_hash TEXT COLLATE "C" PRIMARY KEY,
    account_id   TEXT COLLATE "C" NOT NULL REFERENCES accounts(id),
    key_id       TEXT COLLATE "C" NOT NULL REFERENCES api_keys(id),
    csrf         TEXT COLLATE "C" NOT NULL,
    expires_at   BIGINT NOT NULL
);
