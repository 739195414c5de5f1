-- Upstream call budgets (SUPPLEMENT 2.1.2, 2.1.5): units used per budget and billing cycle, kept
-- in the state store so a restart does not reset them.
CREATE TABLE upstream_budgets (
    name  TEXT NOT NULL,
    cycle TEXT NOT NULL,
    used  INTEGER NOT NULL,
    PRIMARY KEY (name, cycle)
);
