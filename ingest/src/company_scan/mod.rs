//! Company monitoring's scan (SUPPLEMENT 4.8): for each company due (or named), the SEARCH
//! provider's queries, the FILINGS provider's current reports (companies with a CIK) and the NEWS
//! provider's items in the window, each search or news item attributed across
//! the account's companies and given a category, the candidates applied to the company's events,
//! and the outcome with the company's coverage written in one transaction — under a lease, so two
//! workers never scan one company at once.

mod filings;
mod news;

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use futures::{stream, StreamExt};
use sitrep_cm::{
    pipeline::{
        coverage::ProviderScan,
        events::{self, Candidate, WINDOW_MS},
        evidence_url,
        lexicon::classify,
        matching::{attribute, Item, Profile},
    },
    records::{ClaimType, Provider, ProviderCoverage, TrustState, WireEnum},
    settings::CmSettings,
    store::{CmError, CmStore, ScanResult, ScanScope, ScanTarget},
};
use sitrep_lake::Lake;
use sitrep_pipelines::{
    edgar::Edgar,
    http::Http,
    web_search::{Failure, SearchProvider},
};

pub use news::{News, NewsItem, NewsSource};

/// The worker's cadence: due companies every 5 minutes; the coverage sweep and the evidence
/// re-check every 15.
const SCAN_CRON: &str = "0 */5 * * * *";
const SWEEP_CRON: &str = "30 */15 * * * *";

/// How long a worker holds a company it scans (a crashed worker's companies are due again after).
pub const LEASE_MS: i64 = 10 * 60_000;
/// [`LEASE_MS`] as a [`Scanner`]'s `lease`.
pub const LEASE: std::time::Duration = std::time::Duration::from_millis(LEASE_MS as u64);
/// The longest window searched: at most 7 days back.
const MAX_WINDOW_MS: i64 = 7 * 24 * 3600 * 1000;

/// How far a window reaches back over the previous one's end: items indexed late.
const OVERLAP_MS: i64 = 6 * 3600 * 1000;

/// Where each provider's windows (per query) ended, and the scan's time (SUPPLEMENT 4.8: each
/// provider keeps its own window; a failed query leaves its end where it was).
struct Windows {
    ended: std::collections::HashMap<(String, String), i64>,
    now: i64,
}

impl Windows {
    /// Where this scan's window of `provider`'s `query` starts: the end of its last completed
    /// window less the overlap, at most 7 days back.
    fn since(&self, provider: Provider, query: &str) -> i64 {
        let floor = self.now - MAX_WINDOW_MS;
        match self.ended.get(&(provider.short_name(), query.to_string())) {
            Some(end) => (end - OVERLAP_MS).max(floor),
            None => floor,
        }
    }
}
/// Companies leased at a time, and scanned at once.
const BATCH: usize = 50;
const CONCURRENCY: usize = 8;

/// What a run of scans did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScanReport {
    /// Companies scanned and recorded.
    pub scanned: usize,
    /// Companies whose scan was not recorded (lease lost, company paused or removed meanwhile).
    pub dropped: usize,
    /// Impacts admitted or corrected.
    pub impact_revisions: usize,
}

/// One result of either provider, before it is matched.
struct Hit {
    provider: Provider,
    source_id: String,
    url: String,
    title: String,
    snippet: String,
    publisher: String,
    published_at: Option<i64>,
}

/// What the scan verifies against the world: whether a DOMAIN claim's name resolves, and
/// whether an evidence URL is gone (404 or 410; `None` when it could not be told).
pub trait Verification: Send + Sync {
    fn resolves<'a>(&'a self, domain: &'a str) -> futures::future::BoxFuture<'a, bool>;
    fn gone<'a>(&'a self, url: &'a str) -> futures::future::BoxFuture<'a, Option<bool>>;
}

/// The live world: the system's resolver (5 s per name; a timeout is a failure), and an SSRF-safe
/// GET of the URL (https only, no redirects, public addresses only, 10 s).
pub struct LiveVerification;

impl Verification for LiveVerification {
    fn resolves<'a>(&'a self, domain: &'a str) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(async move {
            let lookup = tokio::net::lookup_host((domain, 443));
            match tokio::time::timeout(std::time::Duration::from_secs(5), lookup).await {
                Ok(Ok(mut addresses)) => addresses.next().is_some(),
                _ => false,
            }
        })
    }

    fn gone<'a>(&'a self, url: &'a str) -> futures::future::BoxFuture<'a, Option<bool>> {
        Box::pin(async move {
            let url = url::Url::parse(url).ok()?;
            let options = sitrep_pipelines::public_fetch::PublicFetchOptions::default();
            let timeout = std::time::Duration::from_secs(10);
            let client = sitrep_pipelines::public_fetch::pinned_client(&url, timeout, &options).await.ok()?;
            let status = client.get(url.as_str()).send().await.ok()?.status().as_u16();
            Some(matches!(status, 404 | 410))
        })
    }
}

/// The recorded world (replay and tests): every domain resolves and every URL answers, but those
/// listed.
#[derive(Debug, Clone, Default)]
pub struct RecordedVerification {
    pub unresolvable: Vec<String>,
    pub gone: Vec<String>,
}

impl Verification for RecordedVerification {
    fn resolves<'a>(&'a self, domain: &'a str) -> futures::future::BoxFuture<'a, bool> {
        Box::pin(async move { !self.unresolvable.iter().any(|d| d == domain) })
    }

    fn gone<'a>(&'a self, url: &'a str) -> futures::future::BoxFuture<'a, Option<bool>> {
        Box::pin(async move { Some(self.gone.iter().any(|u| u == url)) })
    }
}

pub struct Scanner {
    pub store: CmStore,
    pub lake: Lake,
    pub http: Http,
    /// `None` when no provider is configured or the `searchProvider` flag is off.
    pub search: Option<SearchProvider>,
    /// The FILINGS provider (SEC EDGAR); `None` when it is not configured (live, without the
    /// User-Agent the SEC requires).
    pub filings: Option<Edgar>,
    pub settings: CmSettings,
    /// This worker's name on the leases it takes.
    pub owner: String,
    /// How long it holds them ([`LEASE`]): a batch's searches end by nine tenths of it, whatever
    /// the provider does, so no scan outlives its lease and another worker never takes a company
    /// over mid-scan.
    pub lease: std::time::Duration,
    pub verification: std::sync::Arc<dyn Verification>,
}

fn time(ms: i64) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

impl Scanner {
    /// Scans the companies of `scope` at `now`.
    pub async fn run(&self, scope: ScanScope<'_>, now: i64) -> Result<ScanReport, CmError> {
        let news = news::load(&self.lake).await;
        let mut report = ScanReport::default();
        // A named account or company is scanned at once, whether due or not: all in one batch.
        let batch = if matches!(scope, ScanScope::Due { .. }) { BATCH } else { usize::MAX >> 1 };
        loop {
            let leased = self.store.lease_scans(scope, &self.owner, now, self.lease.as_millis() as i64, batch).await?;
            if leased.is_empty() {
                break;
            }
            // The rest of the lease after the searches: NEWS, grouping and the writes.
            let searches_end = tokio::time::Instant::now() + self.lease.mul_f64(0.9);
            // Each account's companies once per batch: an item is weighed against them all.
            let mut accounts: std::collections::HashMap<String, Vec<Profile>> = std::collections::HashMap::new();
            for target in &leased {
                if !accounts.contains_key(&target.account_id) {
                    let companies = self.store.live_companies(&target.account_id).await?;
                    accounts.insert(target.account_id.clone(), companies.iter().map(Profile::of).collect());
                }
            }
            let (news, accounts) = (&news, &accounts);
            let finished: Vec<Result<Option<usize>, CmError>> = stream::iter(leased)
                .map(|target| async move {
                    let profiles = accounts.get(&target.account_id).map(Vec::as_slice).unwrap_or_default();
                    self.scan(&target, profiles, news, now, searches_end).await
                })
                .buffer_unordered(CONCURRENCY)
                .collect()
                .await;
            for result in finished {
                match result? {
                    Some(revisions) => {
                        report.scanned += 1;
                        report.impact_revisions += revisions;
                    }
                    None => report.dropped += 1,
                }
            }
            if !matches!(scope, ScanScope::Due { .. }) {
                break;
            }
        }
        Ok(report)
    }

    /// The daily re-check of evidence URLs at `now` (a batch of those due): records each answer
    /// and retracts impacts whose evidence is all gone. Returns (checked, retracted).
    pub async fn recheck(&self, now: i64) -> Result<(usize, usize), CmError> {
        let due = self.store.evidence_due_for_check(now, 500).await?;
        let answers: Vec<Option<(String, bool)>> = stream::iter(due)
            .map(|(id, url)| async move { self.verification.gone(&url).await.map(|gone| (id, gone)) })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        let checks: Vec<(String, bool)> = answers.into_iter().flatten().collect();
        let retracted = self.store.record_checks(&checks, now).await?;
        Ok((checks.len(), retracted))
    }

    /// Scans one leased company: the number of impact revisions it wrote, or `None` when its
    /// outcome was dropped.
    async fn scan(
        &self,
        target: &ScanTarget,
        profiles: &[Profile],
        news: &NewsSource,
        now: i64,
        searches_end: tokio::time::Instant,
    ) -> Result<Option<usize>, CmError> {
        let Some(profile) = profiles.iter().find(|p| p.company_id == target.company.company_id) else {
            return Ok(None);
        };
        let ended = self.store.search_windows(&target.company.company_id).await?;
        let windows = Windows { ended, now };
        let mut hits = Vec::new();
        let mut providers = Vec::new();
        let mut searched = Vec::new();
        if let Some(search) = self.search.as_ref().filter(|_| self.settings.flags.search_provider) {
            let (scan, found, done) = self.search(search, profile, &target.company, &windows, searches_end).await;
            providers.push(scan);
            hits.extend(found);
            searched.extend(done.into_iter().map(|q| (Provider::Search, q, now)));
        }
        let mut claim_checks = Vec::new();
        let mut filed = Vec::new();
        if let Some(edgar) = &self.filings {
            if let Some(found) = filings::scan(edgar, &self.http, &target.company, &windows, searches_end).await {
                providers.push(found.scan);
                filed = found.candidates;
                claim_checks = found.claim_checks;
                searched.extend(found.done.into_iter().map(|q| (Provider::Filings, q, now)));
            }
        }
        if let Some(news) = news_scan(news, windows.since(Provider::News, ""), now, &mut hits) {
            if news.state != ProviderCoverage::Failed {
                searched.push((Provider::News, String::new(), now));
            }
            providers.push(news);
        }
        let since = providers.iter().map(|p| p.window_start).min().unwrap_or(now);
        let mut candidates = self.candidates(profiles, &target.company.company_id, hits);
        candidates.extend(filed);
        let stored = self.store.events_of(&target.company.company_id, since - WINDOW_MS).await?;
        let outcome = events::apply(stored, candidates, &profile.own_words, now);
        let revisions = outcome.writes.iter().filter(|w| w.impact_changed).count();
        let searched_until = providers.iter().any(|p| p.state != ProviderCoverage::Failed).then_some(now);
        // All at once: each lookup takes up to 5 s, and a scan's time after its searches is the
        // last tenth of its lease, whatever number of domains the company claims.
        let domains =
            target.company.claims.iter().filter(|c| {
                c.kind == ClaimType::Domain && !matches!(c.trust, TrustState::Expired | TrustState::Rejected)
            });
        claim_checks.extend(
            futures::future::join_all(
                domains.map(
                    |claim| async move { (claim.claim_id.clone(), self.verification.resolves(&claim.value).await) },
                ),
            )
            .await,
        );
        let mut result = ScanResult {
            writes: outcome.writes,
            providers,
            assessment_ready: outcome.assessment_ready,
            searched_until,
            windows: searched,
            claim_checks,
        };
        let recorded = self.store.finish_scan(target, &self.owner, &mut result, now, self.settings.scan_interval_ms);
        Ok(recorded.await?.map(|_| revisions))
    }

    /// The SEARCH provider's part: `"<alias>"` for up to 3 aliases (the name first) and
    /// `"<domain>"` for up to 2 domains, one query at a time, each over its own window; also the
    /// queries that succeeded (their windows end now). A query not answered by `searches_end`
    /// fails as `timeout` (one not started by then too): its window stays for the next scan.
    async fn search(
        &self,
        search: &SearchProvider,
        profile: &Profile,
        company: &sitrep_cm::store::Company,
        windows: &Windows,
        searches_end: tokio::time::Instant,
    ) -> (ProviderScan, Vec<Hit>, Vec<String>) {
        let until = windows.now;
        let queries: Vec<String> = profile
            .search_aliases(company)
            .into_iter()
            .chain(profile.search_domains())
            .map(|term| format!("\"{term}\""))
            .collect();
        let mut failures: Vec<Failure> = Vec::new();
        let (mut capped, mut partial) = (false, false);
        let mut hits = Vec::new();
        let mut done = Vec::new();
        let mut since = until;
        for query in &queries {
            let from = windows.since(Provider::Search, query);
            since = since.min(from);
            let asked =
                tokio::time::timeout_at(searches_end, search.search(&self.http, query, time(from), time(until)));
            match asked.await.unwrap_or(Err(Failure::Timeout)) {
                Ok(answer) => {
                    done.push(query.clone());
                    capped |= answer.capped;
                    partial |= answer.partial;
                    hits.extend(answer.results.into_iter().map(|r| Hit {
                        provider: Provider::Search,
                        source_id: r.url.clone(),
                        publisher: r.publisher,
                        url: r.url,
                        title: r.title,
                        snippet: r.snippet,
                        published_at: r.published_at,
                    }));
                }
                Err(failure) => failures.push(failure),
            }
        }
        let state = if failures.is_empty() && !partial {
            ProviderCoverage::Complete
        } else if failures.len() == queries.len() {
            ProviderCoverage::Failed
        } else {
            ProviderCoverage::Partial
        };
        let reason_code = match failures.first() {
            Some(f) => f.reason_code(),
            None if partial => "partial",
            None if capped => "capped",
            None => "",
        };
        let scan = ProviderScan {
            provider: Provider::Search,
            state,
            capped,
            last_complete_at: (state == ProviderCoverage::Complete).then_some(until),
            window_start: since,
            window_end: until,
            reason_code: reason_code.to_string(),
        };
        (scan, hits, done)
    }

    /// The items about `company_id` with a category: evidence URLs only, each once.
    fn candidates(&self, profiles: &[Profile], company_id: &str, hits: Vec<Hit>) -> Vec<Candidate> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for hit in hits {
            let Some((canonical_url, host)) = evidence_url::canonical(&hit.url) else { continue };
            if !seen.insert(canonical_url.clone()) {
                continue;
            }
            let item = Item { title: hit.title, snippet: hit.snippet, canonical_url, host };
            let Some(class) = classify(&item.title, &item.snippet) else { continue };
            let attributions = attribute(profiles, &item, Some(&class), &self.settings.authoritative_publishers);
            let Some(attribution) = attributions.into_iter().find(|a| a.company_id == company_id) else { continue };
            // Litigation the company brings is not an event against it (4.8: "Acme sues X").
            let suing =
                || profiles.iter().find(|p| p.company_id == company_id).is_some_and(|p| p.is_plaintiff_in(&item));
            if class.category == "legal" && suing() {
                continue;
            }
            let publisher = if hit.publisher.is_empty() { item.host.clone() } else { hit.publisher };
            out.push(Candidate {
                provider: hit.provider,
                source_id: hit.source_id,
                item,
                publisher,
                published_at: hit.published_at,
                attribution,
                class,
            });
        }
        out
    }
}

/// Adds company monitoring's jobs to the worker's scheduler: the due companies' scans and the
/// coverage sweep, each skipping a tick while its previous run is still going. `now` is the
/// worker's clock (the recordings' time in replay mode).
pub async fn schedule(
    sched: &tokio_cron_scheduler::JobScheduler,
    scanner: std::sync::Arc<Scanner>,
    now: std::sync::Arc<dyn Fn() -> i64 + Send + Sync>,
) -> Result<(), tokio_cron_scheduler::JobSchedulerError> {
    use tokio_cron_scheduler::Job;
    let guard = std::sync::Arc::new(tokio::sync::Mutex::new(()));
    let (s, g, clock) = (scanner.clone(), guard.clone(), now.clone());
    sched
        .add(Job::new_async(SCAN_CRON, move |_, _| {
            let (scanner, guard, now) = (s.clone(), g.clone(), clock.clone());
            Box::pin(async move {
                let Ok(_held) = guard.try_lock() else { return };
                let scope = ScanScope::Due { interval_ms: scanner.settings.scan_interval_ms };
                match scanner.run(scope, now()).await {
                    Ok(r) if r.scanned + r.dropped > 0 => tracing::info!(?r, "company monitoring: scans"),
                    Ok(_) => {}
                    Err(e) => tracing::error!(error = %e, "company monitoring: scans failed"),
                }
            })
        })?)
        .await?;
    sched
        .add(Job::new_async(SWEEP_CRON, move |_, _| {
            let (scanner, now) = (scanner.clone(), now.clone());
            Box::pin(async move {
                let interval = scanner.settings.scan_interval_ms;
                if let Err(e) = scanner.store.refresh_coverage(now(), interval).await {
                    tracing::error!(error = %e, "company monitoring: coverage sweep failed");
                }
                match scanner.recheck(now()).await {
                    Ok((0, _)) => {}
                    Ok((checked, retracted)) => {
                        tracing::info!(checked, retracted, "company monitoring: evidence re-checked")
                    }
                    Err(e) => tracing::error!(error = %e, "company monitoring: evidence re-check failed"),
                }
            })
        })?)
        .await?;
    Ok(())
}

/// The NEWS provider's part: the ingested items published in the window; FAILED
/// `provider_unavailable` when a news dataset is unavailable, complete only from fresh data;
/// `None` where the deployment ingests no news (NEWS does not run).
fn news_scan(news: &NewsSource, since: i64, until: i64, hits: &mut Vec<Hit>) -> Option<ProviderScan> {
    let mut scan = ProviderScan {
        provider: Provider::News,
        state: ProviderCoverage::Failed,
        capped: false,
        last_complete_at: None,
        window_start: since,
        window_end: until,
        reason_code: "provider_unavailable".into(),
    };
    let news = match news {
        NewsSource::NotIngested => return None,
        NewsSource::Unavailable => return Some(scan),
        NewsSource::Read(news) => news,
    };
    hits.extend(news.items.iter().filter(|i| (since..=until).contains(&i.published_at)).map(|i| Hit {
        provider: Provider::News,
        source_id: i.id.clone(),
        url: i.url.clone(),
        title: i.title.clone(),
        snippet: i.snippet.clone(),
        publisher: i.source.clone(),
        published_at: Some(i.published_at),
    }));
    scan.state = ProviderCoverage::Complete;
    scan.reason_code = String::new();
    scan.last_complete_at = news.fresh.then_some(until);
    Some(scan)
}
