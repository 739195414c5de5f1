//! Company monitoring's test data: events and impacts as a scan hands them to the store.

use sitrep_cm::{
    ids::Kind,
    impacts::{Confidence, Event, EventState, Evidence, Impact},
    records::{AuthorityTier, Channel, Direction, ImpactLifecycle, Magnitude, Provider},
    store::EventWrite,
};

/// An admitted event of `company_id` with `evidence` items (the second authoritative, the first
/// undated), as a scan hands it to the store.
pub fn admitted(company_id: &str, direction: Direction, evidence: usize, now: i64) -> EventWrite {
    let event_id = Kind::Event.new_id();
    let evidence: Vec<Evidence> = (0..evidence)
        .map(|n| Evidence {
            evidence_id: Kind::Evidence.new_id(),
            provider: if n % 2 == 0 { Provider::Search } else { Provider::News },
            source_id: format!("https://outlet{n}.example/story"),
            canonical_url: format!("https://outlet{n}.example/story"),
            publisher: format!("outlet{n}.example"),
            published_at: (n > 0).then_some(now - 3_600_000 + n as i64 * 1_000),
            tier: if n == 1 { AuthorityTier::IndependentAuthoritative } else { AuthorityTier::Ordinary },
            title: format!("Acme sued over contracts ({n})"),
            excerpt: format!("A lawsuit was filed ({n})."),
            attribution: 0.75,
            attribution_rule: "name in title".into(),
            claim_id: Kind::Claim.new_id(),
            first_seen_at: now,
            gone_at: None,
        })
        .collect();
    let event = Event {
        event_id: event_id.clone(),
        company_id: company_id.into(),
        category: "legal".into(),
        revision: 1,
        title: "Acme sued over contracts (1)".into(),
        summary: "A lawsuit was filed (1).".into(),
        occurred_at: now - 3_600_000,
        canonical_url: "https://outlet1.example/story".into(),
        tokens: vec!["contracts".into(), "sued".into()],
        state: EventState::Admitted,
        first_seen_at: now,
        updated_at: now,
    };
    let impact = Impact {
        impact_id: Kind::Impact.new_id(),
        company_id: company_id.into(),
        event_id,
        event_revision: 1,
        impact_revision: 1,
        direction,
        channels: vec![Channel::Reputation, Channel::Finances],
        magnitude: Magnitude::Medium,
        confidence: Confidence { attribution: 0.75, occurrence_truth: 0.85, material_impact: 0.75 },
        rationale: format!("legal signal from {} source(s); attribution by name in title", evidence.len()),
        lifecycle: ImpactLifecycle::Admitted,
        occurred_at: now - 3_600_000,
        changed_at: 0,
        admitted_at: now,
        evidence_total: evidence.len() as i64,
        canonical_url: "https://outlet1.example/story".into(),
    };
    EventWrite { event, new_evidence: evidence, impact: Some(impact), impact_changed: true }
}
