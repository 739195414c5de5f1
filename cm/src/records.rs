//! The enums of company monitoring (SUPPLEMENT 4.2) with their wire names, and the short
//! lower-case forms query filters also accept (API.md 2.6). Each is also a [`ClosedSet`] under its
//! SUPPLEMENT 4.2 name, so the OpenAPI document declares its values.

use std::borrow::Cow;

use sitrep_schemas::closed_set::ClosedSet;

/// An enum whose values have a full wire name (`MONITORED_COMPANY_LIFECYCLE_ACTIVE`) made of a
/// prefix and an upper-case suffix, the suffix lower-cased being its short form (`active`).
pub trait WireEnum: Sized + Copy + PartialEq + 'static {
    const PREFIX: &'static str;
    /// Every value but UNSPECIFIED, in declaration order.
    const VALUES: &'static [Self];
    fn suffix(self) -> &'static str;

    fn full_name(self) -> String {
        format!("{}{}", Self::PREFIX, self.suffix())
    }

    fn short_name(self) -> String {
        self.suffix().to_ascii_lowercase()
    }

    /// A full name exactly as written (request bodies accept only these).
    fn from_full_name(name: &str) -> Option<Self> {
        let suffix = name.strip_prefix(Self::PREFIX)?;
        Self::VALUES.iter().copied().find(|v| v.suffix() == suffix)
    }

    /// A query filter value: the exact short form or the exact full name.
    fn from_filter(value: &str) -> Option<Self> {
        Self::VALUES.iter().copied().find(|v| v.short_name() == value).or_else(|| Self::from_full_name(value))
    }

    /// The pattern a filter value must match (`^(?:active|paused|removed|MONITORED_COMPANY_LIFECYCLE_(?:ACTIVE|PAUSED|REMOVED))$`).
    fn filter_pattern() -> String {
        let shorts: Vec<String> = Self::VALUES.iter().map(|v| v.short_name()).collect();
        let suffixes: Vec<&str> = Self::VALUES.iter().map(|v| v.suffix()).collect();
        format!("^(?:{}|{}(?:{}))$", shorts.join("|"), Self::PREFIX, suffixes.join("|"))
    }
}

macro_rules! wire_enum {
    ($name:ident, $api_name:literal, $prefix:literal, [$($variant:ident = $suffix:literal),+ $(,)?]) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name { $($variant),+ }

        impl WireEnum for $name {
            const PREFIX: &'static str = $prefix;
            const VALUES: &'static [Self] = &[$($name::$variant),+];
            fn suffix(self) -> &'static str {
                match self { $($name::$variant => $suffix),+ }
            }
        }

        impl ClosedSet for $name {
            const NAME: &'static str = $api_name;
            const VALUES: &'static [Self] = <$name as WireEnum>::VALUES;
            fn wire_name(self) -> Cow<'static, str> {
                self.full_name().into()
            }
        }

        // By the full wire name: how an impact rides in the webhooks' outbox.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.full_name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                Self::from_full_name(&name).ok_or_else(|| serde::de::Error::custom(format!("not a {}: {name}", $api_name)))
            }
        }
    };
}

wire_enum!(
    Lifecycle,
    "MonitoredCompanyLifecycle",
    "MONITORED_COMPANY_LIFECYCLE_",
    [Active = "ACTIVE", Paused = "PAUSED", Removed = "REMOVED"]
);
wire_enum!(
    ClaimType,
    "CompanyClaimType",
    "COMPANY_CLAIM_TYPE_",
    [
        Alias = "ALIAS",
        Domain = "DOMAIN",
        LegalIdentifier = "LEGAL_IDENTIFIER",
        Location = "LOCATION",
        CustomerReference = "CUSTOMER_REFERENCE",
    ]
);
wire_enum!(
    TrustState,
    "CompanyClaimTrustState",
    "COMPANY_CLAIM_TRUST_STATE_",
    [Declared = "DECLARED", Verified = "VERIFIED", Expired = "EXPIRED", Rejected = "REJECTED",]
);
wire_enum!(
    AllowedUse,
    "CompanyClaimAllowedUse",
    "COMPANY_CLAIM_ALLOWED_USE_",
    [Discovery = "DISCOVERY", Attribution = "ATTRIBUTION", PrimaryEvidence = "PRIMARY_EVIDENCE",]
);
wire_enum!(
    Direction,
    "MaterialImpactDirection",
    "MATERIAL_IMPACT_DIRECTION_",
    [Positive = "POSITIVE", Negative = "NEGATIVE", Mixed = "MIXED"]
);
wire_enum!(
    Channel,
    "MaterialImpactChannel",
    "MATERIAL_IMPACT_CHANNEL_",
    [Reputation = "REPUTATION", Finances = "FINANCES"]
);
wire_enum!(
    Magnitude,
    "MaterialImpactMagnitude",
    "MATERIAL_IMPACT_MAGNITUDE_",
    [Low = "LOW", Medium = "MEDIUM", High = "HIGH"]
);
wire_enum!(
    ImpactLifecycle,
    "MaterialImpactLifecycle",
    "MATERIAL_IMPACT_LIFECYCLE_",
    [Admitted = "ADMITTED", Corrected = "CORRECTED", Retracted = "RETRACTED",]
);
wire_enum!(
    CoverageState,
    "CompanyCoverageState",
    "COMPANY_COVERAGE_STATE_",
    [
        AwaitingFirstScan = "AWAITING_FIRST_SCAN",
        Adequate = "ADEQUATE",
        Partial = "PARTIAL",
        Stale = "STALE",
        Unavailable = "UNAVAILABLE",
        NeedsConfirmation = "NEEDS_CONFIRMATION",
        IdentityUnresolved = "IDENTITY_UNRESOLVED",
    ]
);
wire_enum!(
    ObservationState,
    "CompanyObservationState",
    "COMPANY_OBSERVATION_STATE_",
    [EventsObserved = "EVENTS_OBSERVED", NoEventsObserved = "NO_EVENTS_OBSERVED", Unknown = "UNKNOWN",]
);
wire_enum!(
    Provider,
    "MonitoringProvider",
    "MONITORING_PROVIDER_",
    [Search = "SEARCH", News = "NEWS", Filings = "FILINGS"]
);
wire_enum!(
    ProviderCoverage,
    "ProviderCoverageState",
    "PROVIDER_COVERAGE_STATE_",
    [Complete = "COMPLETE", Partial = "PARTIAL", Failed = "FAILED"]
);
wire_enum!(
    AuthorityTier,
    "EvidenceAuthorityTier",
    "EVIDENCE_AUTHORITY_TIER_",
    [
        PrimaryVerified = "PRIMARY_VERIFIED",
        IndependentAuthoritative = "INDEPENDENT_AUTHORITATIVE",
        Ordinary = "ORDINARY",
    ]
);
wire_enum!(
    PollState,
    "CompanyEventPollState",
    "COMPANY_EVENT_POLL_STATE_",
    [Current = "CURRENT", SnapshotRequired = "SNAPSHOT_REQUIRED"]
);
wire_enum!(
    AccessState,
    "CompanyMonitoringAccessState",
    "COMPANY_MONITORING_ACCESS_STATE_",
    [Disabled = "DISABLED", Entitled = "ENTITLED", EntitlementLapsed = "ENTITLEMENT_LAPSED", Denied = "DENIED",]
);
wire_enum!(
    ImportOutcome,
    "CompanyImportRowOutcome",
    "COMPANY_IMPORT_ROW_OUTCOME_",
    [Created = "CREATED", Replayed = "REPLAYED", Conflict = "CONFLICT", Rejected = "REJECTED", NoOp = "NO_OP",]
);

sitrep_schemas::closed_set!(
    /// Who stated a claim (4.3): the customer, or a provider that verified it independently.
    Provenance,
    "CompanyClaimProvenance",
    [Customer = "customer", IndependentProvider = "independent_provider"]
);

/// DomicileCountry: a closed set. Requests may also name it by its two letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Domicile {
    Unspecified,
    Us,
    Gb,
}

/// UNSPECIFIED is no value (a request naming it is refused with a message of its own), so not
/// among [`WireEnum::VALUES`].
impl WireEnum for Domicile {
    const PREFIX: &'static str = "DOMICILE_COUNTRY_";
    const VALUES: &'static [Self] = &[Domicile::Us, Domicile::Gb];
    fn suffix(self) -> &'static str {
        match self {
            Domicile::Unspecified => "UNSPECIFIED",
            Domicile::Us => "US",
            Domicile::Gb => "GB",
        }
    }
}

impl ClosedSet for Domicile {
    const NAME: &'static str = "DomicileCountry";
    const VALUES: &'static [Self] = <Domicile as WireEnum>::VALUES;
    fn wire_name(self) -> Cow<'static, str> {
        self.full_name().into()
    }
}

impl Domicile {
    /// A full name exactly, or `US` / `GB` in any case with surrounding space.
    pub fn parse(value: &str) -> Option<Domicile> {
        if value == Domicile::Unspecified.full_name() {
            return Some(Domicile::Unspecified);
        }
        if let Some(d) = Domicile::from_full_name(value) {
            return Some(d);
        }
        match value.trim().to_ascii_uppercase().as_str() {
            "US" => Some(Domicile::Us),
            "GB" => Some(Domicile::Gb),
            _ => None,
        }
    }
}

impl ClaimType {
    /// The uses a customer-declared claim of this type allows (4.4).
    pub fn declared_uses(self) -> &'static [AllowedUse] {
        match self {
            ClaimType::Alias | ClaimType::Domain | ClaimType::LegalIdentifier => {
                &[AllowedUse::Attribution, AllowedUse::Discovery]
            }
            ClaimType::Location | ClaimType::CustomerReference => &[AllowedUse::Discovery],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_take_the_short_or_the_full_form_exactly() {
        assert_eq!(Lifecycle::from_filter("paused"), Some(Lifecycle::Paused));
        assert_eq!(Lifecycle::from_filter("MONITORED_COMPANY_LIFECYCLE_REMOVED"), Some(Lifecycle::Removed));
        assert_eq!(Lifecycle::from_filter("Paused"), None);
        assert_eq!(Lifecycle::from_filter("MONITORED_COMPANY_LIFECYCLE_UNSPECIFIED"), None);
        assert_eq!(
            Lifecycle::filter_pattern(),
            "^(?:active|paused|removed|MONITORED_COMPANY_LIFECYCLE_(?:ACTIVE|PAUSED|REMOVED))$"
        );
        assert_eq!(CoverageState::from_filter("needs_confirmation"), Some(CoverageState::NeedsConfirmation));
        assert_eq!(ImpactLifecycle::Corrected.full_name(), "MATERIAL_IMPACT_LIFECYCLE_CORRECTED");
    }
}
