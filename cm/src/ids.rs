//! Logical identifiers (API.md 2.6): a fixed prefix and 26 Crockford base32 characters, 10 of
//! millisecond time and 16 of randomness (a ULID). Storage keys are never shown in their place.

use std::sync::LazyLock;

use regex::Regex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Company,
    Impact,
    Claim,
    Event,
    Evidence,
}

impl Kind {
    pub const fn prefix(self) -> &'static str {
        match self {
            Kind::Company => "cm_company_",
            Kind::Impact => "cm_impact_",
            Kind::Claim => "cm_claim_",
            Kind::Event => "cm_event_",
            Kind::Evidence => "cm_evidence_",
        }
    }

    /// The documented pattern of this kind's identifiers (violation descriptions quote it).
    pub const fn pattern(self) -> &'static str {
        match self {
            Kind::Company => "^cm_company_[0-9A-HJKMNP-TV-Z]{26}$",
            Kind::Impact => "^cm_impact_[0-9A-HJKMNP-TV-Z]{26}$",
            Kind::Claim => "^cm_claim_[0-9A-HJKMNP-TV-Z]{26}$",
            Kind::Event => "^cm_event_[0-9A-HJKMNP-TV-Z]{26}$",
            Kind::Evidence => "^cm_evidence_[0-9A-HJKMNP-TV-Z]{26}$",
        }
    }

    /// A new identifier of this kind.
    pub fn new_id(self) -> String {
        format!("{}{}", self.prefix(), ulid::Ulid::new())
    }

    /// Whether `id` is well formed for this kind.
    pub fn matches(self, id: &str) -> bool {
        static BODY: LazyLock<Regex> =
            LazyLock::new(|| Regex::new("^[0-9A-HJKMNP-TV-Z]{26}$").expect("a valid pattern"));
        id.strip_prefix(self.prefix()).is_some_and(|body| BODY.is_match(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_match_their_pattern_and_no_other() {
        for kind in [Kind::Company, Kind::Impact, Kind::Claim, Kind::Event, Kind::Evidence] {
            let id = kind.new_id();
            assert!(kind.matches(&id), "{id}");
            assert!(Regex::new(kind.pattern()).unwrap().is_match(&id));
        }
        assert!(!Kind::Impact.matches(&Kind::Company.new_id()));
        assert!(!Kind::Company.matches("cm_company_01ARZ3NDEKTSV4RRFFQ69G5FAI"), "I is not Crockford");
        assert!(!Kind::Company.matches("cm_company_01arz3ndektsv4rrffq69g5fav"), "lower case");
        assert!(!Kind::Company.matches("cm_company_01ARZ3NDEKTSV4RRFFQ69G5FA"));
    }
}
