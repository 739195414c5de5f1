-- PostgreSQL's twin of ../sqlite/1003_scans.sql: integers are BIGINT, blobs BYTEA, and text sorts
-- byte by byte (COLLATE "C") as in SQLite, so keysets and orders agree on both backends.
-- Company monitoring's scans (SUPPLEMENT 4.8, 4.9): per company, the lease that keeps two
-- workers from scanning it at once, where its last window ended, and what each provider answered
-- on its latest scan.

CREATE TABLE cm_scans (
    company_id       TEXT COLLATE "C" PRIMARY KEY,
    account_id       TEXT COLLATE "C" NOT NULL,
    -- When the latest scan finished; NULL until one has since creation or re-activation.
    last_scan_at     BIGINT,
    -- The end of the last successful window: the next one starts there (at most 7 days back).
    searched_until   BIGINT,
    -- Every candidate of the latest scan was admitted or discarded (1) or not (0).
    assessment_ready BIGINT NOT NULL DEFAULT 0,
    -- When coverage was last judged (a scan or the sweep): what providers' freshness is as of.
    judged_at        BIGINT,
    -- The worker scanning it, until when; an expired lease is free (a crashed scan leaves the
    -- company due, not stuck).
    lease_owner      TEXT COLLATE "C",
    lease_expires_at BIGINT
);

CREATE TABLE cm_provider_scans (
    company_id       TEXT COLLATE "C" NOT NULL,
    provider         TEXT COLLATE "C" NOT NULL,
    state            TEXT COLLATE "C" NOT NULL,
    capped           BIGINT NOT NULL,
    last_complete_at BIGINT,
    window_start     BIGINT NOT NULL,
    window_end       BIGINT NOT NULL,
    reason_code      TEXT COLLATE "C" NOT NULL,
    PRIMARY KEY (company_id, provider)
);

-- DOMAIN claims' DNS resolution on consecutive scans: three failures in a row expire the claim
-- and the company needs confirmation (4.9 rule 3).
CREATE TABLE cm_domain_checks (
    claim_id   TEXT COLLATE "C" PRIMARY KEY,
    company_id TEXT COLLATE "C" NOT NULL,
    failures   BIGINT NOT NULL,
    checked_at BIGINT NOT NULL
);
