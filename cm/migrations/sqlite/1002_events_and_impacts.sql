-- Company monitoring's material events (SUPPLEMENT 4.8): an event groups one company's
-- candidates of one category; its evidence are the items that joined it; an impact is the
-- event's admitted assessment, of which only the current revision is kept (and shown).

CREATE TABLE cm_events (
    event_id      TEXT PRIMARY KEY,
    account_id    TEXT NOT NULL,
    company_id    TEXT NOT NULL,
    category      TEXT NOT NULL,
    revision      BIGINT NOT NULL,
    title         TEXT NOT NULL,
    summary       TEXT NOT NULL,
    occurred_at   BIGINT NOT NULL,
    canonical_url TEXT NOT NULL,
    -- The content tokens that decide which candidates join (space-separated, sorted).
    tokens        TEXT NOT NULL,
    -- pending (below the admission bar), admitted (has an impact) or discarded.
    state         TEXT NOT NULL,
    first_seen_at BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX cm_events_company ON cm_events (company_id, first_seen_at);

CREATE TABLE cm_evidence (
    evidence_id      TEXT PRIMARY KEY,
    event_id         TEXT NOT NULL,
    provider         TEXT NOT NULL,
    source_id        TEXT NOT NULL,
    canonical_url    TEXT NOT NULL,
    publisher        TEXT NOT NULL,
    published_at     BIGINT,
    authority_tier   TEXT NOT NULL,
    title            TEXT NOT NULL,
    excerpt          TEXT NOT NULL,
    attribution      DOUBLE PRECISION NOT NULL,
    attribution_rule TEXT NOT NULL,
    -- The claim whose match attributed the item: removing it retracts the impact.
    claim_id         TEXT NOT NULL,
    first_seen_at    BIGINT NOT NULL,
    -- The daily re-check: when the URL last answered 404 or 410 (NULL while it resolves).
    gone_at          BIGINT,
    checked_at       BIGINT
);
CREATE UNIQUE INDEX cm_evidence_url ON cm_evidence (event_id, canonical_url);

CREATE TABLE cm_impacts (
    impact_id        TEXT PRIMARY KEY,
    account_id       TEXT NOT NULL,
    company_id       TEXT NOT NULL,
    event_id         TEXT NOT NULL UNIQUE,
    event_revision   BIGINT NOT NULL,
    impact_revision  BIGINT NOT NULL,
    direction        TEXT NOT NULL,
    -- Channels, their short names comma-separated in the documented order.
    channels         TEXT NOT NULL,
    magnitude        TEXT NOT NULL,
    attribution      DOUBLE PRECISION NOT NULL,
    occurrence_truth DOUBLE PRECISION NOT NULL,
    material_impact  DOUBLE PRECISION NOT NULL,
    rationale        TEXT NOT NULL,
    lifecycle        TEXT NOT NULL,
    occurred_at      BIGINT NOT NULL,
    -- Strictly increasing per account (cm_accounts.last_changed_at), so keyset polling never skips.
    changed_at       BIGINT NOT NULL,
    admitted_at      BIGINT NOT NULL,
    evidence_total   BIGINT NOT NULL
);
CREATE INDEX cm_impacts_feed ON cm_impacts (account_id, changed_at, impact_id);
CREATE INDEX cm_impacts_company ON cm_impacts (company_id);
