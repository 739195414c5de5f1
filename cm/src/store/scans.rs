//! Scans (SUPPLEMENT 4.8, 4.9): leases so one worker scans a company at a time (an expired lease
//! is free, so a crashed scan leaves the company due), a finished scan's outcome written in one
//! transaction with the company's coverage, and the sweep that re-judges freshness.

use std::collections::HashMap;

use sqlx::{Any, Row, Transaction};

use super::{companies::load, impacts::write_events, parse, CmError, CmStore, Company, EventWrite};
use crate::{
    pipeline::coverage::{self, Facts, ProviderScan},
    records::{ClaimType, CoverageState, Lifecycle, ObservationState, Provider, ProviderCoverage, WireEnum},
};

/// Which companies a scan takes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ScanScope<'a> {
    /// Active, identity-resolved companies whose last scan is at least `interval_ms` old.
    Due { interval_ms: i64 },
    /// Every active, identity-resolved company of an account, at once.
    Account(&'a str),
    /// One company, at once (if active and identity-resolved).
    Company(&'a str),
}

/// A company leased for a scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ScanTarget {
    pub account_id: String,
    pub company: Company,
    /// Where the last successful window ended.
    pub searched_until: Option<i64>,
}

/// What a scan found, to be recorded with [`CmStore::finish_scan`].
#[derive(Debug, Clone, PartialEq)]
pub struct ScanResult {
    pub writes: Vec<EventWrite>,
    /// One entry per provider scanned; `last_complete_at` is the scan's time when this answer
    /// completes the provider, else `None` (the store keeps the previous completion).
    pub providers: Vec<ProviderScan>,
    pub assessment_ready: bool,
    /// The end of this scan's window when a provider completed it.
    pub searched_until: Option<i64>,
    /// The windows this scan searched to their end: (provider, query, end) for each query that
    /// succeeded (NEWS: query ''). A failed query's end stays where it was.
    pub windows: Vec<(Provider, String, i64)>,
    /// Each claim checked, and whether it held: a DOMAIN claim resolved, a CIK claim was known to
    /// the SEC (4.8: an unknown CIK shows in coverage as an unresolved domain does).
    pub claim_checks: Vec<(String, bool)>,
}

/// Consecutive failed checks that expire a DOMAIN (or CIK) claim (4.9 rule 3).
pub const DNS_FAILURES_TO_EXPIRE: i64 = 3;

/// A company's latest scan, as GetCompanyCoverage shows it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanRecord {
    pub providers: Vec<ProviderScan>,
    pub assessment_ready: bool,
    /// When the coverage was last judged: providers' freshness is as of then.
    pub judged_at: Option<i64>,
}

fn identified(company: &Company) -> bool {
    company.claims.iter().any(|c| matches!(c.kind, ClaimType::Domain | ClaimType::LegalIdentifier))
}

async fn providers_of(conn: &mut sqlx::AnyConnection, company_id: &str) -> Result<Vec<ProviderScan>, CmError> {
    let rows = sqlx::query(
        "SELECT provider, state, capped, last_complete_at, window_start, window_end, reason_code \
         FROM cm_provider_scans WHERE company_id = $1 ORDER BY provider DESC",
    )
    .bind(company_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(ProviderScan {
                provider: parse(Provider::from_filter(r.try_get("provider")?), "provider")?,
                state: parse(ProviderCoverage::from_filter(r.try_get("state")?), "provider state")?,
                capped: r.try_get::<i64, _>("capped")? != 0,
                last_complete_at: r.try_get("last_complete_at")?,
                window_start: r.try_get("window_start")?,
                window_end: r.try_get("window_end")?,
                reason_code: r.try_get("reason_code")?,
            })
        })
        .collect()
}

/// Re-judges a company's coverage and observation from its latest scan at `now`, and stores
/// them (with a new changedAt) when they changed.
async fn judge(
    tx: &mut Transaction<'_, Any>,
    company: &Company,
    now: i64,
    interval_ms: i64,
) -> Result<(CoverageState, ObservationState), CmError> {
    let scan = sqlx::query("SELECT last_scan_at, assessment_ready FROM cm_scans WHERE company_id = $1")
        .bind(&company.company_id)
        .fetch_optional(&mut **tx)
        .await?;
    let (scanned, ready) = match &scan {
        Some(r) => (r.try_get::<Option<i64>, _>(0)?.is_some(), r.try_get::<i64, _>(1)? != 0),
        None => (false, false),
    };
    let providers = providers_of(tx, &company.company_id).await?;
    let window = providers.iter().map(|p| (p.window_start, p.window_end)).reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
    let events_in_window = match window {
        Some((start, end)) => {
            let n: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM cm_impacts WHERE company_id = $1 AND lifecycle IN ('admitted', 'corrected') \
                 AND occurred_at >= $2 AND occurred_at <= $3",
            )
            .bind(&company.company_id)
            .bind(start)
            .bind(end)
            .fetch_one(&mut **tx)
            .await?;
            n > 0
        }
        None => false,
    };
    let unconfirmed: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM cm_domain_checks d JOIN cm_claims c ON c.claim_id = d.claim_id \
         WHERE d.company_id = $1 AND d.failures >= $2",
    )
    .bind(&company.company_id)
    .bind(DNS_FAILURES_TO_EXPIRE)
    .fetch_one(&mut **tx)
    .await?;
    let facts = Facts {
        identified: identified(company),
        scanned,
        domain_unconfirmed: unconfirmed > 0,
        providers: &providers,
        assessment_ready: ready,
        events_in_window,
        now,
        scan_interval_ms: interval_ms,
    };
    let (state, observation) = coverage::assess(&facts);
    sqlx::query("UPDATE cm_scans SET judged_at = $1 WHERE company_id = $2")
        .bind(now)
        .bind(&company.company_id)
        .execute(&mut **tx)
        .await?;
    if state != company.coverage || observation != company.observation {
        sqlx::query(
            "UPDATE cm_companies SET coverage = $1, observation = $2, coverage_changed_at = $3 WHERE company_id = $4",
        )
        .bind(state.short_name())
        .bind(observation.short_name())
        .bind(now)
        .bind(&company.company_id)
        .execute(&mut **tx)
        .await?;
    }
    Ok((state, observation))
}

impl CmStore {
    /// Leases up to `limit` companies of `scope` to `owner` until `now + lease_ms`: a company
    /// leased to another worker, and not yet expired, is skipped.
    pub async fn lease_scans(
        &self,
        scope: ScanScope<'_>,
        owner: &str,
        now: i64,
        lease_ms: i64,
        limit: usize,
    ) -> Result<Vec<ScanTarget>, CmError> {
        let clause = match scope {
            ScanScope::Due { .. } => "AND (s.last_scan_at IS NULL OR s.last_scan_at <= $2)",
            ScanScope::Account(_) => "AND c.account_id = $2",
            ScanScope::Company(_) => "AND c.company_id = $2",
        };
        let sql = format!(
            "SELECT c.company_id, c.account_id, s.searched_until FROM cm_companies c \
             LEFT JOIN cm_scans s ON s.company_id = c.company_id \
             WHERE c.lifecycle = 'active' AND c.coverage <> 'identity_unresolved' \
             AND (s.lease_expires_at IS NULL OR s.lease_expires_at < $1) {clause} \
             ORDER BY COALESCE(s.last_scan_at, 0), c.company_id LIMIT {limit}"
        );
        let query = sqlx::query(&sql).bind(now);
        let query = match scope {
            ScanScope::Due { interval_ms } => query.bind(now - interval_ms),
            ScanScope::Account(account) => query.bind(account),
            ScanScope::Company(company) => query.bind(company),
        };
        let rows = query.fetch_all(&self.pool).await?;
        let mut leased = Vec::new();
        for row in rows {
            let (company_id, account_id): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            sqlx::query(
                "INSERT INTO cm_scans (company_id, account_id) VALUES ($1, $2) ON CONFLICT (company_id) DO NOTHING",
            )
            .bind(&company_id)
            .bind(&account_id)
            .execute(&self.pool)
            .await?;
            // The lease is taken by whoever's conditional update lands first.
            let taken = sqlx::query(
                "UPDATE cm_scans SET lease_owner = $1, lease_expires_at = $2 \
                 WHERE company_id = $3 AND (lease_expires_at IS NULL OR lease_expires_at < $4)",
            )
            .bind(owner)
            .bind(now + lease_ms)
            .bind(&company_id)
            .bind(now)
            .execute(&self.pool)
            .await?
            .rows_affected();
            if taken == 1 {
                if let Some(company) = self.company(&account_id, &company_id).await? {
                    leased.push(ScanTarget { account_id, company, searched_until: row.try_get(2)? });
                }
            }
        }
        Ok(leased)
    }

    /// Where each of the company's provider windows ended, by (provider, query): see
    /// [`ScanResult::windows`].
    pub async fn search_windows(&self, company_id: &str) -> Result<HashMap<(String, String), i64>, CmError> {
        let rows = sqlx::query("SELECT provider, query, searched_until FROM cm_search_windows WHERE company_id = $1")
            .bind(company_id)
            .fetch_all(&self.pool)
            .await?;
        let mut windows = HashMap::new();
        for r in rows {
            windows.insert((r.try_get(0)?, r.try_get(1)?), r.try_get(2)?);
        }
        Ok(windows)
    }

    /// The account's active and paused companies (the matcher weighs an item against them all).
    pub async fn live_companies(&self, account: &str) -> Result<Vec<Company>, CmError> {
        let filter = crate::filters::ListFilter::default();
        let mut out = Vec::new();
        let mut after: Option<(String, String)> = None;
        loop {
            let page =
                self.companies(account, &filter, after.as_ref().map(|(k, id)| (k.as_str(), id.as_str())), 500).await?;
            out.extend(page.companies);
            match page.next {
                Some(next) => after = Some(next),
                None => return Ok(out),
            }
        }
    }

    /// Records a finished scan of `target` by `owner`, in one transaction: its events and
    /// impacts, each provider's part, the window, the released lease, and the company's coverage
    /// re-judged. Nothing is written when the lease was lost (it expired and another worker took
    /// it) or the company is no longer active; `None` then.
    pub async fn finish_scan(
        &self,
        target: &ScanTarget,
        owner: &str,
        result: &mut ScanResult,
        now: i64,
        interval_ms: i64,
    ) -> Result<Option<(CoverageState, ObservationState)>, CmError> {
        let account = target.account_id.as_str();
        let company_id = target.company.company_id.as_str();
        let mut tx = self.begin_for(account, now).await?;
        let holder: Option<Option<String>> =
            sqlx::query_scalar("SELECT lease_owner FROM cm_scans WHERE company_id = $1")
                .bind(company_id)
                .fetch_optional(&mut *tx)
                .await?;
        if holder.flatten().as_deref() != Some(owner) {
            return Ok(None);
        }
        let company = load(&mut tx, account, company_id).await?.filter(|c| c.lifecycle == Lifecycle::Active);
        let Some(company) = company else {
            sqlx::query("UPDATE cm_scans SET lease_owner = NULL, lease_expires_at = NULL WHERE company_id = $1")
                .bind(company_id)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            return Ok(None);
        };
        write_events(&mut tx, account, &mut result.writes, now).await?;
        // Coverage lists the providers that ran for the company: one that did not this time (no
        // news ingested, the CIK claim removed, SEARCH switched off) leaves no stale entry.
        for provider in Provider::VALUES.iter().filter(|v| !result.providers.iter().any(|p| p.provider == **v)) {
            sqlx::query("DELETE FROM cm_provider_scans WHERE company_id = $1 AND provider = $2")
                .bind(company_id)
                .bind(provider.short_name())
                .execute(&mut *tx)
                .await?;
        }
        for p in result.providers.iter_mut() {
            let previous: Option<Option<i64>> = sqlx::query_scalar(
                "SELECT last_complete_at FROM cm_provider_scans WHERE company_id = $1 AND provider = $2",
            )
            .bind(company_id)
            .bind(p.provider.short_name())
            .fetch_optional(&mut *tx)
            .await?;
            // The scan says whether this answer completes the provider (complete, from fresh data).
            // NEWS is fresh as its data is now (4.8): an answer from stale data is not made fresh
            // by an earlier one, where SEARCH's last completion stands until it is too old.
            if p.provider != Provider::News {
                p.last_complete_at = p.last_complete_at.or(previous.flatten());
            }
            sqlx::query(
                "INSERT INTO cm_provider_scans (company_id, provider, state, capped, last_complete_at, window_start, \
                 window_end, reason_code) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (company_id, provider) DO UPDATE SET state = excluded.state, capped = excluded.capped, \
                 last_complete_at = excluded.last_complete_at, window_start = excluded.window_start, \
                 window_end = excluded.window_end, reason_code = excluded.reason_code",
            )
            .bind(company_id)
            .bind(p.provider.short_name())
            .bind(p.state.short_name())
            .bind(i64::from(p.capped))
            .bind(p.last_complete_at)
            .bind(p.window_start)
            .bind(p.window_end)
            .bind(&p.reason_code)
            .execute(&mut *tx)
            .await?;
        }
        for (provider, query, until) in &result.windows {
            sqlx::query(
                "INSERT INTO cm_search_windows (company_id, provider, query, searched_until) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (company_id, provider, query) DO UPDATE SET searched_until = excluded.searched_until",
            )
            .bind(company_id)
            .bind(provider.short_name())
            .bind(query)
            .bind(until)
            .execute(&mut *tx)
            .await?;
        }
        // cm_domain_checks counts any claim's consecutive failed checks (a CIK's too).
        for (claim_id, resolved) in &result.claim_checks {
            let failures: i64 = sqlx::query_scalar(
                "INSERT INTO cm_domain_checks (claim_id, company_id, failures, checked_at) VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (claim_id) DO UPDATE SET failures = CASE WHEN $3 = 0 THEN 0 \
                 ELSE cm_domain_checks.failures + 1 END, checked_at = excluded.checked_at RETURNING failures",
            )
            .bind(claim_id)
            .bind(company_id)
            .bind(i64::from(!resolved))
            .bind(now)
            .fetch_one(&mut *tx)
            .await?;
            if failures >= DNS_FAILURES_TO_EXPIRE {
                sqlx::query(
                    "UPDATE cm_claims SET trust_state = 'expired', expires_at = COALESCE(expires_at, $1) \
                     WHERE claim_id = $2",
                )
                .bind(now)
                .bind(claim_id)
                .execute(&mut *tx)
                .await?;
            }
        }
        sqlx::query(
            "UPDATE cm_scans SET last_scan_at = $1, searched_until = COALESCE($2, searched_until), \
             assessment_ready = $3, lease_owner = NULL, lease_expires_at = NULL WHERE company_id = $4",
        )
        .bind(now)
        .bind(result.searched_until)
        .bind(i64::from(result.assessment_ready))
        .bind(company_id)
        .execute(&mut *tx)
        .await?;
        let judged = judge(&mut tx, &company, now, interval_ms).await?;
        tx.commit().await?;
        Ok(Some(judged))
    }

    /// The sweep: re-judges the coverage of every active and paused company that has been
    /// scanned (freshness moves with time). Returns how many changed.
    pub async fn refresh_coverage(&self, now: i64, interval_ms: i64) -> Result<usize, CmError> {
        let rows = sqlx::query(
            "SELECT c.account_id, c.company_id FROM cm_companies c JOIN cm_scans s ON s.company_id = c.company_id \
             WHERE c.lifecycle IN ('active', 'paused') AND s.last_scan_at IS NOT NULL",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut changed = 0;
        for row in rows {
            let (account, company_id): (String, String) = (row.try_get(0)?, row.try_get(1)?);
            let mut tx = self.begin_for(&account, now).await?;
            if let Some(company) = load(&mut tx, &account, &company_id).await? {
                let judged = judge(&mut tx, &company, now, interval_ms).await?;
                changed += usize::from(judged != (company.coverage, company.observation));
            }
            tx.commit().await?;
        }
        Ok(changed)
    }

    /// The company's latest scan (providers, assessmentReady), for GetCompanyCoverage.
    pub async fn scan_record(&self, company_id: &str) -> Result<ScanRecord, CmError> {
        let mut conn = self.pool.acquire().await?;
        let row = sqlx::query("SELECT assessment_ready, judged_at FROM cm_scans WHERE company_id = $1")
            .bind(company_id)
            .fetch_optional(&mut *conn)
            .await?;
        let (ready, judged_at) = match row {
            Some(r) => (r.try_get::<i64, _>(0)? == 1, r.try_get(1)?),
            None => (false, None),
        };
        Ok(ScanRecord { providers: providers_of(&mut conn, company_id).await?, assessment_ready: ready, judged_at })
    }
}
