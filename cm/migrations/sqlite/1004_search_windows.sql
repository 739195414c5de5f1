-- Where each provider's window ended, per query (SUPPLEMENT 4.8, issue 46): a provider that failed
-- a query leaves that query's end where it was, so the stretch is searched again on the next scan
-- (NEWS has one window: query ''). Supersedes cm_scans.searched_until for the windows.
CREATE TABLE cm_search_windows (
    company_id     TEXT NOT NULL,
    provider       TEXT NOT NULL,
    query          TEXT NOT NULL,
    searched_until BIGINT NOT NULL,
    PRIMARY KEY (company_id, provider, query)
);
