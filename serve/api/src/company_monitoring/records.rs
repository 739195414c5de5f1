//! The store's records as the wire shows them (enums by full name, times in ISO 8601).

use chrono::{DateTime, SecondsFormat};
use sitrep_cm::{
    impacts::{self, EVIDENCE_SHOWN},
    store,
};
use sitrep_platform::kit::wire_name::WireName;

use super::model::{
    Claim, CoverageRecord, EvidenceReference, Impact, ImpactConfidence, MaterialEvent, MonitoredCompany,
    ProviderCoverage,
};

/// Epoch milliseconds as ISO 8601 UTC with milliseconds.
pub fn iso(ms: i64) -> String {
    DateTime::from_timestamp_millis(ms).unwrap_or_default().to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// An RFC 3339 time back in epoch milliseconds.
pub fn epoch_ms(text: &str) -> Option<i64> {
    DateTime::parse_from_rfc3339(text).ok().map(|t| t.timestamp_millis())
}

pub fn company(c: store::Company, site: &str) -> MonitoredCompany {
    MonitoredCompany {
        canonical_url: format!("{site}/company-monitoring/companies/{}", c.company_id),
        company_id: c.company_id,
        name: c.name,
        domicile_country: WireName(c.domicile),
        lifecycle: WireName(c.lifecycle),
        claims: c.claims.into_iter().map(claim).collect(),
        coverage: WireName(c.coverage),
        observation: WireName(c.observation),
        created_at: iso(c.created_at),
        updated_at: iso(c.updated_at),
    }
}

/// A company's coverage record: its state and observation, and its latest scan's providers
/// (none before the first scan), fresh as of the last judgement.
pub fn coverage(c: &store::Company, scan: &store::ScanRecord, scan_interval_ms: i64) -> CoverageRecord {
    CoverageRecord {
        state: WireName(c.coverage),
        observation: WireName(c.observation),
        providers: scan
            .providers
            .iter()
            .map(|p| ProviderCoverage {
                provider: WireName(p.provider),
                state: WireName(p.state),
                capped: p.capped,
                fresh: scan.judged_at.is_some_and(|at| p.fresh(at, scan_interval_ms)),
                returned_window_start: iso(p.window_start),
                returned_window_end: iso(p.window_end),
                reason_code: p.reason_code.clone(),
            })
            .collect(),
        assessment_ready: scan.assessment_ready,
        changed_at: iso(c.coverage_changed_at),
    }
}

fn claim(c: store::Claim) -> Claim {
    Claim {
        claim_id: c.claim_id,
        kind: WireName(c.kind),
        value: c.value,
        provenance: WireName(c.provenance),
        trust_state: WireName(c.trust),
        allowed_uses: c.allowed_uses.iter().map(|&u| WireName(u)).collect(),
        expires_at: c.expires_at.map(iso).unwrap_or_default(),
    }
}

/// A confidence as shown: four decimals, so sums like 0.5 + 0.3 read as 0.8.
fn confidence_value(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

pub fn impact(i: impacts::Impact) -> Impact {
    let total = i32::try_from(i.evidence_total).unwrap_or(i32::MAX);
    let shown = total.min(EVIDENCE_SHOWN as i32);
    Impact {
        confidence: ImpactConfidence {
            attribution: confidence_value(i.confidence.attribution),
            occurrence_truth: confidence_value(i.confidence.occurrence_truth),
            material_impact: confidence_value(i.confidence.material_impact),
            overall: confidence_value(i.confidence.overall()),
        },
        impact_id: i.impact_id,
        event_id: i.event_id,
        company_id: i.company_id,
        event_revision: i.event_revision,
        impact_revision: i.impact_revision,
        is_current: true,
        direction: WireName(i.direction),
        channels: i.channels.iter().map(|&c| WireName(c)).collect(),
        magnitude: WireName(i.magnitude),
        rationale: i.rationale,
        lifecycle: WireName(i.lifecycle),
        occurred_at: iso(i.occurred_at),
        changed_at: iso(i.changed_at),
        evidence_reference_count: shown,
        evidence_total_count: total,
        evidence_truncated: total > shown,
        canonical_url: i.canonical_url,
    }
}

/// The event as shown beside `impact` (whose lifecycle it carries).
pub fn event(e: impacts::Event, impact: &impacts::Impact) -> MaterialEvent {
    MaterialEvent {
        event_id: e.event_id,
        revision: e.revision,
        lifecycle: WireName(impact.lifecycle),
        title: e.title,
        summary: e.summary,
        occurred_at: iso(e.occurred_at),
        category: e.category,
        canonical_url: e.canonical_url,
    }
}

pub fn evidence(e: impacts::Evidence) -> EvidenceReference {
    EvidenceReference {
        evidence_id: e.evidence_id,
        provider: WireName(e.provider),
        source_id: e.source_id,
        canonical_url: e.canonical_url,
        publisher: e.publisher,
        published_at: e.published_at.map(iso).unwrap_or_default(),
        authority_tier: WireName(e.tier),
        excerpt: e.excerpt,
    }
}
