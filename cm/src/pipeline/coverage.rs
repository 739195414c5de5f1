//! A company's coverage and observation (SUPPLEMENT 4.9), from what its latest scan found. The
//! rule order and thresholds are our decision; the invariants are fixed: ADEQUATE only by the
//! last rule, NO_EVENTS_OBSERVED only with ADEQUATE, IDENTITY_UNRESOLVED always with UNKNOWN.

use crate::records::{CoverageState, ObservationState, Provider, ProviderCoverage};

/// One provider's part of the latest scan.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderScan {
    pub provider: Provider,
    pub state: ProviderCoverage,
    pub capped: bool,
    /// When this provider last completed a scan (every query answered).
    pub last_complete_at: Option<i64>,
    pub window_start: i64,
    pub window_end: i64,
    /// "" or the first failure's code (or `capped`, `partial`).
    pub reason_code: String,
}

impl ProviderScan {
    /// Fresh: the last complete scan is younger than two scan intervals.
    pub fn fresh(&self, now: i64, scan_interval_ms: i64) -> bool {
        self.last_complete_at.is_some_and(|t| now - t < 2 * scan_interval_ms)
    }
}

/// What the coverage of a company is decided on.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts<'a> {
    /// It has a DOMAIN or LEGAL_IDENTIFIER claim.
    pub identified: bool,
    /// A scan finished since it was created or made active again.
    pub scanned: bool,
    /// A DOMAIN claim failed DNS resolution on three consecutive scans.
    pub domain_unconfirmed: bool,
    /// The latest scan's providers (at most one entry each).
    pub providers: &'a [ProviderScan],
    /// Every candidate of the latest scan was admitted or discarded.
    pub assessment_ready: bool,
    /// A current ADMITTED or CORRECTED impact occurred inside the latest window.
    pub events_in_window: bool,
    pub now: i64,
    pub scan_interval_ms: i64,
}

/// The coverage state by the first matching rule of 4.9, and the observation.
pub fn assess(f: &Facts) -> (CoverageState, ObservationState) {
    use CoverageState as C;
    let fresh = |p: &ProviderScan| p.fresh(f.now, f.scan_interval_ms);
    let state = if !f.identified {
        C::IdentityUnresolved
    } else if !f.scanned {
        C::AwaitingFirstScan
    } else if f.domain_unconfirmed {
        C::NeedsConfirmation
    } else if !f.providers.is_empty() && f.providers.iter().all(|p| p.state == ProviderCoverage::Failed) {
        C::Unavailable
    } else if f.providers.iter().any(|p| !fresh(p)) {
        C::Stale
    } else if f.providers.iter().any(|p| p.state != ProviderCoverage::Complete || p.capped) || !f.assessment_ready {
        C::Partial
    } else if f.providers.iter().any(|p| p.provider == Provider::Search) {
        // SEARCH searched the web, and every provider that ran (NEWS where the deployment ingests
        // news, FILINGS where the company has a CIK) is complete and fresh.
        C::Adequate
    } else {
        // Complete and fresh, but SEARCH is missing (switched off): not enough to call the
        // company quiet.
        C::Partial
    };
    let observation = if state == C::IdentityUnresolved {
        ObservationState::Unknown
    } else if f.events_in_window {
        ObservationState::EventsObserved
    } else if state == C::Adequate {
        ObservationState::NoEventsObserved
    } else {
        ObservationState::Unknown
    };
    (state, observation)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: i64 = 3_600_000;
    const NOW: i64 = 1_800_000_000_000;
    const INTERVAL: i64 = 6 * HOUR;

    fn scan(provider: Provider, state: ProviderCoverage, capped: bool, fresh: bool) -> ProviderScan {
        ProviderScan {
            provider,
            state,
            capped,
            last_complete_at: fresh.then_some(NOW - HOUR),
            window_start: NOW - 7 * 24 * HOUR,
            window_end: NOW,
            reason_code: String::new(),
        }
    }

    /// Every combination of the facts: the invariants hold in each.
    #[test]
    fn the_invariants_hold_for_every_combination() {
        let states = [ProviderCoverage::Complete, ProviderCoverage::Partial, ProviderCoverage::Failed];
        let mut provider_sets: Vec<Vec<ProviderScan>> = vec![Vec::new()];
        for provider in [Provider::Search, Provider::News, Provider::Filings] {
            let mut next = Vec::new();
            for set in &provider_sets {
                next.push(set.clone());
                for state in states {
                    for capped in [false, true] {
                        for fresh in [false, true] {
                            let mut with = set.clone();
                            with.push(scan(provider, state, capped, fresh));
                            next.push(with);
                        }
                    }
                }
            }
            provider_sets = next;
        }
        let mut seen = std::collections::BTreeSet::new();
        for providers in &provider_sets {
            for bits in 0..32u8 {
                let f = Facts {
                    identified: bits & 1 != 0,
                    scanned: bits & 2 != 0,
                    domain_unconfirmed: bits & 4 != 0,
                    providers,
                    assessment_ready: bits & 8 != 0,
                    events_in_window: bits & 16 != 0,
                    now: NOW,
                    scan_interval_ms: INTERVAL,
                };
                let (state, observation) = assess(&f);
                seen.insert(state);
                if state == CoverageState::Adequate {
                    assert!(f.identified && f.scanned && !f.domain_unconfirmed && f.assessment_ready);
                    // SEARCH always; NEWS and FILINGS when they ran (not required).
                    assert!(providers.iter().any(|p| p.provider == Provider::Search));
                    assert!(providers
                        .iter()
                        .all(|p| p.state == ProviderCoverage::Complete && !p.capped && p.fresh(NOW, INTERVAL)));
                }
                if observation == ObservationState::NoEventsObserved {
                    assert_eq!(state, CoverageState::Adequate);
                }
                if state == CoverageState::IdentityUnresolved {
                    assert_eq!(observation, ObservationState::Unknown);
                }
                let mut kinds: Vec<Provider> = providers.iter().map(|p| p.provider).collect();
                kinds.dedup();
                assert_eq!(kinds.len(), providers.len(), "at most one entry per provider");
            }
        }
        assert_eq!(seen.len(), 7, "every state is reachable: {seen:?}");
    }

    #[test]
    fn the_first_matching_rule_wins() {
        let both = [
            scan(Provider::Search, ProviderCoverage::Complete, false, true),
            scan(Provider::News, ProviderCoverage::Complete, false, true),
        ];
        let base = Facts {
            identified: true,
            scanned: true,
            domain_unconfirmed: false,
            providers: &both,
            assessment_ready: true,
            events_in_window: false,
            now: NOW,
            scan_interval_ms: INTERVAL,
        };
        assert_eq!(assess(&base), (CoverageState::Adequate, ObservationState::NoEventsObserved));
        let observed = Facts { events_in_window: true, ..base.clone() };
        assert_eq!(assess(&observed), (CoverageState::Adequate, ObservationState::EventsObserved));
        let pending = Facts { assessment_ready: false, ..base.clone() };
        assert_eq!(assess(&pending), (CoverageState::Partial, ObservationState::Unknown));
        let failed = [
            scan(Provider::Search, ProviderCoverage::Failed, false, false),
            scan(Provider::News, ProviderCoverage::Failed, false, true),
        ];
        assert_eq!(assess(&Facts { providers: &failed, ..base.clone() }).0, CoverageState::Unavailable);
        let stale = [scan(Provider::Search, ProviderCoverage::Complete, false, false), both[1].clone()];
        assert_eq!(assess(&Facts { providers: &stale, ..base.clone() }).0, CoverageState::Stale);
        let news_only = [both[1].clone()];
        assert_eq!(assess(&Facts { providers: &news_only, ..base.clone() }).0, CoverageState::Partial);
        // A deployment that ingests no news: SEARCH alone, complete and fresh, is adequate.
        let search_only = [both[0].clone()];
        assert_eq!(assess(&Facts { providers: &search_only, ..base.clone() }).0, CoverageState::Adequate);
        // FILINGS, when it ran, counts like any provider: failed, it holds coverage back.
        let filings_failed =
            [both[0].clone(), both[1].clone(), scan(Provider::Filings, ProviderCoverage::Failed, false, false)];
        assert_eq!(assess(&Facts { providers: &filings_failed, ..base.clone() }).0, CoverageState::Stale);
        assert_eq!(assess(&Facts { domain_unconfirmed: true, ..base.clone() }).0, CoverageState::NeedsConfirmation);
        assert_eq!(assess(&Facts { scanned: false, ..base.clone() }).0, CoverageState::AwaitingFirstScan);
        let unresolved = Facts { identified: false, events_in_window: true, ..base };
        assert_eq!(assess(&unresolved), (CoverageState::IdentityUnresolved, ObservationState::Unknown));
    }
}
