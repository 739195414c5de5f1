//! Company monitoring's FILINGS provider (SUPPLEMENT 4.8, a Decision): a listed company's own
//! disclosures, read from the SEC's EDGAR submissions API (`GET {base}/submissions/CIK##########.json`,
//! the company's recent filings as parallel arrays under `filings.recent`). The SEC's fair-access
//! rules are the connector's, not the operator's: every request declares the deployment's
//! User-Agent ("Organisation contact@address"), and requests start at most ten a second across
//! the process, or the deployment where the workers share a Redis (`pace`). Failures carry the reasonCodes of the SEARCH contract, with the SEC's meanings: a
//! 403 is the SEC refusing an undeclared client, a 404 a CIK it does not know.

use std::time::Duration;

use chrono::{DateTime, NaiveDate};
use reqwest::{
    header::{HeaderMap, HeaderValue, USER_AGENT},
    Method,
};
use serde::Deserialize;
use url::Url;

use crate::{
    http::Http,
    pace::Pacer,
    web_search::{transport_failure, Failure, SearchProvider},
};

/// Where the SEC serves the submissions API.
pub const EDGAR_DATA_API: &str = "https://data.sec.gov";
/// The SEC allows at most ten requests a second.
pub const EDGAR_PACE: Duration = Duration::from_millis(100);
/// How long one company's submissions may take, retries included.
pub const TIMEOUT: Duration = Duration::from_secs(15);

/// One filing of `filings.recent`.
#[derive(Debug, Clone, PartialEq)]
pub struct Filing {
    /// `0001987654-26-000041`.
    pub accession: String,
    /// `8-K`, `8-K/A`, `10-Q`, …
    pub form: String,
    /// When EDGAR accepted it (epoch ms): when it became public.
    pub accepted_at: i64,
    /// The 8-K items it reports (`2.05`, `9.01`); empty for forms without items.
    pub items: Vec<String>,
    pub primary_document: String,
}

impl Filing {
    /// Whether the form is a current report (an 8-K or its amendment).
    pub fn is_current_report(&self) -> bool {
        matches!(self.form.as_str(), "8-K" | "8-K/A")
    }

    /// The filing's primary document on www.sec.gov.
    pub fn document_url(&self, cik: u64) -> String {
        format!(
            "https://www.sec.gov/Archives/edgar/data/{cik}/{}/{}",
            self.accession.replace('-', ""),
            self.primary_document
        )
    }
}

/// A company's submissions: its name as the SEC has it, and its recent filings.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Submissions {
    pub name: String,
    pub filings: Vec<Filing>,
}

#[derive(Deserialize)]
struct Body {
    #[serde(default)]
    name: String,
    filings: BodyFilings,
}

#[derive(Deserialize)]
struct BodyFilings {
    recent: Recent,
}

/// `filings.recent`: one array per field, one position per filing.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Recent {
    accession_number: Vec<String>,
    #[serde(default)]
    filing_date: Vec<String>,
    acceptance_date_time: Vec<String>,
    form: Vec<String>,
    #[serde(default)]
    items: Vec<String>,
    primary_document: Vec<String>,
}

/// A CIK as the SEC's files name it: ten digits, zero-padded.
pub fn padded(cik: u64) -> String {
    format!("{cik:010}")
}

/// The CIK of a LEGAL_IDENTIFIER claim `CIK:<1–10 digits>` (case and spaces around ignored).
pub fn cik_of_claim(value: &str) -> Option<u64> {
    let value = value.trim();
    let digits = value.get(..4).filter(|p| p.eq_ignore_ascii_case("cik:")).map(|_| value[4..].trim())?;
    if digits.is_empty() || digits.len() > 10 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// `acceptanceDateTime` (`2026-11-17T16:05:12.000Z`), else the filing date at midnight UTC.
fn accepted_at(acceptance: &str, filing_date: Option<&String>) -> Option<i64> {
    DateTime::parse_from_rfc3339(acceptance.trim()).map(|t| t.timestamp_millis()).ok().or_else(|| {
        let date = NaiveDate::parse_from_str(filing_date?.trim(), "%Y-%m-%d").ok()?;
        Some(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp_millis())
    })
}

/// `filings.recent` as filings: every array of one length (else the body is not what EDGAR
/// writes), a filing without a readable time left out.
fn filings_of(recent: Recent) -> Result<Vec<Filing>, Failure> {
    let n = recent.accession_number.len();
    let aligned = [recent.acceptance_date_time.len(), recent.form.len(), recent.primary_document.len()]
        .iter()
        .all(|&len| len == n)
        && (recent.items.is_empty() || recent.items.len() == n)
        && (recent.filing_date.is_empty() || recent.filing_date.len() == n);
    if !aligned {
        return Err(Failure::Malformed);
    }
    let mut filings = Vec::with_capacity(n);
    for i in 0..n {
        let Some(accepted_at) = accepted_at(&recent.acceptance_date_time[i], recent.filing_date.get(i)) else {
            continue;
        };
        let items = recent.items.get(i).map_or_else(Vec::new, |s| {
            s.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
        });
        filings.push(Filing {
            accession: recent.accession_number[i].clone(),
            form: recent.form[i].trim().to_string(),
            accepted_at,
            items,
            primary_document: recent.primary_document[i].clone(),
        });
    }
    Ok(filings)
}

/// The configured connector: EDGAR's base URL and the User-Agent the SEC requires.
#[derive(Debug, Clone)]
pub struct Edgar {
    pub base_url: String,
    /// "Organisation contact@address".
    pub user_agent: String,
    pub timeout: Duration,
    /// Request turns ten a second, shared by every clone.
    pub pacer: std::sync::Arc<Pacer>,
}

impl Edgar {
    pub fn new(base_url: String, user_agent: String, timeout: Duration) -> Self {
        Edgar { base_url, user_agent, timeout, pacer: Default::default() }
    }

    /// The connector taking its turns from `pacer` (shared by every worker through Redis).
    pub fn with_pacer(mut self, pacer: Pacer) -> Self {
        self.pacer = std::sync::Arc::new(pacer);
        self
    }

    fn headers(&self) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Ok(value) = HeaderValue::from_str(&self.user_agent) {
            headers.insert(USER_AGENT, value);
        }
        headers
    }

    /// The submissions of `cik`, or the failure by its reasonCode.
    pub async fn submissions(&self, http: &Http, cik: u64) -> Result<Submissions, Failure> {
        let url = format!("{}/submissions/CIK{}.json", self.base_url.trim_end_matches('/'), padded(cik));
        let url = Url::parse(&url).map_err(|_| Failure::RequestRejected)?;
        self.pacer.turn(EDGAR_PACE).await;
        let asked = async {
            let reply = http
                .send(Method::GET, &url, self.headers(), None, Some(self.timeout))
                .await
                .map_err(|e| transport_failure(&e))?;
            // The contract's mapping: a 403 is the SEC refusing an undeclared client; a 404 (as
            // other 4xx, request_rejected) a CIK it does not know, whose claim's check fails.
            let body: Body = SearchProvider::answer(&reply, Failure::AuthenticationFailed)?;
            Ok(Submissions { name: body.name, filings: filings_of(body.filings.recent)? })
        };
        tokio::time::timeout(self.timeout, asked).await.unwrap_or(Err(Failure::Timeout))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{http::RetryPolicy, replay::FixtureServer};

    async fn edgar(scenario: &str) -> (FixtureServer, Http, Edgar) {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/fixtures/sec-edgar").join(scenario);
        let server = FixtureServer::start_dirs(&[dir]).await.unwrap();
        let http = Http::new(server.transport(), RetryPolicy { max_retries: 0, ..RetryPolicy::default() }).unwrap();
        let edgar =
            Edgar::new(EDGAR_DATA_API.into(), "Sitrep Replay replay@sitrep.example".into(), Duration::from_secs(1));
        (server, http, edgar)
    }

    #[test]
    fn a_cik_claim_is_one_to_ten_digits() {
        assert_eq!(cik_of_claim("CIK:1987654"), Some(1_987_654));
        assert_eq!(cik_of_claim(" cik: 0001987654 "), Some(1_987_654));
        for bad in ["CIK:", "CIK:12345678901", "CIK:12a", "LEI:5493001KJTIIGC8Y1R12", "1987654"] {
            assert_eq!(cik_of_claim(bad), None, "{bad}");
        }
        assert_eq!(padded(1_987_654), "0001987654");
    }

    #[tokio::test]
    async fn recent_filings_are_read_from_the_parallel_arrays() {
        let (server, http, edgar) = edgar("normal").await;
        let got = edgar.submissions(&http, 1_987_654).await.unwrap();
        assert_eq!(got.name, "Kestrel Avionics, Inc.");
        let restructuring = got.filings.iter().find(|f| f.items.contains(&"2.05".to_string())).unwrap();
        assert!(restructuring.is_current_report());
        assert_eq!(restructuring.items, ["2.05", "7.01", "9.01"]);
        assert_eq!(
            restructuring.document_url(1_987_654),
            "https://www.sec.gov/Archives/edgar/data/1987654/000198765426000041/kstl-20261117.htm"
        );
        assert!(got.filings.iter().any(|f| f.form == "10-Q" && f.items.is_empty()));
        assert_eq!(server.requests(), ["GET /data.sec.gov/submissions/CIK0001987654.json"]);
        assert_eq!(edgar.headers().get(USER_AGENT).unwrap(), "Sitrep Replay replay@sitrep.example");
    }

    #[tokio::test]
    async fn every_failure_has_its_reason_code() {
        for (scenario, failure) in [
            ("undeclared", Failure::AuthenticationFailed),
            ("unknown-cik", Failure::RequestRejected),
            ("rate-limited", Failure::RateLimited),
            ("down", Failure::ProviderUnavailable),
            ("timeout", Failure::Timeout),
            ("malformed", Failure::Malformed),
            ("misaligned", Failure::Malformed),
        ] {
            let (_server, http, edgar) = edgar(scenario).await;
            assert_eq!(edgar.submissions(&http, 1_987_654).await, Err(failure), "{scenario}");
        }
    }

    /// Ten a second: the k-th request of a burst starts k tenths of a second after the first could.
    #[tokio::test]
    async fn requests_start_at_most_ten_a_second() {
        let (_server, http, edgar) = edgar("normal").await;
        let started = tokio::time::Instant::now();
        let answers = futures::future::join_all((0..5).map(|_| edgar.submissions(&http, 1_987_654))).await;
        assert!(answers.iter().all(Result::is_ok));
        assert!(started.elapsed() >= EDGAR_PACE * 4, "five requests in {:?}", started.elapsed());
    }
}
