-- Webhooks (issue 59): each account's endpoints, the outbox of events (written in the
-- transaction of the change it reports), one delivery per event and endpoint (its id is the
-- `webhook-id` the receiver sees on every attempt), and each delivery's attempts.

-- One row per account that has endpoints: a write takes it first, so the account's writers queue
-- and the endpoint limit checked inside a write holds at commit.
CREATE TABLE webhook_accounts (
    account_id TEXT PRIMARY KEY
);

CREATE TABLE webhook_endpoints (
    endpoint_id      TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL,
    url              TEXT NOT NULL,
    description      TEXT NOT NULL,
    -- JSON arrays: the event types it receives, and the datasets (empty: every one the plan reads).
    event_types      TEXT NOT NULL,
    datasets         TEXT NOT NULL,
    enabled          INTEGER NOT NULL,
    -- Why the service disabled it (failing for 5 days); empty when the owner did, or it is enabled.
    disabled_reason  TEXT NOT NULL,
    secret           TEXT NOT NULL,
    -- The secret a rotation replaced, still signing beside the new one until the instant after it.
    previous_secret  TEXT,
    previous_until   BIGINT,
    -- The first failed attempt since its last success (NULL: not failing).
    failing_since    BIGINT,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX webhook_endpoints_by_account ON webhook_endpoints (account_id, created_at);

CREATE TABLE webhook_events (
    event_seq   INTEGER PRIMARY KEY AUTOINCREMENT,
    event_type  TEXT NOT NULL,
    -- The account it belongs to; NULL for an event every account may receive (a dataset version).
    account_id  TEXT,
    -- What deliveries are ordered by: a company id, a dataset id.
    subject     TEXT NOT NULL,
    -- One event per change whoever announces it (a dataset version, from every replica).
    dedupe_key  TEXT UNIQUE,
    data        TEXT NOT NULL,
    created_at  BIGINT NOT NULL,
    fanned_out  INTEGER NOT NULL
);
CREATE INDEX webhook_events_to_fan_out ON webhook_events (fanned_out, event_seq);

CREATE TABLE webhook_deliveries (
    delivery_id     TEXT PRIMARY KEY,
    endpoint_id     TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    event_seq       BIGINT NOT NULL,
    event_type      TEXT NOT NULL,
    subject         TEXT NOT NULL,
    -- pending | delivered | failed
    state           TEXT NOT NULL,
    attempts        BIGINT NOT NULL,
    -- The attempt the retry schedule starts at (1; a redelivery starts it again).
    schedule_from   BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    -- A worker's claim on the next attempt, until when (an expired lease is free: a worker killed
    -- mid-delivery leaves the attempt to another).
    lease_owner     TEXT,
    lease_until     BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    finished_at     BIGINT,
    UNIQUE (endpoint_id, event_seq)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at);
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (endpoint_id, created_at);
CREATE INDEX webhook_deliveries_by_subject ON webhook_deliveries (endpoint_id, subject, state, event_seq);

CREATE TABLE webhook_attempts (
    delivery_id  TEXT NOT NULL,
    attempt      BIGINT NOT NULL,
    started_at   BIGINT NOT NULL,
    duration_ms  BIGINT NOT NULL,
    status_code  BIGINT,
    outcome      TEXT NOT NULL,
    detail       TEXT NOT NULL,
    PRIMARY KEY (delivery_id, attempt)
);

-- Each dataset's newest version whose publication was announced (written with its events): the
-- lake is the truth of what was published, and this is how far the announcements have followed it.
CREATE TABLE webhook_dataset_cursors (
    dataset  TEXT PRIMARY KEY,
    version  BIGINT NOT NULL
);
