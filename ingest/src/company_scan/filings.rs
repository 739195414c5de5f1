//! The FILINGS provider's part of a scan (SUPPLEMENT 4.8): for each CIK the company claims, its
//! current reports (8-K, 8-K/A) EDGAR accepted in the window, one candidate per mapped item —
//! matched by the CIK alone (no names, no ambiguity guard), primary evidence admitted alone.

use sitrep_cm::{
    pipeline::{
        coverage::ProviderScan,
        events::Candidate,
        evidence_url,
        filings::{self, ATTRIBUTION, PUBLISHER, RULE},
        matching::{Attribution, Item},
    },
    records::{AuthorityTier, ClaimType, Provider, ProviderCoverage, TrustState},
    store::Company,
};
use sitrep_pipelines::{
    edgar::{cik_of_claim, Edgar, Filing},
    http::Http,
    web_search::Failure,
};

use super::Windows;

/// What FILINGS found for a company: its coverage entry, its candidates, the claims checked (a
/// CIK the SEC does not know fails its check, as a domain that does not resolve), and the
/// queries (`CIK:<n>`) whose windows end now.
pub(super) struct FilingsScan {
    pub scan: ProviderScan,
    pub candidates: Vec<Candidate>,
    pub claim_checks: Vec<(String, bool)>,
    pub done: Vec<String>,
}

/// The company's CIK claims still trusted: (claim id, CIK).
fn cik_claims(company: &Company) -> Vec<(String, u64)> {
    company
        .claims
        .iter()
        .filter(|c| {
            c.kind == ClaimType::LegalIdentifier && !matches!(c.trust, TrustState::Expired | TrustState::Rejected)
        })
        .filter_map(|c| Some((c.claim_id.clone(), cik_of_claim(&c.value)?)))
        .collect()
}

/// FILINGS for `company`, or `None` when it claims no CIK (the provider does not run for it).
pub(super) async fn scan(
    edgar: &Edgar,
    http: &Http,
    company: &Company,
    windows: &Windows,
    searches_end: tokio::time::Instant,
) -> Option<FilingsScan> {
    let claims = cik_claims(company);
    if claims.is_empty() {
        return None;
    }
    let until = windows.now;
    let mut since = until;
    let (mut failures, mut candidates, mut claim_checks, mut done) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (claim_id, cik) in &claims {
        let query = format!("CIK:{cik}");
        let from = windows.since(Provider::Filings, &query);
        since = since.min(from);
        let asked = tokio::time::timeout_at(searches_end, edgar.submissions(http, *cik));
        match asked.await.unwrap_or(Err(Failure::Timeout)) {
            Ok(submissions) => {
                claim_checks.push((claim_id.clone(), true));
                done.push(query);
                let in_window = submissions
                    .filings
                    .iter()
                    .filter(|f| f.is_current_report() && (from..=until).contains(&f.accepted_at));
                for filing in in_window {
                    candidates.extend(candidates_of(company, claim_id, *cik, filing));
                }
            }
            Err(failure) => {
                // A CIK the SEC does not know (404): the claim's check fails.
                if failure == Failure::RequestRejected {
                    claim_checks.push((claim_id.clone(), false));
                }
                failures.push(failure);
            }
        }
    }
    let state = if failures.is_empty() {
        ProviderCoverage::Complete
    } else if failures.len() == claims.len() {
        ProviderCoverage::Failed
    } else {
        ProviderCoverage::Partial
    };
    let scan = ProviderScan {
        provider: Provider::Filings,
        state,
        capped: false,
        last_complete_at: (state == ProviderCoverage::Complete).then_some(until),
        window_start: since,
        window_end: until,
        reason_code: failures.first().map_or("", |f| f.reason_code()).to_string(),
    };
    Some(FilingsScan { scan, candidates, claim_checks, done })
}

/// A filing's candidates: one per item that reports an event.
fn candidates_of(company: &Company, claim_id: &str, cik: u64, filing: &Filing) -> Vec<Candidate> {
    let Some((canonical_url, host)) = evidence_url::canonical(&filing.document_url(cik)) else { return Vec::new() };
    let excerpt = filings::excerpt(&filing.items);
    filing
        .items
        .iter()
        .filter_map(|item| {
            let class = filings::class_of_item(item, &excerpt)?;
            Some(Candidate {
                provider: Provider::Filings,
                source_id: format!("{}#{item}", filing.accession),
                item: Item {
                    title: filings::title(&company.name, &filing.form, item),
                    snippet: excerpt.clone(),
                    canonical_url: canonical_url.clone(),
                    host: host.clone(),
                },
                publisher: PUBLISHER.to_string(),
                published_at: Some(filing.accepted_at),
                attribution: Attribution {
                    company_id: company.company_id.clone(),
                    attribution: ATTRIBUTION,
                    rule: RULE,
                    claim_id: claim_id.to_string(),
                    tier: AuthorityTier::PrimaryVerified,
                },
                class,
            })
        })
        .collect()
}
