-- PostgreSQL's twin of ../sqlite/1002_events_and_impacts.sql: integers are BIGINT, blobs BYTEA, and text sorts
-- byte by byte (COLLATE "C") as in SQLite, so keysets and orders agree on both backends.
-- Company monitoring's material events (SUPPLEMENT 4.8): an event groups one company's
-- candidates of one category; its evidence are the items that joined it; an impact is the
-- event's admitted assessment, of which only the current revision is kept (and shown).

CREATE TABLE cm_events (
    event_id      TEXT COLLATE "C" PRIMARY KEY,
    account_id    TEXT COLLATE "C" NOT NULL,
    company_id    TEXT COLLATE "C" NOT NULL,
    category      TEXT COLLATE "C" NOT NULL,
    revision      BIGINT NOT NULL,
    title         TEXT COLLATE "C" NOT NULL,
    summary       TEXT COLLATE "C" NOT NULL,
    occurred_at   BIGINT NOT NULL,
    canonical_url TEXT COLLATE "C" NOT NULL,
    -- The content tokens that decide which candidates join (space-separated, sorted).
    tokens        TEXT COLLATE "C" NOT NULL,
    -- pending (below the admission bar), admitted (has an impact) or discarded.
    state         TEXT COLLATE "C" NOT NULL,
    first_seen_at BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);
CREATE INDEX cm_events_company ON cm_events (company_id, first_seen_at);

CREATE TABLE cm_evidence (
    evidence_id      TEXT COLLATE "C" PRIMARY KEY,
    event_id         TEXT COLLATE "C" NOT NULL,
    provider         TEXT COLLATE "C" NOT NULL,
    source_id        TEXT COLLATE "C" NOT NULL,
    canonical_url    TEXT COLLATE "C" NOT NULL,
    publisher        TEXT COLLATE "C" NOT NULL,
    published_at     BIGINT,
    authority_tier   TEXT COLLATE "C" NOT NULL,
    title            TEXT COLLATE "C" NOT NULL,
    excerpt          TEXT COLLATE "C" NOT NULL,
    attribution      DOUBLE PRECISION NOT NULL,
    attribution_rule TEXT COLLATE "C" NOT NULL,
    -- The claim whose match attributed the item: removing it retracts the impact.
    claim_id         TEXT COLLATE "C" NOT NULL,
    first_seen_at    BIGINT NOT NULL,
    -- The daily re-check: when the URL last answered 404 or 410 (NULL while it resolves).
    gone_at          BIGINT,
    checked_at       BIGINT
);
CREATE UNIQUE INDEX cm_evidence_url ON cm_evidence (event_id, canonical_url);

CREATE TABLE cm_impacts (
    impact_id        TEXT COLLATE "C" PRIMARY KEY,
    account_id       TEXT COLLATE "C" NOT NULL,
    company_id       TEXT COLLATE "C" NOT NULL,
    event_id         TEXT COLLATE "C" NOT NULL UNIQUE,
    event_revision   BIGINT NOT NULL,
    impact_revision  BIGINT NOT NULL,
    direction        TEXT COLLATE "C" NOT NULL,
    -- Channels, their short names comma-separated in the documented order.
    channels         TEXT COLLATE "C" NOT NULL,
    magnitude        TEXT COLLATE "C" NOT NULL,
    attribution      DOUBLE PRECISION NOT NULL,
    occurrence_truth DOUBLE PRECISION NOT NULL,
    material_impact  DOUBLE PRECISION NOT NULL,
    rationale        TEXT COLLATE "C" NOT NULL,
    lifecycle        TEXT COLLATE "C" NOT NULL,
    occurred_at      BIGINT NOT NULL,
    -- Strictly increasing per account (cm_accounts.last_changed_at), so keyset polling never skips.
    changed_at       BIGINT NOT NULL,
    admitted_at      BIGINT NOT NULL,
    evidence_total   BIGINT NOT NULL
);
CREATE INDEX cm_impacts_feed ON cm_impacts (account_id, changed_at, impact_id);
CREATE INDEX cm_impacts_company ON cm_impacts (company_id);
