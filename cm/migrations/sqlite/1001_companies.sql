-- Company monitoring (SUPPLEMENT Part 4): accounts' snapshot generations, companies, their
-- claims and the replay records of create and import. Versions from 1001 on are company
-- monitoring's (the platform's stay below 1000; each migrator ignores the other's). Times are
-- epoch milliseconds (BIGINT) and the statements are plain SQL, so they run on PostgreSQL too.

CREATE TABLE cm_accounts (
    account_id          TEXT PRIMARY KEY,
    snapshot_generation BIGINT NOT NULL DEFAULT 0,
    -- The last changedAt handed out: each new one is greater, so keyset polling never skips.
    last_changed_at     BIGINT NOT NULL DEFAULT 0,
    created_at          BIGINT NOT NULL
);

CREATE TABLE cm_companies (
    company_id          TEXT PRIMARY KEY,
    account_id          TEXT NOT NULL,
    name                TEXT NOT NULL,
    -- The listing order: the lower-cased name, then the id.
    name_key            TEXT NOT NULL,
    domicile            TEXT NOT NULL,
    lifecycle           TEXT NOT NULL,
    customer_reference  TEXT,
    coverage            TEXT NOT NULL,
    observation         TEXT NOT NULL,
    coverage_changed_at BIGINT NOT NULL,
    created_at          BIGINT NOT NULL,
    updated_at          BIGINT NOT NULL,
    removed_at          BIGINT
);
CREATE INDEX cm_companies_listing ON cm_companies (account_id, name_key, company_id);
-- One live (active or paused) company per customer reference and account.
CREATE UNIQUE INDEX cm_companies_reference ON cm_companies (account_id, customer_reference)
    WHERE customer_reference IS NOT NULL AND lifecycle <> 'removed';

CREATE TABLE cm_claims (
    claim_id     TEXT PRIMARY KEY,
    company_id   TEXT NOT NULL,
    position     INTEGER NOT NULL,
    claim_type   TEXT NOT NULL,
    value        TEXT NOT NULL,
    provenance   TEXT NOT NULL,
    trust_state  TEXT NOT NULL,
    -- Allowed uses, their enum suffixes comma-separated in the documented order.
    allowed_uses TEXT NOT NULL,
    expires_at   BIGINT
);
CREATE INDEX cm_claims_company ON cm_claims (company_id, position);

CREATE TABLE cm_create_replays (
    account_id        TEXT NOT NULL,
    client_request_id TEXT NOT NULL,
    fingerprint       TEXT NOT NULL,
    company_id        TEXT NOT NULL,
    PRIMARY KEY (account_id, client_request_id)
);

CREATE TABLE cm_import_rows (
    account_id       TEXT NOT NULL,
    client_import_id TEXT NOT NULL,
    ordinal          INTEGER NOT NULL,
    fingerprint      TEXT NOT NULL,
    company_id       TEXT NOT NULL,
    PRIMARY KEY (account_id, client_import_id, ordinal)
);
