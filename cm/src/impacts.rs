//! Material events, their evidence and the impacts admitted from them (SUPPLEMENT 4.3, 4.8), as
//! the pipeline makes them and the store keeps them.

use crate::records::{AuthorityTier, Channel, Direction, ImpactLifecycle, Magnitude, Provider};

/// How long a change settles before a listing or the change feed shows it. A writer takes its
/// changedAt inside its transaction but may commit a moment later; a reader that showed later
/// changes first would move past it. Listings show impacts changed up to snapshotAsOf − 2 s, and
/// their poll cursors' feed starts there, so each change is shown by exactly one of them.
pub const SETTLE_MS: i64 = 2_000;

/// How many evidence references an impact shows (GetCompanyMaterialEvent; the count beyond is
/// reported, not listed).
pub const EVIDENCE_SHOWN: usize = 20;

/// The three confidence axes; `overall` is their minimum.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Confidence {
    pub attribution: f64,
    pub occurrence_truth: f64,
    pub material_impact: f64,
}

impl Confidence {
    pub fn overall(&self) -> f64 {
        self.attribution.min(self.occurrence_truth).min(self.material_impact)
    }
}

/// The current revision of an event's impact on its company (serialised as it rides in the
/// webhooks' outbox: the revision as committed, rendered when it is sent).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Impact {
    pub impact_id: String,
    pub company_id: String,
    pub event_id: String,
    pub event_revision: i64,
    pub impact_revision: i64,
    pub direction: Direction,
    pub channels: Vec<Channel>,
    pub magnitude: Magnitude,
    pub confidence: Confidence,
    pub rationale: String,
    pub lifecycle: ImpactLifecycle,
    pub occurred_at: i64,
    /// Assigned by the store when the revision is written: strictly increasing per account.
    pub changed_at: i64,
    pub admitted_at: i64,
    pub evidence_total: i64,
    /// The event's canonical URL (kept with the event; read with the impact).
    pub canonical_url: String,
}

/// Where an event stands against the admission bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventState {
    /// Below the bar: re-evaluated when evidence joins, discarded 72 h after first seen.
    Pending,
    Admitted,
    Discarded,
}

impl EventState {
    pub fn name(self) -> &'static str {
        match self {
            EventState::Pending => "pending",
            EventState::Admitted => "admitted",
            EventState::Discarded => "discarded",
        }
    }

    pub fn parse(name: &str) -> Option<EventState> {
        [EventState::Pending, EventState::Admitted, EventState::Discarded].into_iter().find(|s| s.name() == name)
    }
}

/// One company's material event: the candidates of one category that were grouped together.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event_id: String,
    pub company_id: String,
    pub category: String,
    pub revision: i64,
    pub title: String,
    pub summary: String,
    pub occurred_at: i64,
    /// The URL of the highest-tier evidence, earliest on ties.
    pub canonical_url: String,
    /// The content tokens candidates are compared on (sorted, unique).
    pub tokens: Vec<String>,
    pub state: EventState,
    pub first_seen_at: i64,
    pub updated_at: i64,
}

/// An item that joined an event.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    pub evidence_id: String,
    pub provider: Provider,
    pub source_id: String,
    pub canonical_url: String,
    pub publisher: String,
    pub published_at: Option<i64>,
    pub tier: AuthorityTier,
    pub title: String,
    pub excerpt: String,
    pub attribution: f64,
    /// Which attribution rule matched (`domain host`, `name in title`, …), for the rationale.
    pub attribution_rule: String,
    /// The claim whose match attributed the item.
    pub claim_id: String,
    pub first_seen_at: i64,
    /// When the daily re-check last found the URL gone (404/410); `None` while it resolves.
    pub gone_at: Option<i64>,
}

/// What GetCompanyMaterialEvent shows: the impact, its event, and the first evidence in order.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialEvent {
    pub impact: Impact,
    pub event: Event,
    /// At most [`EVIDENCE_SHOWN`], by authority tier then latest published.
    pub evidence: Vec<Evidence>,
    pub evidence_total: i64,
}
