//! The store's records as the wire shows them (enums by full name, times in ISO 8601).

use chrono::{DateTime, SecondsFormat};
use sitrep_cm::{records::WireEnum, store};

use super::model::{Claim, CoverageRecord, MonitoredCompany};

/// Epoch milliseconds as ISO 8601 UTC with milliseconds.
pub fn iso(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

pub fn company(c: store::Company, site: &str) -> MonitoredCompany {
    MonitoredCompany {
        canonical_url: format!("{site}/company-monitoring/companies/{}", c.company_id),
        company_id: c.company_id,
        name: c.name,
        domicile_country: c.domicile.full_name().to_string(),
        lifecycle: c.lifecycle.full_name(),
        claims: c.claims.into_iter().map(claim).collect(),
        coverage: c.coverage.full_name(),
        observation: c.observation.full_name(),
        created_at: iso(c.created_at),
        updated_at: iso(c.updated_at),
    }
}

/// A company's coverage record (providers appear with its first scan).
pub fn coverage(c: &store::Company) -> CoverageRecord {
    CoverageRecord {
        state: c.coverage.full_name(),
        observation: c.observation.full_name(),
        providers: Vec::new(),
        assessment_ready: false,
        changed_at: iso(c.coverage_changed_at),
    }
}

fn claim(c: store::Claim) -> Claim {
    Claim {
        claim_id: c.claim_id,
        kind: c.kind.full_name(),
        value: c.value,
        provenance: c.provenance,
        trust_state: c.trust.full_name(),
        allowed_uses: c.allowed_uses.iter().map(|u| u.full_name()).collect(),
        expires_at: c.expires_at.map(iso).unwrap_or_default(),
    }
}
