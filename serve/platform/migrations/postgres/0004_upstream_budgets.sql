-- PostgreSQL's twin of ../sqlite/0004_upstream_budgets.sql: integers are BIGINT, blobs BYTEA, and text sorts
-- byte by byte (COLLATE "C") as in SQLite, so keysets and orders agree on both backends.
-- Upstream call budgets (SUPPLEMENT 2.1.2, 2.1.5): units used per budget and billing cycle, kept
-- in the state store so a restart does not reset them.
CREATE TABLE upstream_budgets (
    name  TEXT COLLATE "C" NOT NULL,
    cycle TEXT COLLATE "C" NOT NULL,
    used  BIGINT NOT NULL,
    PRIMARY KEY (name, cycle)
);
