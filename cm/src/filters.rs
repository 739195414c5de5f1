//! The filters of the two listings (SUPPLEMENT 4.6) and their canonical JSON: its SHA-256 is a
//! snapshot cursor's filterHash, and a poll cursor carries it whole, so the change feed selects
//! what the list that issued it selected.

use serde::Deserialize;
use serde_json::{json, Value};

use crate::{
    company_input::fingerprint_of,
    records::{CoverageState, Direction, ImpactLifecycle, Lifecycle, WireEnum},
};

/// ListMonitoredCompanies' filters, canonical (de-duplicated, sorted); empty lifecycles means
/// active and paused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListFilter {
    pub lifecycles: Vec<Lifecycle>,
    pub coverages: Vec<CoverageState>,
}

impl ListFilter {
    /// The lifecycles selected: those asked for, or active and paused.
    pub fn effective_lifecycles(&self) -> Vec<Lifecycle> {
        if self.lifecycles.is_empty() {
            vec![Lifecycle::Active, Lifecycle::Paused]
        } else {
            self.lifecycles.clone()
        }
    }
}

/// ListCompanyEventImpacts' filters, canonical (de-duplicated, sorted); empty means any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImpactFilter {
    pub company_ids: Vec<String>,
    pub directions: Vec<Direction>,
    pub lifecycles: Vec<ImpactLifecycle>,
}

/// Which impacts a feed shows: those of the companies a company listing selects, or those an
/// impact listing selects.
#[derive(Debug, Clone, PartialEq)]
pub enum FeedFilter {
    Companies(ListFilter),
    Impacts(ImpactFilter),
}

fn shorts<E: WireEnum>(values: &[E]) -> Vec<String> {
    values.iter().map(|v| v.short_name()).collect()
}

/// The short forms back, every one known.
fn parsed<E: WireEnum>(values: &[String]) -> Option<Vec<E>> {
    values.iter().map(|v| E::from_filter(v)).collect()
}

/// The canonical JSON's two shapes (keys in sorted order; each shape has a key the other lacks).
#[derive(Deserialize)]
#[serde(untagged)]
enum Canonical {
    Companies(CompaniesJson),
    Impacts(ImpactsJson),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CompaniesJson {
    coverage: Vec<String>,
    lifecycle: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ImpactsJson {
    company_id: Vec<String>,
    direction: Vec<String>,
    lifecycle: Vec<String>,
}

impl FeedFilter {
    /// The canonical JSON (defaults applied, keys sorted) and its SHA-256 in hex.
    pub fn canonical(&self) -> (Value, String) {
        let value = match self {
            FeedFilter::Companies(f) => {
                json!({"coverage": shorts(&f.coverages), "lifecycle": shorts(&f.effective_lifecycles())})
            }
            FeedFilter::Impacts(f) => json!({
                "companyId": f.company_ids,
                "direction": shorts(&f.directions),
                "lifecycle": shorts(&f.lifecycles),
            }),
        };
        let hash = fingerprint_of(&value);
        (value, hash)
    }

    /// The filters a canonical JSON stands for (`None` when it is not one).
    pub fn from_canonical(value: &Value) -> Option<FeedFilter> {
        Some(match Canonical::deserialize(value).ok()? {
            Canonical::Companies(c) => {
                FeedFilter::Companies(ListFilter { lifecycles: parsed(&c.lifecycle)?, coverages: parsed(&c.coverage)? })
            }
            Canonical::Impacts(i) => FeedFilter::Impacts(ImpactFilter {
                company_ids: i.company_id,
                directions: parsed(&i.direction)?,
                lifecycles: parsed(&i.lifecycle)?,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_round_trips_and_hashes_defaults_alike() {
        let companies = FeedFilter::Companies(ListFilter::default());
        let explicit = FeedFilter::Companies(ListFilter {
            lifecycles: vec![Lifecycle::Active, Lifecycle::Paused],
            coverages: vec![],
        });
        assert_eq!(companies.canonical().1, explicit.canonical().1, "the default is what it selects");
        let impacts = FeedFilter::Impacts(ImpactFilter {
            company_ids: vec!["cm_company_01ARZ3NDEKTSV4RRFFQ69G5FAV".into()],
            directions: vec![Direction::Negative],
            lifecycles: vec![],
        });
        assert_eq!(impacts.canonical().0.to_string().find("companyId"), Some(2));
        assert_eq!(FeedFilter::from_canonical(&impacts.canonical().0), Some(impacts.clone()));
        assert_eq!(FeedFilter::from_canonical(&explicit.canonical().0), Some(explicit));
        assert_ne!(companies.canonical().1, impacts.canonical().1);
        assert_eq!(FeedFilter::from_canonical(&json!({"coverage": ["bogus"], "lifecycle": []})), None);
        assert_eq!(FeedFilter::from_canonical(&json!({"lifecycle": []})), None);
    }
}
